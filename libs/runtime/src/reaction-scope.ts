import { AsyncLocalStorage } from 'node:async_hooks';
import type { LogPosition } from '../../event-store/src/event-store.port';

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

export function runInReaction<T>(reaction: ReactionScope, work: () => Promise<T>): Promise<T> {
  return scope.run(reaction, work);
}

/** The reaction this code runs in, if any. */
export function currentReaction(): ReactionScope | undefined {
  return scope.getStore();
}
