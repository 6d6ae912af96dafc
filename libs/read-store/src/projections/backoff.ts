/** Backoff between attempts: doubles from `initialMs` up to `maxMs`. */
export interface Backoff {
  initialMs: number;
  maxMs: number;
}

export const IDLE = Symbol('idle');
/** Resolves on the next turn of the event loop: raced against a pending read, it tells "nothing more right now". */
export const nextTurn = () => new Promise<typeof IDLE>((resolve) => setImmediate(() => resolve(IDLE)));

/**
 * A catch-up loop (a runner reading the log from far behind) resolves every read on a microtask,
 * so it would hold the event loop until it has caught up: no request, `/health` included, would be
 * answered meanwhile. `maybe()` hands the loop back once `everyMs` have passed since it last did.
 */
export class EventLoopTurns {
  private last = performance.now();

  constructor(private readonly everyMs = 20) {}

  async maybe(): Promise<void> {
    if (performance.now() - this.last < this.everyMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.last = performance.now();
  }
}

/** Waits `ms`, or less when `signal` aborts first (a stopping runner does not sit out its backoff). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Runs `attempt` again and again while `isRunning()`: after a failure it waits (doubling from
 * `initialMs`, capped at `maxMs`) and tries again; an attempt that ends without failing resets the
 * delay. Used by the subscription loops of projections and reactors: a dropped subscription or a
 * failed write is retried from the checkpoint, never skipped.
 */
export async function retryWithBackoff(options: {
  backoff: Backoff;
  isRunning: () => boolean;
  attempt: () => Promise<void>;
  onFailure: (error: unknown, retryInMs: number) => void;
  signal?: AbortSignal;
}): Promise<void> {
  const { backoff } = options;
  let delay = backoff.initialMs;
  while (options.isRunning()) {
    try {
      await options.attempt();
      delay = backoff.initialMs;
    } catch (error) {
      if (!options.isRunning()) break;
      options.onFailure(error, delay);
      await sleep(delay, options.signal);
      delay = Math.min(delay * 2, backoff.maxMs);
    }
  }
}
