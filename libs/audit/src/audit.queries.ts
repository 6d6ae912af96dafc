import { Inject, Injectable } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { DomainError } from '#platform/errors';
import type { Actor, Caller } from '#platform/http/auth';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import { READ_STORE, type Filter, type ReadStore } from '#read-store/read-store.port';
import { AUDIT_EVENTS, type AuditEventDoc } from './audit.projection';
import { ORGANIZATION_ACCESS, type OrganizationAccess } from './audit.needs';

/** An entry of an organization's audit log. */
export interface AuditEventObject {
  object: 'audit-event';
  id: string;
  occurredAt: string;
  action: string;
  actor: Actor;
  source: string;
  target: { type: string; id: string; label: string };
  /** What the change touched, for events that say more than their target (a content write's pages). */
  details?: Record<string, unknown>;
  urls: { location: string };
}

/** Filters of `GET /v1/orgs/{organizationId}/audit-events`, as received (strings). */
export interface AuditEventFilters {
  /** Inclusive lower bound: an ISO 8601 date-time with a zone, or a date (its first instant, UTC). */
  from?: string;
  /** Inclusive upper bound: an ISO 8601 date-time with a zone, or a date (its last instant, UTC). */
  to?: string;
  /** Exact action name, such as `space.deleted`. */
  action?: string;
  /** Actor id. */
  actor?: string;
  /** Target id. */
  target?: string;
}

export interface PageRequest {
  /** Cursor from a previous page's `next.page`. */
  page?: string;
  /** 1..1000, default 50. */
  limit?: number;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

/**
 * An instant bound of the time filter, as a normalized ISO string (the form stored in
 * `occurredAt`, so string comparison is time order). A date alone means its first (`from`) or last
 * (`to`) millisecond in UTC. Anything else, or an impossible date such as February 30, is a 400.
 */
export function parseTimeBound(value: string, name: 'from' | 'to'): string {
  const invalid = () =>
    DomainError.invalid(
      `${name} must be an ISO 8601 date-time such as 2024-05-01T12:00:00Z (or a date such as 2024-05-01), got '${value.slice(0, 64)}'`,
    );
  const date = DATE.exec(value);
  const dateTime = date ? null : DATE_TIME.exec(value);
  const parts = date ?? dateTime;
  if (!parts) throw invalid();
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) throw invalid();
  if (dateTime) {
    const [hours, minutes, seconds] = [Number(dateTime[4]), Number(dateTime[5]), Number(dateTime[6] ?? 0)];
    const [zoneHours, zoneMinutes] = [Number(dateTime[7] ?? 0), Number(dateTime[8] ?? 0)];
    if (hours > 23 || minutes > 59 || seconds > 59 || zoneHours > 23 || zoneMinutes > 59) throw invalid();
  }
  const time = date ? Date.UTC(year, month - 1, day) + (name === 'to' ? 86_400_000 - 1 : 0) : Date.parse(value);
  if (!Number.isFinite(time)) throw invalid();
  const iso = new Date(time).toISOString();
  // Years outside 0000..9999 print as ±YYYYYY and would not compare as strings.
  if (!/^\d{4}-/.test(iso)) throw invalid();
  return iso;
}

/** An audit document as the wire shows it. */
export function presentAuditEvent(doc: AuditEventDoc, publicUrl: string): AuditEventObject {
  return {
    object: 'audit-event',
    id: doc._id,
    occurredAt: doc.occurredAt,
    action: doc.action,
    actor: { type: doc.actor.type, id: doc.actor.id, label: doc.actor.label },
    source: doc.source,
    target: { type: doc.target.type, id: doc.target.id, label: doc.target.label },
    ...(doc.details !== undefined ? { details: doc.details } : {}),
    urls: { location: `${publicUrl}/v1/orgs/${encodeURIComponent(doc.organizationId)}/audit-events/${encodeURIComponent(doc._id)}` },
  };
}

/** Only organization admins read the audit log. */
export const AUDIT_READER_ROLE = 'admin';

/**
 * Who may read an organization's audit log: its admins. Other members get 403; callers outside
 * it and unknown organizations get the same 404, so the log does not reveal that it exists.
 */
@Injectable()
export class AuditAccessPolicy {
  constructor(@Inject(ORGANIZATION_ACCESS) private readonly organizations: OrganizationAccess) {}

  async requireReader(organizationId: string, caller: Caller): Promise<void> {
    const standing = caller.kind === 'user' ? await this.organizations.roleOf(organizationId, caller.userId) : null;
    if (!standing?.member) throw DomainError.notFound(`no organization ${organizationId}`);
    if (standing.role !== AUDIT_READER_ROLE)
      throw DomainError.forbidden(`only admins of organization ${organizationId} may read its audit log`);
  }
}

/*
 * The audit log's reads: each checks who may read first (AuditAccessPolicy), then answers from the
 * audit documents.
 */

/**
 * `GET /v1/orgs/{organizationId}/audit-events`: newest first; admins only. A malformed time bound
 * is a DomainError (400); a bad cursor or limit a ReadStoreInputError (400).
 */
export class ListAuditEvents extends Query<ListEnvelope<AuditEventObject>> {
  constructor(
    readonly organizationId: string,
    readonly caller: Caller,
    readonly filters: AuditEventFilters = {},
    readonly paging: PageRequest = {},
  ) {
    super();
  }
}

@QueryHandler(ListAuditEvents)
export class ListAuditEventsHandler implements IQueryHandler<ListAuditEvents> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: AuditAccessPolicy,
  ) {}

  async execute({ organizationId, caller, filters, paging }: ListAuditEvents): Promise<ListEnvelope<AuditEventObject>> {
    await this.access.requireReader(organizationId, caller);
    const filter: Filter = { organizationId: { $eq: organizationId } };
    const from = filters.from !== undefined ? parseTimeBound(filters.from, 'from') : undefined;
    const to = filters.to !== undefined ? parseTimeBound(filters.to, 'to') : undefined;
    if (from !== undefined && to !== undefined && from > to) throw DomainError.invalid('from must not be after to');
    if (from !== undefined || to !== undefined) {
      filter.occurredAt = { ...(from !== undefined ? { $gte: from } : {}), ...(to !== undefined ? { $lte: to } : {}) };
    }
    if (filters.action !== undefined) filter.action = { $eq: filters.action };
    if (filters.actor !== undefined) filter['actor.id'] = { $eq: filters.actor };
    if (filters.target !== undefined) filter['target.id'] = { $eq: filters.target };
    const result = await this.reads
      .collection<AuditEventDoc>(AUDIT_EVENTS)
      .find(filter, { sort: { position: -1 }, limit: paging.limit, after: paging.page });
    return listEnvelope({
      items: result.items.map((doc) => presentAuditEvent(doc, this.config.publicUrl)),
      count: result.count,
      next: result.next,
    });
  }
}

/** `GET /v1/orgs/{organizationId}/audit-events/{auditEventId}`: one entry, or 404 (unknown id, or an entry of another organization). */
export class GetAuditEvent extends Query<AuditEventObject> {
  constructor(
    readonly organizationId: string,
    readonly auditEventId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetAuditEvent)
export class GetAuditEventHandler implements IQueryHandler<GetAuditEvent> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: AuditAccessPolicy,
  ) {}

  async execute({ organizationId, auditEventId, caller }: GetAuditEvent): Promise<AuditEventObject> {
    await this.access.requireReader(organizationId, caller);
    const doc = await this.reads.collection<AuditEventDoc>(AUDIT_EVENTS).get(auditEventId);
    if (!doc || doc.organizationId !== organizationId)
      throw DomainError.notFound(`no audit event ${auditEventId} in organization ${organizationId}`);
    return presentAuditEvent(doc, this.config.publicUrl);
  }
}

export const auditQueryHandlers = [ListAuditEventsHandler, GetAuditEventHandler];
