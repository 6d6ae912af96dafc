import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Command, CommandBus, CommandHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '#platform/clock';
import type { Caller } from '#platform/http/auth';
import { log } from '#platform/logging';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { DecidingHandler } from '#runtime/command-handler';
import { readAll } from '#read-store/read-all';
import { SPACE_RETENTION_MS, spaceDecider, spaceStream } from './space.decider';
import { SPACES, type SpaceDoc } from './space.projections';

/** The service acting on its own behalf: stamped as the actor of purges. */
export const RETENTION_ACTOR: Caller = { kind: 'system', id: 'space-retention', label: 'Space retention' };

/** How often the scheduled purge runs. */
export const PURGE_INTERVAL_MS = 60 * 60 * 1000;

/**
 * The retention job's command: the space's stream decides `PurgeSpace` at `now` (the job's time,
 * not the handler's: the decider checks the 7 days again against it, so a space restored meanwhile
 * stays) and appends `SpacePurged`, stamped as the service's own. Answers whether it purged.
 */
export class PurgeSpace extends Command<boolean> {
  constructor(
    readonly spaceId: string,
    readonly now: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(PurgeSpace)
export class PurgeSpaceHandler extends DecidingHandler {
  async execute({ spaceId, now, caller }: PurgeSpace): Promise<boolean> {
    const outcome = await this.decide(
      spaceStream(spaceId),
      spaceDecider,
      { kind: 'PurgeSpace', spaceId, now },
      { caller, source: 'system', requestId: `purge-${now}` },
    );
    return outcome.events.length > 0;
  }
}

/**
 * Permanently removes spaces deleted more than 7 days ago: each such space is purged by its own
 * `PurgeSpace`. Running it twice, or in several processes, purges nothing twice.
 */
@Injectable()
export class SpacePurgeJob {
  constructor(
    private readonly commandBus: CommandBus,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {}

  async runOnce(now: Date): Promise<{ purged: string[] }> {
    const cutoff = new Date(now.getTime() - SPACE_RETENTION_MS).toISOString();
    const due = await readAll<SpaceDoc>(this.reads, SPACES, { deletedAt: { $lt: cutoff }, purgedAt: { $exists: false } });
    const purged: string[] = [];
    for (const space of due) {
      if (await this.commandBus.execute(new PurgeSpace(space._id, now.toISOString(), RETENTION_ACTOR))) purged.push(space._id);
    }
    return { purged };
  }
}

/** Runs SpacePurgeJob on an interval against the injected clock (first run at start). */
@Injectable()
export class SpacePurgeScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly job: SpacePurgeJob,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.tick(), PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  /** One run unless one is still going; failures are logged and retried at the next tick. */
  tick(): Promise<unknown> {
    if (!this.running) {
      this.running = this.job
        .runOnce(this.clock.now())
        .catch((error: unknown) => log.error({ err: error }, 'space purge failed'))
        .finally(() => (this.running = null));
    }
    return this.running;
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
