import { WorkBudgetExceeded, type UntrustedTask, type UntrustedWork } from '#platform/untrusted-work/untrusted-work';
import {
  RENDER_COMPONENT,
  RUN_EVENT_HANDLER,
  type ComponentRenderRun,
  type EventHandlerRun,
  type RenderedComponent,
  type ScriptRun,
} from './sandbox.work';
import {
  DEFAULT_SANDBOX_LIMITS,
  MEMORY_LIMIT_EXCEEDED,
  TIME_LIMIT_EXCEEDED,
  type SandboxLimits,
  type SandboxOutcome,
} from './script-sandbox';

/**
 * Time the pool gives a run beyond the sandbox's own limit: for starting a thread and loading the
 * sandbox into it (most of a second on a busy machine from the TypeScript sources), creating the
 * WebAssembly instance and handing the outcome back. The sandbox's interrupt stops a script at its
 * limit; the pool ends the thread only if that failed (the backstop).
 */
export const POOL_MARGIN_MS = 5000;

/** The pool's time budget of a run with these limits. */
export function poolBudgetMs(limits: Partial<SandboxLimits> | undefined): number {
  return (limits?.timeMs ?? DEFAULT_SANDBOX_LIMITS.timeMs) + POOL_MARGIN_MS;
}

/**
 * The outcome of a run the pool ended: over its time budget it is the sandbox's own `time limit
 * exceeded`, over its thread's heap `memory limit exceeded` (the logs of the run are lost with the
 * thread). Null for anything else (a full queue, 503, is the caller's to answer).
 */
export function outcomeOfEndedRun(error: unknown, durationMs: number): SandboxOutcome<never> | null {
  if (!(error instanceof WorkBudgetExceeded)) return null;
  if (error.kind === 'time') return { ok: false, error: TIME_LIMIT_EXCEEDED, logs: [], durationMs };
  if (error.kind === 'memory') return { ok: false, error: MEMORY_LIMIT_EXCEEDED, logs: [], durationMs };
  return null;
}

async function runInPool<Run extends ScriptRun, Result>(
  work: UntrustedWork,
  task: UntrustedTask<Run, SandboxOutcome<Result>>,
  run: Run,
): Promise<SandboxOutcome<Result>> {
  const started = performance.now();
  try {
    return await work.run(task, run, { timeMs: poolBudgetMs(run.limits) });
  } catch (error) {
    const outcome = outcomeOfEndedRun(error, Math.round(performance.now() - started));
    if (outcome) return outcome;
    throw error;
  }
}

/** runEventHandler of script-sandbox.ts, on a thread of the pool. */
export function runEventHandlerInPool(work: UntrustedWork, run: EventHandlerRun): Promise<SandboxOutcome<unknown>> {
  return runInPool(work, RUN_EVENT_HANDLER, run);
}

/** renderComponent of script-sandbox.ts, on a thread of the pool. */
export function renderComponentInPool(work: UntrustedWork, run: ComponentRenderRun): Promise<SandboxOutcome<RenderedComponent>> {
  return runInPool(work, RENDER_COMPONENT, run);
}
