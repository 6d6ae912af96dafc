import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import { listOf } from '../../platform/src/platform.schemas';
import { EVENT_STORE, type EventStore } from '../../event-store/src/event-store.port';
import { DomainError } from '../../platform/src/errors';
import { AdminOnly } from '../../platform/src/http/auth';
import { ListQuery, type ListEnvelope } from '../../platform/src/http/list';
import { readStreamHistory, type EventObject } from './stream-history';
import { Valid } from '../../platform/src/http/validation';

/** Admin history: the raw events of any stream, straight from the event store. */
@Controller('v1/admin/streams')
@AdminOnly()
export class StreamHistoryController {
  constructor(@Inject(EVENT_STORE) private readonly events: EventStore) {}

  /**
   * `GET /v1/admin/streams/{streamName}` → `{ next?, count, items }`, oldest first; 400 for an
   * invalid stream name or cursor, 404 for a stream that does not exist.
   */
  @Get(':streamName')
  @ApiOkResponse({ description: 'OK', schema: listOf('Event') })
  async history(@Param('streamName') streamName: string, @Query(Valid) query: ListQuery): Promise<ListEnvelope<EventObject>> {
    const page = await readStreamHistory(this.events, streamName, { page: query.page, limit: query.limit });
    if (!page) throw DomainError.notFound(`no stream ${streamName}`);
    return page;
  }
}
