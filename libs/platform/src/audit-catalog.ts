import type { RecordedEvent } from '../../event-store/src/event-store.port';

/**
 * How a domain event shows in an organization's audit log (DESIGN section 8). Each bounded
 * context exports a catalog for its own event types; the audit context combines them. Events
 * that concern no organization (a user's own tokens, say) map to null and stay out of it; they
 * remain readable in the admin stream history.
 */
export interface AuditEntry {
  /** Stable dotted name, such as `organization.updated` or `space.deleted`. */
  action: string;
  organizationId: string;
  target: { type: string; id: string; label?: string };
}

export type AuditMapper = (event: RecordedEvent) => AuditEntry | null;

/** Event type → how to describe it. */
export type AuditCatalog = Readonly<Record<string, AuditMapper>>;
