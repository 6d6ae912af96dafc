import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse } from '@nestjs/swagger';
import { listOf, ref } from '#platform/platform.schemas';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { CurrentCaller, type Caller } from '#platform/http/auth';
import { PathId } from '#platform/http/id-param';
import { ListQuery, type ListEnvelope } from '#platform/http/list';
import { GetAuditEvent, ListAuditEvents, type AuditEventObject } from './audit.queries';
import { Valid } from '#platform/http/validation';

/** Query of `GET /v1/orgs/{organizationId}/audit-events`: the filters plus `page` and `limit`. */
export class AuditEventsQuery extends ListQuery {
  /** Inclusive; ISO 8601 date-time (or date). Checked by the query, which names the field. */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  from?: string;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  to?: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  action?: string;

  /** Actor id. */
  @IsOptional()
  @IsString()
  @MaxLength(256)
  actor?: string;

  /** Target id. */
  @IsOptional()
  @IsString()
  @MaxLength(256)
  target?: string;
}

@Controller('v1/orgs/:organizationId/audit-events')
export class AuditEventsController {
  constructor(private readonly queryBus: QueryBus) {}

  /** `GET /v1/orgs/{organizationId}/audit-events` → `{ next?, count, items }`, newest first; admins only. */
  @Get()
  @ApiOkResponse({ description: 'OK', schema: listOf('AuditEvent') })
  list(
    @PathId('organizationId', 'organization') organizationId: string,
    @Query(Valid) query: AuditEventsQuery,
    @CurrentCaller() caller: Caller,
  ): Promise<ListEnvelope<AuditEventObject>> {
    const { page, limit, from, to, action, actor, target } = query;
    return this.queryBus.execute(new ListAuditEvents(organizationId, caller, { from, to, action, actor, target }, { page, limit }));
  }

  /** `GET /v1/orgs/{organizationId}/audit-events/{auditEventId}` → one entry, or 404. */
  @Get(':auditEventId')
  @ApiOkResponse({ description: 'OK', schema: ref('AuditEvent') })
  get(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('auditEventId', 'audit event') auditEventId: string,
    @CurrentCaller() caller: Caller,
  ): Promise<AuditEventObject> {
    return this.queryBus.execute(new GetAuditEvent(organizationId, auditEventId, caller));
  }
}
