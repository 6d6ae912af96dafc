import { AsyncLocalStorage } from 'node:async_hooks';
import type { LogPosition } from '#event-store/event-store.port';

/**
 * What the command runner needs to know while a reactor reacts to an event: whom to stamp as
 * cause and correlation of what it appends, and where to report the positions it appended (the
 * cascade part of read-your-writes waits for them). Carried through async calls, so a context's
 * own command service called from a reaction needs no extra parameter.
 */
export interface ReactionScope {
  reactor: string;
  correlationId: string;
  causationId: string;
  appended(position: LogPosition): void;
}

const scope = new AsyncLocalStorage<ReactionScope>();
/** Reactions under way; when none is, the storage is disabled. */
let running = 0;

/**
 * Runs `work` with `reaction` as its scope. On Node 20 an enabled AsyncLocalStorage keeps promise
 * hooks on for every promise of the process (several percent of each HTTP request), so the storage
 * is disabled again whenever no reaction is under way: only reactions pay for it.
 */
export async function runInReaction<T>(reaction: ReactionScope, work: () => Promise<T>): Promise<T> {
  running++;
  try {
    return await scope.run(reaction, work);
  } finally {
    if (--running === 0) scope.disable();
  }
}

/** The reaction this code runs in, if any. */
export function currentReaction(): ReactionScope | undefined {
  return scope.getStore();
}
