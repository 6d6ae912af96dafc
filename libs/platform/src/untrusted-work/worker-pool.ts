import { availableParallelism } from 'node:os';
import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { DomainError, type DomainErrorCode } from '../errors';
import { WorkBudgetExceeded, type TaskBudget, type TaskFailure, type UntrustedTask, type UntrustedWork } from './untrusted-work';

/** @internal What the pool sends a thread. */
export interface TaskMessage {
  id: number;
  module: string;
  exportName: string;
  input: unknown;
}

/** @internal What a thread answers. */
export type TaskReply = { id: number; result: unknown } | { id: number; failure: TaskFailure };

export interface WorkerPoolOptions {
  /** Threads at most (UNTRUSTED_WORK_THREADS). */
  threads: number;
  /** Heap of each thread in MiB (UNTRUSTED_WORK_MEMORY_MB); a task that needs more ends its thread. */
  memoryMb: number;
  /** Time of a task that names no budget of its own (UNTRUSTED_WORK_TIME_MS). */
  timeMs: number;
  /** Tasks that may wait for a thread (UNTRUSTED_WORK_QUEUE); more are refused with 503. */
  queueLimit: number;
  /** How long a task may wait for a thread before it is refused with 503. */
  queueTimeMs: number;
  /** Called once per task with how it ended (metrics). */
  onOutcome?: (what: string, outcome: 'ok' | 'failed' | 'time' | 'memory' | 'queue', seconds: number) => void;
}

export function defaultThreads(): number {
  return Math.max(2, Math.min(4, availableParallelism()));
}

interface Job {
  task: Pick<UntrustedTask<unknown, unknown>, 'module' | 'exportName' | 'what'>;
  input: unknown;
  timeMs: number;
  enqueuedAt: number;
  startedAt: number;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface Thread {
  worker: Worker;
  job: Job | null;
  timer: NodeJS.Timeout | null;
  /** Set once the thread is being ended: its later events are ignored. */
  ended: boolean;
}

const WORKER_SCRIPT = join(__dirname, `untrusted-work.worker${extname(__filename)}`);
/** Run from the TypeScript sources (Jest, the e2e harness), a thread loads them as the tests' child processes do. */
const REGISTER_TYPESCRIPT = join(__dirname, '..', '..', '..', '..', 'scripts', 'register-ts.js');

/**
 * The untrusted-work pool: at most `threads` worker threads, one task at a time each, started on
 * demand and replaced when one is ended. A task over its time budget has its thread terminated
 * (V8 stops whatever it runs, a tight loop included); a thread over its heap limit dies with
 * ERR_WORKER_OUT_OF_MEMORY. Either way the caller gets WorkBudgetExceeded (422) and the service goes
 * on answering, since no task ever runs on the thread that serves requests.
 */
export class WorkerPool implements UntrustedWork {
  private readonly threads = new Set<Thread>();
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: WorkerPoolOptions) {}

  run<Input, Result>(task: UntrustedTask<Input, Result>, input: Input, budget: TaskBudget = {}): Promise<Result> {
    if (this.closed) return Promise.reject(new Error('the untrusted-work pool is closed'));
    if (this.queue.length >= this.options.queueLimit) {
      this.options.onOutcome?.(task.what, 'queue', 0);
      return Promise.reject(new WorkBudgetExceeded('queue', `the service is busy ${task.what} for others: try again shortly`));
    }
    return new Promise<Result>((resolve, reject) => {
      const timeMs = budget.timeMs ?? this.options.timeMs;
      this.queue.push({ task, input, timeMs, enqueuedAt: Date.now(), startedAt: 0, resolve: resolve as (value: unknown) => void, reject });
      this.dispatch();
    });
  }

  /** Tasks waiting for a thread, and threads alive. */
  get load(): { queued: number; threads: number; busy: number } {
    let busy = 0;
    for (const thread of this.threads) if (thread.job) busy++;
    return { queued: this.queue.length, threads: this.threads.size, busy };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('the service is stopping'));
    await Promise.all([...this.threads].map((thread) => this.end(thread, new Error('the service is stopping'))));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const thread = this.idleThread();
      if (!thread) return;
      const job = this.queue.shift()!;
      const now = Date.now();
      if (now - job.enqueuedAt > this.options.queueTimeMs) {
        this.options.onOutcome?.(job.task.what, 'queue', (now - job.enqueuedAt) / 1000);
        job.reject(new WorkBudgetExceeded('queue', `the service is busy ${job.task.what} for others: try again shortly`));
        continue;
      }
      job.startedAt = now;
      thread.job = job;
      thread.timer = setTimeout(() => {
        const seconds = job.timeMs / 1000;
        this.settle(thread, 'time', () =>
          job.reject(new WorkBudgetExceeded('time', `${job.task.what} took longer than its budget of ${seconds} s`)),
        );
        void this.end(thread);
      }, job.timeMs);
      const message: TaskMessage = { id: this.nextId++, module: job.task.module, exportName: job.task.exportName, input: job.input };
      try {
        thread.worker.postMessage(message);
      } catch (error) {
        // Input that cannot be cloned is the calling code's mistake, not the caller's.
        this.settle(thread, 'failed', () => job.reject(error as Error));
      }
    }
  }

  private idleThread(): Thread | null {
    for (const thread of this.threads) if (!thread.job && !thread.ended) return thread;
    if (this.threads.size >= this.options.threads) return null;
    return this.startThread();
  }

  private startThread(): Thread {
    const { memoryMb } = this.options;
    const resourceLimits = {
      maxOldGenerationSizeMb: memoryMb,
      maxYoungGenerationSizeMb: Math.max(4, Math.min(32, Math.floor(memoryMb / 8))),
      stackSizeMb: 4,
    };
    const worker = WORKER_SCRIPT.endsWith('.ts')
      ? new Worker(`require(${JSON.stringify(REGISTER_TYPESCRIPT)}); require(${JSON.stringify(WORKER_SCRIPT)});`, {
          eval: true,
          resourceLimits,
        })
      : new Worker(WORKER_SCRIPT, { resourceLimits });
    worker.unref();
    const thread: Thread = { worker, job: null, timer: null, ended: false };
    this.threads.add(thread);
    worker.on('message', (reply: TaskReply) => this.answer(thread, reply));
    worker.on('error', (error: Error & { code?: string }) => this.lost(thread, error));
    worker.on('exit', (code) => this.lost(thread, new Error(`a worker thread stopped (exit code ${code})`)));
    return thread;
  }

  private answer(thread: Thread, reply: TaskReply): void {
    const job = thread.job;
    if (!job || thread.ended) return;
    if ('failure' in reply) this.settle(thread, 'failed', () => job.reject(revive(reply.failure)));
    else this.settle(thread, 'ok', () => job.resolve(reply.result));
    this.dispatch();
  }

  /** The thread died (out of memory, a crash) or exited: its task fails, another thread takes the queue. */
  private lost(thread: Thread, error: Error & { code?: string }): void {
    if (!this.retire(thread)) return;
    const job = thread.job;
    if (job) {
      const memory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.settle(thread, memory ? 'memory' : 'failed', () =>
        job.reject(
          memory
            ? new WorkBudgetExceeded('memory', `${job.task.what} needed more than its memory budget of ${this.options.memoryMb} MiB`)
            : error,
        ),
      );
    }
    this.dispatch();
  }

  private settle(thread: Thread, outcome: 'ok' | 'failed' | 'time' | 'memory', finish: () => void): void {
    const job = thread.job;
    if (!job) return;
    if (thread.timer) clearTimeout(thread.timer);
    thread.timer = null;
    thread.job = null;
    this.options.onOutcome?.(job.task.what, outcome, (Date.now() - job.startedAt) / 1000);
    finish();
  }

  /** Takes the thread out of the pool; false when it was out already (its later events are ignored). */
  private retire(thread: Thread): boolean {
    if (thread.ended) return false;
    thread.ended = true;
    this.threads.delete(thread);
    return true;
  }

  private async end(thread: Thread, error?: Error): Promise<void> {
    const job = thread.job;
    if (error && job) this.settle(thread, 'failed', () => job.reject(error));
    this.retire(thread);
    await thread.worker.terminate();
    this.dispatch();
  }
}

/** A task's failure as an error of this thread: domain errors keep their status and details. */
function revive(failure: TaskFailure): Error {
  if (failure.name === 'DomainError' && failure.status !== undefined)
    return new DomainError(failure.status as DomainErrorCode, failure.message, failure.details);
  const error = new Error(failure.message) as Error & { code?: string };
  error.name = failure.name;
  if (failure.code !== undefined) error.code = failure.code;
  return error;
}
