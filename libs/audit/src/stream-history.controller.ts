import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse } from '@nestjs/swagger';
import { listOf } from '#platform/platform.schemas';
import { AdminOnly } from '#platform/http/auth';
import { ListQuery, type ListEnvelope } from '#platform/http/list';
import type { EventObject } from './stream-history';
import { GetStreamHistory } from './stream-history.queries';
import { Valid } from '#platform/http/validation';

/** Admin history: the raw events of any stream, straight from the event store. */
@Controller('v1/admin/streams')
@AdminOnly()
export class StreamHistoryController {
  constructor(private readonly queryBus: QueryBus) {}

  /**
   * `GET /v1/admin/streams/{streamName}` → `{ next?, count, items }`, oldest first; 400 for an
   * invalid stream name or cursor, 404 for a stream that does not exist.
   */
  @Get(':streamName')
  @ApiOkResponse({ description: 'OK', schema: listOf('Event') })
  history(@Param('streamName') streamName: string, @Query(Valid) query: ListQuery): Promise<ListEnvelope<EventObject>> {
    return this.queryBus.execute(new GetStreamHistory(streamName, { page: query.page, limit: query.limit }));
  }
}
