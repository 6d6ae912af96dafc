import type { DomainEvent } from '#event-store/decider';
import type { RecordedEvent } from '#event-store/event-store.port';
import type { Collection, Doc, Filter, FindOptions, IndexSpec, Page, ReadStoreTransaction, Update } from '../read-store.port';

/**
 * A projection turns events into read-model documents. It writes only through the transaction it
 * is given, so its writes commit together with the runner's checkpoint: an event's effect is
 * applied exactly once even if the process dies half-way.
 */
export interface Projection {
  name: string;
  /**
   * Bumped when what the projection writes for the same events changes (default 0): read models
   * kept across starts (embedded mode) are then rebuilt from the log at the next start.
   */
  version?: number;
  /** Collections the projection owns: dropped and rebuilt by a replay. */
  collections: readonly string[];
  /** Indexes ensured before the first event is applied. */
  indexes?: ReadonlyArray<{ collection: string } & IndexSpec>;
  /**
   * Its collections that grow with the log and are read a page at a time through their indexes
   * (`ReadStore.declareLarge`): the embedded store keeps them on disk. Declared before the indexes.
   */
  large?: readonly string[];
  /** Event types it reacts to; others are skipped without a call. Absent means all. */
  handles?: readonly string[];
  apply(event: RecordedEvent, tx: ReadStoreTransaction, resources?: ProjectionResources, mode?: ApplyMode): Promise<void>;
}

/** How the runner is applying the events (`Projection.apply`); live, as for any event, when absent. */
export interface ApplyMode {
  /**
   * The runner dropped the read models itself and applies the log from its start, each event once
   * and in order, alone on them (the CLI's rebuild; a start that replays because the projections
   * changed, until it has caught up): no document can have seen the event being applied, so the
   * position guards (`hasSeen`) need not read what each document has seen: those reads, and the
   * filters the guard makes new for each event (compiled and matched by a scan every time), took
   * about a tenth of a rebuild.
   */
  replayFromEmpty: boolean;
}

/**
 * What a projection may read beyond its own collections: the blob store, for content whose events
 * carry hashes only (a revision's tree). Blobs are immutable and named by their content, so reading
 * them keeps a projection a pure function of the log; a blob that is gone (its space was purged) is
 * `BlobNotFoundError`, and the projection must skip, not fail, since a replay meets such events.
 */
export interface ProjectionResources {
  blobs: { read(hash: string): Promise<Buffer> };
}

/** Resources of a runner that was given none: reading a blob is a wiring mistake, said plainly. */
export const NO_PROJECTION_RESOURCES: ProjectionResources = {
  blobs: {
    read: () => Promise.reject(new Error('this projection runner was started without a blob store')),
  },
};

export type { DomainEvent };

/**
 * A recorded event of the union `E` (a context's events, as its `*.events.ts` declares them): the
 * log's metadata (id, stream, revision, position, …) with `type` and `data` typed, so that a
 * `switch (event.type)` narrows `event.data`.
 */
export type Recorded<E extends DomainEvent> = E extends DomainEvent
  ? Omit<RecordedEvent, 'type' | 'data'> & { type: E['type']; data: E['data'] }
  : never;

/** Whether the event is one of `types`: narrows it to those members of its union. */
export function isOneOf<R extends { type: string }, T extends R['type']>(
  event: R,
  types: ReadonlyArray<T>,
): event is Extract<R, { type: T }> {
  return (types as ReadonlyArray<string>).includes(event.type);
}

/** Fixed-width decimal form of a log position, so positions compare correctly as strings. */
export function positionKey(position: bigint): string {
  return position.toString().padStart(40, '0');
}

/**
 * A document written by a projection. Every write stamps it with the position of the event that
 * made it, and no event at or before that position writes it again.
 */
export interface ProjectedDoc extends Doc {
  /** `positionKey` of the last event that wrote this document. */
  _position?: string;
}

/**
 * The one idempotency rule of every projection: a document is written by an event only while its
 * `_position` is before the event's. Events are applied in log order, so a document stamped at or
 * past an event's position proves that the event was applied already: applying it again, or any
 * older event, writes nothing.
 */
export function hasSeen(document: Doc | null | undefined, position: string): boolean {
  const stamped = document?._position;
  return typeof stamped === 'string' && stamped >= position;
}

/**
 * One of a projection's own collections, as its `apply` sees it: reads as usual; every write
 * skips documents that have seen the event (`hasSeen`) and stamps the ones it writes.
 */
export interface ProjectionCollection<D extends Doc> {
  get(id: string): Promise<D | null>;
  findOne(filter: Filter): Promise<D | null>;
  find(filter?: Filter, options?: FindOptions): Promise<Page<D>>;
  count(filter?: Filter): Promise<number>;
  /** Inserts or replaces the document. */
  put(document: D): Promise<void>;
  /** Applies update operators to the document, when it exists. */
  update(id: string, update: Update): Promise<void>;
  /**
   * Applies update operators to every matching document that has not seen the event. A document
   * written here is not written again by the same event (it is stamped with its position).
   */
  updateMany(filter: Filter, update: Update): Promise<void>;
  delete(id: string): Promise<void>;
  deleteMany(filter: Filter): Promise<void>;
}

/** The read models as a projection's `apply` sees them: only its own collections. */
export interface ProjectionDocuments {
  collection<D extends Doc>(name: string): ProjectionCollection<D>;
}

export interface MultiDocumentProjectionSpec<E extends DomainEvent> {
  name: string;
  /** Collections it owns, the only ones it may read or write: a context keeps its own copy of what it needs from others' events. */
  collections: readonly string[];
  indexes?: ReadonlyArray<{ collection: string } & IndexSpec>;
  /** See `Projection.large`. */
  large?: readonly string[];
  handles: ReadonlyArray<E['type']>;
  /**
   * The document standing for the event's stream (the team of a team event, …), written by every
   * event of that stream: once it has seen the event, the event is skipped as a whole. This is the
   * same rule applied one level up, so that an older event applied again cannot bring back a
   * document (a membership, a share link) that a newer one deleted. Null or absent: each write is
   * guarded on its own.
   */
  guard?(event: Recorded<E>): { collection: string; id: string } | null;
  apply(event: Recorded<E>, documents: ProjectionDocuments, resources: ProjectionResources): Promise<void>;
}

/**
 * The general shape: one event writes any number of documents of the projection's collections,
 * each write guarded by the event's position (`hasSeen`).
 */
export function multiDocumentProjection<E extends DomainEvent>(spec: MultiDocumentProjectionSpec<E>): Projection {
  const handles: ReadonlySet<string> = new Set(spec.handles);
  const owned: ReadonlySet<string> = new Set(spec.collections);
  return {
    name: spec.name,
    collections: spec.collections,
    indexes: spec.indexes,
    large: spec.large,
    handles: spec.handles,
    async apply(recorded, tx, resources = NO_PROJECTION_RESOURCES, mode) {
      if (!handles.has(recorded.type)) return;
      // The one place an event of the log becomes a context's event: `handles` lists its types.
      const event = recorded as unknown as Recorded<E>;
      const application = new Application(tx, positionKey(recorded.position), owned, spec.name, mode?.replayFromEmpty === true);
      const guard = spec.guard?.(event);
      if (guard && (await application.seen(guard.collection, guard.id))) return;
      await spec.apply(event, application, resources);
    },
  };
}

export interface DocumentProjectionSpec<E extends DomainEvent, D extends Doc> {
  name: string;
  collection: string;
  handles: ReadonlyArray<E['type']>;
  indexes?: ReadonlyArray<IndexSpec>;
  /** Which document the event concerns, or null when it concerns none. */
  documentId(event: Recorded<E>): string | null;
  /** The document after the event; null deletes it. Pure. */
  evolve(document: D | null, event: Recorded<E>): D | null;
}

/**
 * The common shape: one event changes at most one document, `evolve(document | null, event)`,
 * under the same rule (`hasSeen`): applying an event twice changes nothing.
 */
export function documentProjection<E extends DomainEvent, D extends Doc>(spec: DocumentProjectionSpec<E, D>): Projection {
  return multiDocumentProjection<E>({
    name: spec.name,
    collections: [spec.collection],
    indexes: spec.indexes?.map((index) => ({ collection: spec.collection, ...index })),
    handles: spec.handles,
    // No event-level guard: the one document is itself guarded by its put or delete.
    async apply(event, documents) {
      const id = spec.documentId(event);
      if (id === null) return;
      const collection = documents.collection<D>(spec.collection);
      const next = spec.evolve(await collection.get(id), event);
      if (next === null) await collection.delete(id);
      else await collection.put({ ...next, _id: id });
    },
  });
}

/** One event's application: the collections it may touch, and what it has written so far. */
class Application implements ProjectionDocuments {
  /** `_position` of documents read or written during this application (null: absent). */
  private readonly known = new Map<string, string | null>();
  /** Documents this application wrote: further writes of the same event go through. */
  private readonly written = new Map<string, Set<string>>();

  constructor(
    private readonly tx: ReadStoreTransaction,
    readonly position: string,
    private readonly owned: ReadonlySet<string>,
    private readonly projection: string,
    /** `ApplyMode.replayFromEmpty`: no document has seen this event. */
    private readonly fromEmpty: boolean,
  ) {}

  collection<D extends Doc>(name: string): ProjectionCollection<D> {
    if (!this.owned.has(name)) throw new Error(`projection '${this.projection}' does not own the collection '${name}'`);
    return new GuardedCollection<D>(this, this.tx.collection<D>(name), name);
  }

  async seen(collection: string, id: string): Promise<boolean> {
    if (this.fromEmpty) return false;
    const document = await this.tx.collection(collection).get(id);
    this.remember(collection, id, document);
    return hasSeen(document, this.position);
  }

  remember(collection: string, id: string, document: Doc | null): void {
    if (!this.written.get(collection)?.has(id))
      this.known.set(`${collection}\u0000${id}`, (document?._position as string | undefined) ?? null);
  }

  /** Whether this event may write the document: it wrote it already, or the document has not seen the event. */
  async mayWrite(collection: Collection, name: string, id: string): Promise<boolean> {
    if (this.fromEmpty || this.written.get(name)?.has(id)) return true;
    const key = `${name}\u0000${id}`;
    let stamped = this.known.get(key);
    if (stamped === undefined) {
      stamped = ((await collection.get(id))?._position as string | undefined) ?? null;
      this.known.set(key, stamped);
    }
    return stamped === null || stamped < this.position; // not hasSeen
  }

  wrote(name: string, id: string): void {
    let ids = this.written.get(name);
    if (!ids) this.written.set(name, (ids = new Set()));
    ids.add(id);
  }

  /** Documents of `filter` that this event may write: not yet stamped at its position, or written by it. */
  unseen(name: string, filter: Filter): Filter {
    if (this.fromEmpty) return filter;
    const mine = [...(this.written.get(name) ?? [])];
    const guard = [
      { _position: { $exists: false } },
      { _position: { $lt: this.position } },
      ...(mine.length > 0 ? [{ _id: { $in: mine } }] : []),
    ];
    return '$or' in filter ? { $and: [filter, { $or: guard }] } : { ...filter, $or: guard };
  }

  stamp(update: Update): Update {
    const set = (update.$set as Record<string, unknown> | undefined) ?? {};
    return { ...update, $set: { ...set, _position: this.position } };
  }
}

class GuardedCollection<D extends Doc> implements ProjectionCollection<D> {
  constructor(
    private readonly application: Application,
    private readonly documents: Collection<D>,
    private readonly name: string,
  ) {}

  async get(id: string): Promise<D | null> {
    const document = await this.documents.get(id);
    this.application.remember(this.name, id, document);
    return document;
  }

  findOne(filter: Filter): Promise<D | null> {
    return this.documents.findOne(filter);
  }

  find(filter?: Filter, options?: FindOptions): Promise<Page<D>> {
    return this.documents.find(filter, options);
  }

  count(filter?: Filter): Promise<number> {
    return this.documents.count(filter);
  }

  async put(document: D): Promise<void> {
    if (!(await this.application.mayWrite(this.documents, this.name, document._id))) return;
    await this.documents.put({ ...document, _position: this.application.position });
    this.application.wrote(this.name, document._id);
  }

  async update(id: string, update: Update): Promise<void> {
    if (!(await this.application.mayWrite(this.documents, this.name, id))) return;
    if (await this.documents.update(id, this.application.stamp(update))) this.application.wrote(this.name, id);
  }

  async updateMany(filter: Filter, update: Update): Promise<void> {
    await this.documents.updateMany(this.application.unseen(this.name, filter), this.application.stamp(update));
  }

  async delete(id: string): Promise<void> {
    if (!(await this.application.mayWrite(this.documents, this.name, id))) return;
    await this.documents.delete(id);
    this.application.wrote(this.name, id);
  }

  async deleteMany(filter: Filter): Promise<void> {
    await this.documents.deleteMany(this.application.unseen(this.name, filter));
  }
}
