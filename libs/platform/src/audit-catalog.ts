import type { RecordedEvent } from '#event-store/event-store.port';

/**
 * How a domain event shows in an organization's audit log (docs/architecture.md, Extensions). Each bounded
 * context exports a catalog for its own event types; the audit context combines them. Events
 * that concern no organization (a user's own tokens, say) map to null and stay out of it; they
 * remain readable in the admin stream history.
 */
export interface AuditEntry {
  /** Stable dotted name, such as `organization.updated` or `space.deleted`. */
  action: string;
  organizationId: string;
  target: { type: string; id: string; label?: string };
  /** What the change touched, when the target alone does not say it (the pages a content write changed). Small: ids and counts. */
  details?: Record<string, unknown>;
}

export type AuditMapper = (event: RecordedEvent) => AuditEntry | null;

/** Event type → how to describe it. */
export type AuditCatalog = Readonly<Record<string, AuditMapper>>;

/**
 * One context's mappers, keyed by its own event union: each mapper receives its event's data with
 * that event's type, so contexts write no casts, and a misspelt event type does not compile.
 */
export type AuditMappers<E extends { type: string; data: unknown }> = {
  readonly [T in E['type']]?: (data: Extract<E, { type: T }>['data']) => AuditEntry | null;
};

/** A context's catalog from its typed mappers. */
export function auditCatalog<E extends { type: string; data: unknown }>(mappers: AuditMappers<E>): AuditCatalog {
  const catalog: Record<string, AuditMapper> = {};
  for (const [type, mapper] of Object.entries(mappers) as Array<[string, (data: unknown) => AuditEntry | null]>) {
    // The catalog is looked up by the event's own type, so its data has that type's shape.
    catalog[type] = (event) => mapper(event.data);
  }
  return catalog;
}

/**
 * Merges the catalogs of the bounded contexts into one. An event type described twice is a wiring
 * mistake (two contexts claiming one event), so it throws at start rather than picking one.
 */
export function combineAuditCatalogs(...catalogs: AuditCatalog[]): AuditCatalog {
  // Without a prototype, no event type (such as `constructor`) finds a mapper it was not given.
  const combined: Record<string, AuditMapper> = Object.create(null);
  for (const catalog of catalogs) {
    for (const [type, mapper] of Object.entries(catalog)) {
      if (Object.prototype.hasOwnProperty.call(combined, type)) throw new Error(`two audit catalogs describe the event type '${type}'`);
      combined[type] = mapper;
    }
  }
  return Object.freeze(combined);
}
