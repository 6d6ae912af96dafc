import type { RecordedEvent } from '#event-store/event-store.port';
import type { AuditCatalog, AuditEntry, AuditMapper } from '#platform/audit-catalog';

// Merging catalogs is the composition root's work; kept importable from here for the audit specs.
import type { Actor } from '#platform/http/auth';
import { log } from '#platform/logging';
import {
  multiDocumentProjection,
  positionKey,
  type DomainEvent,
  type ProjectedDoc,
  type Projection,
} from '#read-store/projections/projection';

/** One document per audited event, keyed by the event's id. */
export const AUDIT_EVENTS = 'audit_events';
/** The last label seen for each target, keyed `<type>:<id>`: entries whose event carries no label borrow it. */
export const AUDIT_TARGET_LABELS = 'audit_target_labels';

export interface AuditEventDoc extends ProjectedDoc {
  organizationId: string;
  /** ISO 8601 UTC (normalized, so that string comparison is time order). */
  occurredAt: string;
  action: string;
  actor: Actor;
  source: string;
  target: { type: string; id: string; label: string };
  details?: Record<string, unknown>;
  /** `positionKey` of the event: the log order, newest last. */
  position: string;
}

/** Its `_position` is that of the event that set the label: an older event never overwrites a newer label. */
export interface TargetLabelDoc extends ProjectedDoc {
  label: string;
}

const UNKNOWN_ACTOR: Actor = { type: 'system', id: 'unknown', label: 'unknown' };
const ACTOR_TYPES: ReadonlySet<string> = new Set(['user', 'integration', 'system']);

/**
 * The organization audit log: every event the catalog describes becomes one `audit_events`
 * document keyed by the event's id. Writes are guarded by the event's log position, and an event
 * whose audit document exists is skipped whole, so applying it twice changes nothing.
 * When the catalog gives the target no label, the last label seen for that target is used (a
 * member removal then still reads with the member's name), or the target id when none was seen.
 */
export function auditProjection(catalog: AuditCatalog): Projection {
  // The catalog maps events of every context by type name: the events stay untyped here.
  return multiDocumentProjection<DomainEvent>({
    name: 'audit',
    collections: [AUDIT_EVENTS, AUDIT_TARGET_LABELS],
    // One document per audited event, read a page at a time: kept on disk by the embedded store.
    large: [AUDIT_EVENTS],
    // Only what the reads walk (every list is in log order): each index is one more entry written
    // per event, and a rebuild writes hundreds of thousands. A time range is filtered on the walk in
    // log order, which an index on `occurredAt` could not give.
    indexes: [
      { collection: AUDIT_EVENTS, fields: { organizationId: 1, position: -1 } },
      { collection: AUDIT_EVENTS, fields: { organizationId: 1, action: 1, position: -1 } },
      { collection: AUDIT_EVENTS, fields: { organizationId: 1, 'actor.id': 1, position: -1 } },
      { collection: AUDIT_EVENTS, fields: { organizationId: 1, 'target.id': 1, position: -1 } },
    ],
    handles: Object.keys(catalog),
    guard: (event) => ({ collection: AUDIT_EVENTS, id: event.id }),
    async apply(event, documents) {
      const entry = describe(catalog, event);
      if (entry === null) return;
      const labels = documents.collection<TargetLabelDoc>(AUDIT_TARGET_LABELS);
      const labelId = `${entry.target.type}:${entry.target.id}`;
      let label: string;
      const known = await labels.get(labelId);
      if (entry.target.label !== undefined) {
        label = entry.target.label;
        // Most events name their target as the last one did: a label is written only when it changes.
        if (known?.label !== label) await labels.put({ _id: labelId, label });
      } else {
        label = known?.label ?? entry.target.id;
      }
      await documents.collection<AuditEventDoc>(AUDIT_EVENTS).put({
        _id: event.id,
        organizationId: entry.organizationId,
        occurredAt: occurredAt(event),
        action: entry.action,
        actor: actorOf(event.metadata.actor),
        source: typeof event.metadata.source === 'string' && event.metadata.source ? event.metadata.source : 'system',
        target: { type: entry.target.type, id: entry.target.id, label },
        ...(entry.details !== undefined ? { details: entry.details } : {}),
        position: positionKey(event.position),
      });
    },
  });
}

/**
 * The catalog's entry for an event, checked. A mapper that throws or answers something malformed
 * would otherwise stop every read model behind this event (the runner retries a failed batch
 * forever), so the event is left out of the audit log and the problem logged; it stays readable
 * in the admin stream history.
 */
function describe(catalog: AuditCatalog, event: RecordedEvent): (AuditEntry & { target: { label?: string } }) | null {
  if (!Object.prototype.hasOwnProperty.call(catalog, event.type)) return null;
  let entry: AuditEntry | null;
  try {
    entry = catalog[event.type](event);
  } catch (error) {
    log.warn(
      { eventId: event.id, eventType: event.type, err: error },
      'audit catalog failed to describe an event; it is left out of the audit log',
    );
    return null;
  }
  if (entry === null || entry === undefined) return null;
  const { action, organizationId, target, details } = entry;
  if (!nonEmpty(action) || !nonEmpty(organizationId) || !target || !nonEmpty(target.type) || !nonEmpty(target.id)) {
    log.warn(
      { eventId: event.id, eventType: event.type },
      'audit catalog described an event without action, organization or target; it is left out of the audit log',
    );
    return null;
  }
  const label = nonEmpty(target.label) ? target.label : undefined;
  return {
    action,
    organizationId,
    target: { type: target.type, id: target.id, ...(label !== undefined ? { label } : {}) },
    ...(details !== undefined && details !== null && typeof details === 'object' ? { details } : {}),
  };
}

function nonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** What `Date.prototype.toISOString` answers for years 0000..9999: such a time is normalized already. */
const NORMALIZED_TIME = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

/** When it happened: the command's time, else the store's; always normalized ISO 8601 UTC. */
function occurredAt(event: RecordedEvent): string {
  for (const candidate of [event.metadata.occurredAt, event.recordedAt]) {
    if (typeof candidate !== 'string') continue;
    // Nearly every event carries the form the service writes, and parsing and printing it again was a
    // third of this projection's own time in a rebuild. Days past the 28th take the long way, which
    // rolls an impossible date (February 30) over to the next month as it always did.
    if (NORMALIZED_TIME.test(candidate) && Number(candidate.slice(8, 10)) <= 28) return candidate;
    const time = Date.parse(candidate);
    if (Number.isFinite(time)) return new Date(time).toISOString();
  }
  return event.recordedAt;
}

function actorOf(value: unknown): Actor {
  if (!value || typeof value !== 'object') return UNKNOWN_ACTOR;
  const { type, id, label } = value as Record<string, unknown>;
  if (!nonEmpty(id)) return UNKNOWN_ACTOR;
  return {
    type: typeof type === 'string' && ACTOR_TYPES.has(type) ? (type as Actor['type']) : 'system',
    id,
    label: nonEmpty(label) ? label : id,
  };
}
