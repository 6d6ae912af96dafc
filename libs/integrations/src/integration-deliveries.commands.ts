import { Command, CommandHandler } from '@nestjs/cqrs';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { DecidingHandler } from '#runtime/command-handler';
import { deliveryDecider, deliveryStream } from './integration.decider';
import type { TraceLog } from './integration.events';

// The delivery worker's writes, in each installation's delivery stream: which worker holds its
// deliveries, and what became of each integration event.

/** What became of one integration event (the delivery worker): recorded once per event, by the worker holding the installation. */
export class RecordProcessed extends Command<void> {
  constructor(
    readonly event: { eventId: string; installationId: string; integrationName: string; organizationId: string },
    readonly worker: string,
    readonly status: 'success' | 'failed',
    readonly logs: TraceLog[],
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(RecordProcessed)
export class RecordProcessedHandler extends DecidingHandler {
  async execute({ event, worker, status, logs, caller }: RecordProcessed): Promise<void> {
    await this.decide(
      deliveryStream(event.installationId),
      deliveryDecider,
      { kind: 'RecordProcessed', ...event, worker, status, logs, now: this.now() },
      { caller, wait: false },
    );
  }
}

/** Takes (or renews) an installation's deliveries for this worker until `until`; answers false when another worker holds them. */
export class ClaimDeliveries extends Command<boolean> {
  constructor(
    readonly installation: { installationId: string; integrationName: string; organizationId: string },
    readonly worker: string,
    readonly until: Date,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(ClaimDeliveries)
export class ClaimDeliveriesHandler extends DecidingHandler {
  async execute({ installation, worker, until, caller }: ClaimDeliveries): Promise<boolean> {
    try {
      await this.decide(
        deliveryStream(installation.installationId),
        deliveryDecider,
        { kind: 'ClaimDeliveries', ...installation, worker, until: until.toISOString(), now: this.now() },
        { caller, wait: false },
      );
      return true;
    } catch (error) {
      if (error instanceof DomainError && error.status === 409) return false;
      throw error;
    }
  }
}

export const deliveryCommandHandlers = [RecordProcessedHandler, ClaimDeliveriesHandler];
