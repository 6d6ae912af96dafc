import type { RecordedEvent } from '../../../event-store/src/event-store.port';
import type { Doc, IndexSpec, ReadStoreTransaction } from '../read-store.port';

/**
 * A projection turns events into read-model documents. It writes only through the transaction it
 * is given, so its writes commit together with the runner's checkpoint: an event's effect is
 * applied exactly once even if the process dies half-way.
 */
export interface Projection {
  name: string;
  /** Collections the projection owns: dropped and rebuilt by a replay. */
  collections: readonly string[];
  /** Indexes ensured before the first event is applied. */
  indexes?: ReadonlyArray<{ collection: string } & IndexSpec>;
  /** Event types it reacts to; others are skipped without a call. Absent means all. */
  handles?: readonly string[];
  apply(event: RecordedEvent, tx: ReadStoreTransaction): Promise<void>;
}

/** Fixed-width decimal form of a log position, so positions compare correctly as strings. */
export function positionKey(position: bigint): string {
  return position.toString().padStart(40, '0');
}

export interface ProjectedDoc extends Doc {
  /** `positionKey` of the last event applied to this document: replaying it again is a no-op. */
  _position?: string;
}

export interface DocumentProjectionSpec<T extends ProjectedDoc> {
  name: string;
  collection: string;
  handles: readonly string[];
  indexes?: ReadonlyArray<IndexSpec>;
  /** Which document the event concerns, or null when it concerns none. */
  documentId(event: RecordedEvent): string | null;
  /** The document after the event; null deletes it. Pure. */
  evolve(document: T | null, event: RecordedEvent): T | null;
}

/**
 * The common shape: one event changes at most one document, `evolve(document | null, event)`.
 * Every write is also guarded by the event's position, so applying an event twice changes nothing.
 */
export function documentProjection<T extends ProjectedDoc>(spec: DocumentProjectionSpec<T>): Projection {
  return {
    name: spec.name,
    collections: [spec.collection],
    indexes: spec.indexes?.map((index) => ({ collection: spec.collection, ...index })),
    handles: spec.handles,
    async apply(event, tx) {
      const id = spec.documentId(event);
      if (id === null) return;
      const documents = tx.collection<T>(spec.collection);
      const current = await documents.get(id);
      const position = positionKey(event.position);
      if (current?._position !== undefined && current._position >= position) return;
      const next = spec.evolve(current, event);
      if (next === null) {
        if (current) await documents.delete(id);
        return;
      }
      await documents.put({ ...next, _id: id, _position: position });
    },
  };
}
