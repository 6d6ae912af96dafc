import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { EventBus, EventsHandler, type IEventHandler } from '@nestjs/cqrs';
import type { DomainEvent } from '#event-store/decider';
import { COMMAND_RUNNER, type CommandRunner } from './command-runner';
import { METRICS, type Metrics } from './metrics';

/** One event this process committed, as published on the `EventBus`. */
export class EventCommitted {
  constructor(
    readonly stream: string,
    readonly event: DomainEvent,
  ) {}
}

/**
 * Publishes what the command runner commits on the process's `EventBus`, for in-process listeners
 * that may miss an event (a crash between the append and the publication loses it). Read models
 * and reactions never listen here: they follow checkpointed subscriptions of the log.
 */
@Injectable()
export class CommittedEventsPublisher implements OnModuleInit {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly runner: CommandRunner,
    private readonly eventBus: EventBus,
  ) {}

  onModuleInit(): void {
    this.runner.onCommitted((stream, events) => this.eventBus.publishAll(events.map((event) => new EventCommitted(stream, event))));
  }
}

/** `eventstore_events_appended_total`: the events this process appended. */
@EventsHandler(EventCommitted)
export class AppendedEventsCounter implements IEventHandler<EventCommitted> {
  constructor(@Inject(METRICS) private readonly metrics: Metrics) {}

  handle(): void {
    this.metrics.appendedEvents.inc();
  }
}
