import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import { READ_STORE, type Filter, type ReadStore } from '#read-store/read-store.port';
import { IntegrationAccess } from './integration.access';
import { IntegrationEventPresenter } from './integration.event-presenter';
import { INTEGRATION_EVENTS, type IntegrationEventDoc } from './integration.projections';

// The integration event reads: an integration's events are the owner's admins' (every installation's)
// and each installing organization's admins' (their own): IntegrationAccess.

/**
 * How long a read of an integration's events waits for the deliveries in progress when it comes
 * (those of a moment ago, usually a few milliseconds away): an event is shown once delivered, with
 * the outcome (`success` or `failed`, the platform's only statuses), never before.
 */
export const EVENTS_SETTLE_MS = 2_000;
const SETTLE_POLL_MS = 20;

/**
 * `GET /integrations/{name}/events`: the owner's admins, newest first; the events delivered (or
 * whose delivery failed), after waiting a moment (EVENTS_SETTLE_MS) for those being delivered.
 */
export class ListIntegrationEvents extends Query<ListEnvelope<PresentedEvent>> {
  constructor(
    readonly name: string,
    readonly caller: Caller,
    readonly paging: { page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListIntegrationEvents)
export class ListIntegrationEventsHandler implements IQueryHandler<ListIntegrationEvents> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: IntegrationAccess,
    private readonly presenter: IntegrationEventPresenter,
  ) {}

  async execute({ name, caller, paging }: ListIntegrationEvents): Promise<ListEnvelope<PresentedEvent>> {
    await this.access.requireOwnerAdmin(name, caller);
    await deliveriesSettled(this.reads, { integrationName: name, status: 'pending' });
    const page = await this.reads
      .collection<IntegrationEventDoc>(INTEGRATION_EVENTS)
      .find(
        { integrationName: name, status: { $in: ['success', 'failed'] } },
        { sort: { sequence: -1 }, limit: paging.limit, after: paging.page },
      );
    return listEnvelope({ items: await presentEvents(page.items, this.presenter), count: page.count, next: page.next });
  }
}

/** `GET /integrations/{name}/events/{eventId}`: one event with its trace, once delivered; one still being delivered after EVENTS_SETTLE_MS is 404, as it is not listed yet. */
export class GetIntegrationEvent extends Query<{ event: PresentedEvent; trace: { logs: IntegrationEventDoc['logs'] } }> {
  constructor(
    readonly name: string,
    readonly eventId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetIntegrationEvent)
export class GetIntegrationEventHandler implements IQueryHandler<GetIntegrationEvent> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: IntegrationAccess,
    private readonly presenter: IntegrationEventPresenter,
  ) {}

  async execute({
    name,
    eventId,
    caller,
  }: GetIntegrationEvent): Promise<{ event: PresentedEvent; trace: { logs: IntegrationEventDoc['logs'] } }> {
    await this.access.requireOwnerAdmin(name, caller);
    const events = this.reads.collection<IntegrationEventDoc>(INTEGRATION_EVENTS);
    let event = await events.get(eventId);
    if (!event || event.integrationName !== name) throw DomainError.notFound(`no event ${eventId} of integration ${name}`);
    if (event.status === 'pending') {
      await deliveriesSettled(this.reads, { _id: eventId, status: 'pending' });
      event = (await events.get(eventId))!;
      if (event.status === 'pending')
        throw DomainError.notFound(`event ${eventId} of integration ${name} is still being delivered: it is shown once delivered`);
    }
    const [presented] = await presentEvents([event], this.presenter);
    return { event: presented, trace: { logs: event.logs } };
  }
}

export const integrationEventQueryHandlers = [ListIntegrationEventsHandler, GetIntegrationEventHandler];

/** Waits at most EVENTS_SETTLE_MS for the events matching `waiting` now (at most 100 of them) to be delivered. */
async function deliveriesSettled(reads: ReadStore, waiting: Filter): Promise<void> {
  const events = reads.collection<IntegrationEventDoc>(INTEGRATION_EVENTS);
  const pending = await events.find(waiting, { limit: 100, count: false });
  if (pending.items.length === 0) return;
  const ids = pending.items.map((event) => event._id);
  const giveUpAt = Date.now() + EVENTS_SETTLE_MS;
  while (Date.now() < giveUpAt) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
    if ((await events.find({ _id: { $in: ids }, status: 'pending' }, { limit: 1, count: false })).items.length === 0) return;
  }
}

/** Delivered events, their payloads as integrations receive them. */
async function presentEvents(events: readonly IntegrationEventDoc[], presenter: IntegrationEventPresenter): Promise<PresentedEvent[]> {
  const payloads = await presenter.events(events.map((event) => event.payload));
  return events.map((event, index) => ({
    object: 'integration-event' as const,
    id: event._id,
    integrationId: event.integrationName,
    installationId: event.installationId,
    createdAt: event.createdAt,
    payload: payloads[index],
    status: event.status as 'success' | 'failed',
  }));
}

/** An integration event as `…/events` answers it (delivered: `success` or `failed`). */
export interface PresentedEvent {
  object: 'integration-event';
  id: string;
  integrationId: string;
  installationId: string;
  createdAt: string;
  payload: Record<string, unknown>;
  status: 'success' | 'failed';
}
