import type { Decider, DomainEvent } from './decider';
import type { EventMetadata, EventStore } from './event-store.port';
import { CommandProcessor, type CommandOutcome } from './command-processor';

export type { CommandOutcome } from './command-processor';

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
  /** Upgrades old event shapes on read (docs/architecture.md, Messages and streams). */
  upcast?: (event: DomainEvent) => TEvent;
}

/** Loads a stream and folds it: the current state and revision. */
export function loadAggregate<TCommand, TEvent extends DomainEvent, TState>(
  store: EventStore,
  stream: string,
  decider: Decider<TCommand, TEvent, TState>,
  upcast?: (event: DomainEvent) => TEvent,
): Promise<{ state: TState; revision: number | null }> {
  return new CommandProcessor(store, { cacheSize: 0 }).load(stream, decider, upcast);
}

/**
 * One command, on its own: load, fold, decide, append with the expected revision, re-decide on a
 * conflict (bounded). The service itself goes through a long-lived `CommandProcessor`, which adds
 * a state cache and batching; this is the same logic without either.
 */
export function handleCommand<TCommand, TEvent extends DomainEvent, TState>(
  options: HandleCommandOptions<TCommand, TEvent, TState>,
): Promise<CommandOutcome<TEvent, TState>> {
  const { store, maxRetries, onConflict, ...request } = options;
  return new CommandProcessor(store, { cacheSize: 0, maxRetries, onConflict }).submit(request);
}
