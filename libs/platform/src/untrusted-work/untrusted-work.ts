import { ApiError } from '../http/error-envelope';

/**
 * Heavy work on what callers send (parsing OpenAPI documents, converting markdown and HTML, reading
 * zip entries, rendering PDFs, running integration scripts) runs off the thread that answers every
 * request: in a bounded pool of worker threads, each task within a time budget and each thread
 * within a memory budget. docs/untrusted-work.md lists the tasks and their budgets.
 *
 * A task is a function exported by a module of the service, named by that module's file and the
 * export's name (never by anything a caller sends). Its input and result cross threads by structured
 * clone: plain data, Buffers and typed arrays.
 */
export interface UntrustedTask<Input, Result> {
  /** Absolute file of the module that exports the task (its `__filename`). */
  readonly module: string;
  readonly exportName: string;
  /** What the task does, for error messages and metrics: `converting markdown`. */
  readonly what: string;
  /** Only for the type parameters. */
  readonly __types?: (input: Input) => Result;
}

/** Names a task: `untrustedTask<In, Out>(__filename, 'convertMarkdownTask', 'converting markdown')`. */
export function untrustedTask<Input, Result>(module: string, exportName: string, what: string): UntrustedTask<Input, Result> {
  return Object.freeze({ module, exportName, what });
}

export interface TaskBudget {
  /** Wall-clock time the task may run once a thread has taken it; the thread is ended past it. */
  timeMs?: number;
}

/** The pool, as contexts use it. */
export interface UntrustedWork {
  run<Input, Result>(task: UntrustedTask<Input, Result>, input: Input, budget?: TaskBudget): Promise<Result>;
}

export const UNTRUSTED_WORK = Symbol('UNTRUSTED_WORK');

/** Why the pool ended or refused a task. */
export type BudgetKind = 'time' | 'memory' | 'queue';

/**
 * A task that ran over its budget (422: what the caller sent costs more than it may), or one the
 * pool could not take because too much work is waiting (503, with Retry-After).
 */
export class WorkBudgetExceeded extends ApiError {
  override readonly name = 'WorkBudgetExceeded';
  constructor(
    readonly kind: BudgetKind,
    message: string,
  ) {
    super(kind === 'queue' ? 503 : 422, message, kind === 'queue' ? { 'Retry-After': '5' } : undefined);
  }
}

/** A task's own failure, carried across the thread boundary with the members the caller may need. */
export interface TaskFailure {
  name: string;
  message: string;
  code?: string;
  status?: number;
  details?: Record<string, unknown>;
}
