import type { CommandMetadata, Decider, DomainEvent } from '#event-store/decider';
import { CommandProcessor, type CommandOutcome } from '#event-store/command-processor';
import type { EventStore } from '#event-store/event-store.port';
import { WrongExpectedRevisionError } from '#event-store/errors';
import { actorOf, type Caller } from '#platform/http/auth';
import type { Clock } from '#platform/clock';
import type { Metrics } from './metrics';
import type { ReadYourWrites } from './read-your-writes';
import { currentReaction } from './reaction-scope';

/** Where a command comes from: stamped on every event it appends (docs/architecture.md, Messages and streams). */
export interface CommandContext {
  caller: Caller;
  source?: 'api' | 'integration' | 'system';
  /** The request that caused it; defaults to the caller's request. */
  requestId?: string;
}

export const SCHEMA_VERSION = 1;

/**
 * The metadata stamped on every event of one command (docs/architecture.md, Messages and streams):
 * the one builder, shared by the runner and by the CLI's seeding, which appends without a runner.
 */
export function commandMetadata(
  caller: Caller,
  stamp: { source: 'api' | 'integration' | 'system'; occurredAt: string; requestId: string; correlationId: string; causationId: string },
): CommandMetadata {
  return {
    actor: actorOf(caller),
    source: stamp.source,
    occurredAt: stamp.occurredAt,
    requestId: stamp.requestId,
    correlationId: stamp.correlationId,
    causationId: stamp.causationId,
    schemaVersion: SCHEMA_VERSION,
  };
}

/**
 * What happens around every command, whoever issues it (a handler through `DecidingHandler`, a
 * reaction, the CLI): metadata, If-Match, metrics, publishing what was committed, and the
 * read-your-writes wait.
 */
export class CommandRunner {
  private readonly processor: CommandProcessor;
  private readonly committedListeners: ((stream: string, events: readonly DomainEvent[]) => void)[] = [];

  constructor(
    store: EventStore,
    private readonly readYourWrites: ReadYourWrites,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
  ) {
    this.processor = new CommandProcessor(store, { onConflict: () => this.metrics.conflicts.inc() });
  }

  /**
   * Hears every batch this runner commits, after the append (the process's `EventBus` is bound
   * here). For in-process listeners that may miss an event; read models and reactions come from
   * checkpointed subscriptions instead.
   */
  onCommitted(listener: (stream: string, events: readonly DomainEvent[]) => void): void {
    this.committedListeners.push(listener);
  }

  /** A stream's current state (cached, caught up with the store), for checks before a command. */
  load<C, E extends DomainEvent, S>(stream: string, decider: Decider<C, E, S>): Promise<{ state: S; revision: number | null }> {
    return this.processor.load(stream, decider);
  }

  now(): Date {
    return this.clock.now();
  }

  async run<C, E extends DomainEvent, S>(
    stream: string,
    decider: Decider<C, E, S>,
    command: C,
    context: CommandContext,
    options: { ifMatch?: number; wait?: boolean } = {},
  ): Promise<CommandOutcome<E, S>> {
    // Inside a reaction, what it appends is caused by the triggering event and shares its correlation.
    const reaction = currentReaction();
    const requestId = context.requestId ?? context.caller.requestId ?? reaction?.correlationId ?? 'none';
    const metadata = commandMetadata(context.caller, {
      source: context.source ?? (reaction ? 'system' : 'api'),
      occurredAt: this.clock.now().toISOString(),
      requestId,
      correlationId: reaction?.correlationId ?? requestId,
      causationId: reaction?.causationId ?? requestId,
    });
    let outcome: CommandOutcome<E, S>;
    try {
      outcome = await this.processor.submit({ stream, decider, command, metadata, ifMatch: options.ifMatch });
    } catch (error) {
      this.metrics.appends.inc({ outcome: error instanceof WrongExpectedRevisionError ? 'conflict' : 'rejected' });
      throw error;
    }
    if (outcome.events.length > 0) {
      this.metrics.appends.inc({ outcome: 'appended' });
      for (const listener of this.committedListeners) listener(stream, outcome.events);
      if (outcome.position !== undefined) reaction?.appended(outcome.position);
      // A reaction waits for the projections only: waiting for the reactors would wait for itself.
      if (options.wait !== false)
        await this.readYourWrites.wait(outcome.position, requestId, {
          types: outcome.events.map((event) => event.type),
          cascades: !reaction,
        });
    }
    return outcome;
  }

  /** Waits for a position produced outside `run` (several commands in one request). */
  waitFor(position: bigint | undefined, requestId?: string): Promise<void> {
    return this.readYourWrites.wait(position, requestId, { cascades: !currentReaction() });
  }
}

export const COMMAND_RUNNER = Symbol('COMMAND_RUNNER');
