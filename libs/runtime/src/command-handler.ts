import { Inject } from '@nestjs/common';
import type { CommandOutcome } from '#event-store/command-processor';
import type { Decider, DomainEvent } from '#event-store/decider';
import type { Caller } from '#platform/http/auth';
import { COMMAND_RUNNER, type CommandRunner } from './command-runner';

/**
 * Who asks for a command and on what condition: every bus command carries `caller`, and a write
 * on a single resource carries the revision its `If-Match` names.
 */
export interface Asked {
  caller: Caller;
  ifMatch?: number;
  /** Default `api` (`system` inside a reaction). */
  source?: 'api' | 'integration' | 'system';
  /** The request that caused it; defaults to the caller's request. */
  requestId?: string;
  /** False: answer without waiting for the read models (long-running work). */
  wait?: boolean;
}

/**
 * The base of every command handler (docs/architecture.md, Commands): a handler reads what the
 * rule needs, builds the decider's command with `now` and new ids, and calls `decide` on the
 * aggregate's stream. What happens around every command (metadata stamping, If-Match, metrics,
 * the read-your-writes wait, publishing the committed events) is `CommandRunner.run`, here once.
 */
export abstract class DecidingHandler {
  @Inject(COMMAND_RUNNER) protected readonly runner!: CommandRunner;

  /** The time stamped on the command (the decider takes no clock). */
  protected now(): string {
    return this.runner.now().toISOString();
  }

  /** Loads the stream, decides `command` against it, appends what was decided and waits for it to be readable. */
  protected decide<C, E extends DomainEvent, S>(
    stream: string,
    decider: Decider<C, E, S>,
    command: C,
    asked: Asked,
  ): Promise<CommandOutcome<E, S>> {
    return this.runner.run(
      stream,
      decider,
      command,
      { caller: asked.caller, source: asked.source, requestId: asked.requestId },
      { ifMatch: asked.ifMatch, wait: asked.wait },
    );
  }

  /** A stream's current state (cached, caught up with the store), for checks before a command. */
  protected load<C, E extends DomainEvent, S>(stream: string, decider: Decider<C, E, S>): Promise<{ state: S; revision: number | null }> {
    return this.runner.load(stream, decider);
  }
}
