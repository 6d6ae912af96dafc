import { DomainError, isDomainError } from '../../platform/src/errors';
import type { Decider, DomainEvent } from './decider';
import type { AppendResult, EventMetadata, EventStore } from './event-store.port';
import { WrongExpectedRevisionError } from './errors';

export interface HandleCommandOptions<TCommand, TEvent extends DomainEvent, TState> {
  store: EventStore;
  stream: string;
  decider: Decider<TCommand, TEvent, TState>;
  command: TCommand;
  /** Metadata for every appended event (actor, source, occurredAt, requestId, …). */
  metadata?: EventMetadata;
  /**
   * The revision the client last saw (`If-Match`). When given, a stream at another revision fails
   * with 412 instead of being re-decided: the client asked not to overwrite changes it has not seen.
   */
  ifMatch?: number;
  /** How many times a concurrency conflict is resolved by reloading and deciding again. Default 3. */
  maxRetries?: number;
  /** Called on every concurrency conflict met (for metrics), before any retry. */
  onConflict?: () => void;
  /** Upgrades old event shapes on read (DESIGN section 4). */
  upcast?: (event: DomainEvent) => TEvent;
}

export interface CommandOutcome<TEvent extends DomainEvent, TState> {
  /** What was appended; empty when the decider decided nothing changes. */
  events: TEvent[];
  /** State after the new events. */
  state: TState;
  /** Stream revision after the command, or null when the stream still does not exist. */
  revision: number | null;
  /** Log position of the last appended event; absent when nothing was appended. */
  position?: AppendResult['position'];
}

const PAGE = 1000;

/** Loads a stream and folds it: the current state and revision. */
export async function loadAggregate<TCommand, TEvent extends DomainEvent, TState>(
  store: EventStore,
  stream: string,
  decider: Decider<TCommand, TEvent, TState>,
  upcast: (event: DomainEvent) => TEvent = (event) => event as TEvent,
): Promise<{ state: TState; revision: number | null }> {
  let state = decider.initialState();
  let revision: number | null = null;
  for (;;) {
    const page = await store.readStream(stream, { fromRevision: revision === null ? 0 : revision + 1, maxCount: PAGE });
    for (const recorded of page) {
      state = decider.evolve(state, upcast({ type: recorded.type, data: recorded.data }));
      revision = recorded.revision;
    }
    if (page.length < PAGE) return { state, revision };
  }
}

/**
 * The one way commands change state: load the stream, fold `evolve`, `decide`, append with the
 * expected revision (`no_stream` for creation). On a concurrency conflict it reloads and decides
 * again, at most `maxRetries` times, then the conflict is rethrown for the API to answer 409.
 * A decider's DomainError is thrown as is.
 */
export async function handleCommand<TCommand, TEvent extends DomainEvent, TState>(
  options: HandleCommandOptions<TCommand, TEvent, TState>,
): Promise<CommandOutcome<TEvent, TState>> {
  const { store, stream, decider, command, metadata = {}, ifMatch, maxRetries = 3, upcast, onConflict } = options;
  for (let attempt = 0; ; attempt++) {
    const { state, revision } = await loadAggregate(store, stream, decider, upcast);
    if (ifMatch !== undefined && ifMatch !== revision) {
      throw DomainError.preconditionFailed(`the resource has changed: If-Match names revision ${ifMatch} but it is at ${revision ?? 'none'}`);
    }
    const decided = decider.decide(command, state);
    if (isDomainError(decided)) throw decided;
    if (decided.length === 0) return { events: [], state, revision };
    try {
      const result = await store.appendToStream(
        stream,
        decided.map((event) => ({ type: event.type, data: event.data, metadata })),
        revision === null ? 'no_stream' : revision,
      );
      const next = decided.reduce(decider.evolve, state);
      return { events: decided, state: next, revision: result.nextExpectedRevision, position: result.position };
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) onConflict?.();
      const retry = error instanceof WrongExpectedRevisionError && ifMatch === undefined && attempt < maxRetries;
      if (!retry) throw error;
    }
  }
}
