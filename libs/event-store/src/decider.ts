import type { DomainError } from '#platform/errors';
import type { EventMetadata } from './event-store.port';

/** A domain event as deciders produce and evolve it: a written-out type and plain data. */
export interface DomainEvent<TType extends string = string, TData = unknown> {
  type: TType;
  data: TData;
}

/**
 * A functional decider (docs/architecture.md, Deciders): pure, no I/O, no clock, no random ids; time and new ids
 * arrive on the command.
 */
export interface Decider<TCommand, TEvent extends DomainEvent, TState> {
  initialState(): TState;
  evolve(state: TState, event: TEvent): TState;
  /** Events to append (possibly none), or the rule the command breaks. */
  decide(command: TCommand, state: TState): TEvent[] | DomainError;
}

/** Metadata stamped on every event of one command. */
export type CommandMetadata = EventMetadata;
