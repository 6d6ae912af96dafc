/**
 * Given/then for projections, on a real in-memory read store: the given events are recorded as
 * the log would (positions 1, 2, 3…, revisions counted per stream from 0), routed by `handles`
 * like the projection runner, and applied in one transaction. Every `then` also checks the
 * replay rule the runner relies on: applying the whole history a second time, each event at its
 * same position, must leave every document as it was.
 *
 *   const spec = projectionSpec(teamProjection);
 *   await spec.given(inStream('team-t1', [created, renamed])).then({ [TEAMS]: [expect.objectContaining({ _id: 't1', title: 'Editors' })] });
 *   await spec.given(team1).redelivered(3, 0).thenIdempotent();                 // out-of-order redelivery changes nothing
 *   await spec.given(history).then(([first]) => ({ [AUDIT_EVENTS]: [expect.objectContaining({ _id: first.id })] }));
 *   projectionSpec(p, { seed: { offsets: [{ _id: 'door-b', offset: 10 }] } }); // its own documents from before the history
 */
import type { EventMetadata, RecordedEvent } from '#event-store/event-store.port';
import type { DomainEvent } from '#event-store/decider';
import { MemoryReadStore } from '#read-store/memory/memory-read-store';
import type { Projection, ProjectionResources } from '#read-store/projections/projection';
import type { Doc } from '#read-store/read-store.port';

/** An event of the history; its stream defaults to the spec's `stream` option. */
export interface GivenEvent {
  type: string;
  data: unknown;
  streamId?: string;
  metadata?: EventMetadata;
  recordedAt?: string;
}

export interface RecordOptions {
  /** Stream of events that name none. Default `test-stream`. */
  stream?: string;
  /** `recordedAt` of events that give none. Default 2026-01-01T00:00:00.000Z. */
  recordedAt?: string;
}

export interface ProjectionSpecOptions extends RecordOptions {
  /**
   * Documents of the projection's own collections written before the first event (a history that
   * starts part-way). A projection reads only what it owns, so there is nothing else to seed.
   */
  seed?: Record<string, Doc[]>;
  /**
   * Apply every event, also types absent from `handles` (the runner never would): for checking
   * what `apply` itself does with an event type it was not meant to see.
   */
  ignoreHandles?: boolean;
  /** What the projection may read besides its collections (a blob store holding the content its events name). */
  resources?: ProjectionResources;
}

/**
 * Expected documents by collection, each list in `_id` order; collections not named are not
 * compared. A document's `_position` (the replay stamp, which the built-in replay check already
 * exercises) is compared only where the expected document names it.
 */
export type ExpectedDocuments = Record<string, readonly unknown[]>;

export interface ProjectionGiven {
  /** After the history (and its full replay), these events of it (by index) are delivered once more, in this order: documents must not change. */
  redelivered(...indexes: number[]): ProjectionGiven;
  /** The documents of the named collections after the history; `expected` may be built from the recorded events (ids, positions). */
  then(expected: ExpectedDocuments | ((recorded: RecordedEvent[]) => ExpectedDocuments)): Promise<void>;
  /** Only the replay check: applying the history again (and any redelivery) changes nothing. */
  thenIdempotent(): Promise<void>;
  /** Runs the history and its replay check, then hands over the store for assertions that need queries. */
  thenStore(assert: (reads: MemoryReadStore, recorded: RecordedEvent[]) => Promise<void>): Promise<void>;
}

export interface ProjectionSpec {
  given(events: readonly GivenEvent[]): ProjectionGiven;
}

/** Tags events with their stream, for a history that spans several streams. */
export function inStream(streamId: string, events: readonly DomainEvent[]): GivenEvent[] {
  return events.map((event) => ({ ...event, streamId }));
}

/** Event ids are UUIDs in the log; here one derived from the position, so tests can predict it. */
export function eventIdAt(position: bigint): string {
  return `00000000-0000-4000-8000-${position.toString().padStart(12, '0')}`;
}

/** The events as the log records them: positions from 1 in order, revisions per stream from 0. */
export function recordEvents(events: readonly GivenEvent[], options: RecordOptions = {}): RecordedEvent[] {
  const revisions = new Map<string, number>();
  return events.map((event, index) => {
    const streamId = event.streamId ?? options.stream ?? 'test-stream';
    const revision = revisions.get(streamId) ?? 0;
    revisions.set(streamId, revision + 1);
    const position = BigInt(index + 1);
    return {
      id: eventIdAt(position),
      streamId,
      revision,
      position,
      type: event.type,
      data: event.data,
      metadata: event.metadata ?? {},
      recordedAt: event.recordedAt ?? options.recordedAt ?? '2026-01-01T00:00:00.000Z',
    };
  });
}

export function projectionSpec(projection: Projection, options: ProjectionSpecOptions = {}): ProjectionSpec {
  const routed = (event: RecordedEvent) => options.ignoreHandles || !projection.handles || projection.handles.includes(event.type);

  async function apply(reads: MemoryReadStore, events: readonly RecordedEvent[]): Promise<void> {
    await reads.transaction(async (tx) => {
      for (const event of events) if (routed(event)) await projection.apply(event, tx, options.resources);
    });
  }

  async function snapshot(reads: MemoryReadStore, collections: Iterable<string>): Promise<Record<string, Doc[]>> {
    const documents: Record<string, Doc[]> = {};
    for (const name of [...new Set(collections)].sort()) {
      const items: Doc[] = [];
      let after: string | undefined;
      do {
        const page = await reads.collection(name).find({}, { sort: { _id: 1 }, limit: 1000, ...(after ? { after } : {}) });
        items.push(...page.items);
        after = page.next;
      } while (after);
      documents[name] = items;
    }
    return documents;
  }

  return {
    given(events) {
      const redeliveries: number[] = [];

      /** Applies the history, checks the replay rule, and returns the store and the documents. */
      async function run(extraCollections: readonly string[]) {
        const recorded = recordEvents(events, options);
        const reads = new MemoryReadStore();
        for (const index of projection.indexes ?? []) {
          const { collection, ...spec } = index;
          await reads.ensureIndex(collection, spec);
        }
        for (const [collection, documents] of Object.entries(options.seed ?? {}))
          for (const document of documents) await reads.collection(collection).put(document);
        const collections = [...projection.collections, ...Object.keys(options.seed ?? {}), ...extraCollections];
        await apply(reads, recorded);
        const documents = await snapshot(reads, collections);
        await apply(reads, recorded);
        unchanged(
          await snapshot(reads, collections),
          documents,
          'applying the given events a second time (same positions) changed the documents',
        );
        if (redeliveries.length > 0) {
          await apply(
            reads,
            redeliveries.map((index) => recorded[index] ?? missing(index)),
          );
          unchanged(await snapshot(reads, collections), documents, `redelivering events ${redeliveries.join(', ')} changed the documents`);
        }
        return { reads, recorded, documents };
      }

      const given: ProjectionGiven = {
        redelivered(...indexes) {
          redeliveries.push(...indexes);
          return given;
        },
        async then(expected) {
          const recorded = recordEvents(events, options);
          const wanted = typeof expected === 'function' ? expected(recorded) : expected;
          const { documents } = await run(Object.keys(wanted));
          const actual = Object.fromEntries(
            Object.entries(wanted).map(([name, expectedDocuments]) => [name, withoutUnnamedStamps(documents[name], expectedDocuments)]),
          );
          expect(actual).toEqual(wanted);
        },
        async thenIdempotent() {
          await run([]);
        },
        async thenStore(assert) {
          const { reads, recorded } = await run([]);
          await assert(reads, recorded);
        },
      };
      return given;

      function missing(index: number): never {
        throw new Error(`redelivered(${index}): the history has ${events.length} events`);
      }
    },
  };
}

function withoutUnnamedStamps(actual: Doc[], expected: readonly unknown[]): Doc[] {
  return actual.map((document, index) => {
    const wanted = expected[index];
    const plain = typeof wanted === 'object' && wanted !== null && Object.getPrototypeOf(wanted) === Object.prototype;
    if (!plain || '_position' in wanted || !('_position' in document)) return document;
    const { _position, ...rest } = document;
    return rest as Doc;
  });
}

function unchanged(after: Record<string, Doc[]>, before: Record<string, Doc[]>, why: string): void {
  try {
    expect(after).toEqual(before);
  } catch (error) {
    if (error instanceof Error) error.message = `${why}\n${error.message}`;
    throw error;
  }
}
