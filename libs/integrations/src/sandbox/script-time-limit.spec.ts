import { WorkBudgetExceeded } from '#platform/untrusted-work/untrusted-work';
import { WorkerPool } from '#platform/untrusted-work/worker-pool';
import { RUN_EVENT_HANDLER, type EventHandlerRun } from './sandbox.work';
import { runEventHandler, TIME_LIMIT_EXCEEDED, type SandboxFetch } from './script-sandbox';

/**
 * The sandbox's own time limit stops a script: a broken limit must fail these specs within their
 * own bound, never hang the test runner.
 *
 * - A script that computes without end blocks the thread it runs on, so no timer of that thread could
 *   notice a broken limit. It runs on a thread of the untrusted-work pool whose budget is the test's
 *   bound: the pool ends the thread at the bound and the spec sees `WorkBudgetExceeded` instead of
 *   the sandbox's own outcome. (Called without the pooled-sandbox wrapper, which would dress that
 *   up as the sandbox's answer.)
 * - A script awaiting a request that never answers leaves the thread free: the run races a timer of
 *   the spec's own, and Jest's per-test timeout is the last resort.
 */
const TIGHT_LIMIT_MS = 300;
/** Far above the limit: thread start-up and loading the sandbox from source on a busy machine. */
const BOUND_MS = 15_000;
const JEST_TIMEOUT_MS = 30_000;

const never: SandboxFetch = () => new Promise(() => {});

function handlerRun(script: string): EventHandlerRun {
  return {
    script,
    event: { type: 'space_content_updated' },
    context: {},
    fetch: { contentSecurityPolicy: null, allowPrivateNetworks: false },
    limits: { timeMs: TIGHT_LIMIT_MS },
  };
}

/** The promise's value, or a failure naming what did not end within `ms`. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not end within ${ms} ms: the time limit did not stop it`)), ms);
  });
  try {
    return await Promise.race([promise, bound]);
  } finally {
    clearTimeout(timer);
  }
}

describe('the script time limit', () => {
  const pool = new WorkerPool({ threads: 1, memoryMb: 128, timeMs: BOUND_MS, queueLimit: 4, queueTimeMs: BOUND_MS });
  afterAll(() => pool.close());
  // A thread's first run also loads the sandbox and compiles the prelude, which alone may take
  // longer than a tight limit: the thread is warmed first, so the limit meets the handler's loop.
  beforeAll(
    () =>
      pool.run(
        RUN_EVENT_HANDLER,
        { ...handlerRun(`exports.events = { space_content_updated: () => 'warm' }`), limits: { timeMs: 10_000 } },
        { timeMs: BOUND_MS },
      ),
    JEST_TIMEOUT_MS,
  );

  // Mutation pinned: an interrupt handler that never interrupts (or a deadline that is never reached).
  it(
    'given a handler that loops forever and a tight limit, when it runs, then the sandbox itself stops it with “time limit exceeded”',
    async () => {
      const outcome = await pool
        .run(RUN_EVENT_HANDLER, handlerRun(`exports.events = { space_content_updated: () => { for (;;) {} } }`), { timeMs: BOUND_MS })
        .catch((error: unknown) => {
          if (error instanceof WorkBudgetExceeded)
            throw new Error(`the sandbox did not stop the script: the pool ended its thread at ${BOUND_MS} ms`);
          throw error;
        });
      expect(outcome).toMatchObject({ ok: false, error: TIME_LIMIT_EXCEEDED });
    },
    JEST_TIMEOUT_MS,
  );

  it(
    'given a top-level loop that catches everything and a tight limit, when it runs, then the interrupt still stops it',
    async () => {
      const outcome = await pool
        .run(RUN_EVENT_HANDLER, handlerRun(`for (;;) { try { for (;;) {} } catch (error) {} }`), { timeMs: BOUND_MS })
        .catch((error: unknown) => {
          if (error instanceof WorkBudgetExceeded)
            throw new Error(`the sandbox did not stop the script: the pool ended its thread at ${BOUND_MS} ms`);
          throw error;
        });
      expect(outcome).toMatchObject({ ok: false, error: TIME_LIMIT_EXCEEDED });
    },
    JEST_TIMEOUT_MS,
  );

  describe('on this thread', () => {
    // Warmed as the pool's thread is: a cold first run may spend the whole limit before it awaits.
    beforeAll(
      () =>
        runEventHandler(
          `exports.events = { space_content_updated: () => 'warm' }`,
          { type: 'space_content_updated' },
          {},
          { fetch: never, limits: { timeMs: 10_000 } },
        ),
      JEST_TIMEOUT_MS,
    );

    // Mutation pinned: waiting for the host without the deadline's timer.
    it(
      'given a handler awaiting a request that never answers and a tight limit, when it runs, then it ends with “time limit exceeded”',
      async () => {
        const run = runEventHandler(
          `exports.events = { space_content_updated: async () => { await fetch('https://slow.example/') } }`,
          { type: 'space_content_updated' },
          {},
          { fetch: never, limits: { timeMs: TIGHT_LIMIT_MS } },
        );
        const outcome = await within(BOUND_MS, 'a run awaiting a silent host', run);
        expect(outcome).toMatchObject({ ok: false, error: TIME_LIMIT_EXCEEDED });
      },
      JEST_TIMEOUT_MS,
    );
  });
});
