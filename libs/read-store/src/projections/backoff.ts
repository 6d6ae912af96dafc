/** Backoff between attempts: doubles from `initialMs` up to `maxMs`. */
export interface Backoff {
  initialMs: number;
  maxMs: number;
}

export const IDLE = Symbol('idle');
/** Resolves on the next turn of the event loop: raced against a pending read, it tells "nothing more right now". */
export const nextTurn = () => new Promise<typeof IDLE>((resolve) => setImmediate(() => resolve(IDLE)));

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
