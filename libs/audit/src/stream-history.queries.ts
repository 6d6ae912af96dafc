import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#event-store/event-store.port';
import { DomainError } from '#platform/errors';
import type { ListEnvelope } from '#platform/http/list';
import { readStreamHistory, type EventObject } from './stream-history';

/*
 * The admin stream history: the one read that answers from the event store rather than from read
 * models, since it shows the raw events of any stream. Only the service admin asks for it (the
 * route's guard), so it takes no caller. Its own file: stream-history.ts stays free of decorators
 * for the CLI.
 */

/**
 * `GET /v1/admin/streams/{streamName}`: one page of the stream's events, oldest first; 400 for an
 * invalid stream name or cursor, 404 for a stream that does not exist.
 */
export class GetStreamHistory extends Query<ListEnvelope<EventObject>> {
  constructor(
    readonly streamName: string,
    readonly paging: { page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(GetStreamHistory)
export class GetStreamHistoryHandler implements IQueryHandler<GetStreamHistory> {
  constructor(@Inject(EVENT_STORE) private readonly events: EventStore) {}

  async execute({ streamName, paging }: GetStreamHistory): Promise<ListEnvelope<EventObject>> {
    const page = await readStreamHistory(this.events, streamName, paging);
    if (!page) throw DomainError.notFound(`no stream ${streamName}`);
    return page;
  }
}

export const streamHistoryQueryHandlers = [GetStreamHistoryHandler];
