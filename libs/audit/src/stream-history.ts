import type { EventMetadata, EventStore, RecordedEvent } from '#event-store/event-store.port';
import { DomainError } from '#platform/errors';
// Type only: the module stays free of decorator side effects, so the CLI loads it without reflect-metadata.
import type { ListEnvelope } from '#platform/http/list';

/** A stored event as the admin stream history shows it. */
export interface EventObject {
  object: 'event';
  id: string;
  streamId: string;
  revision: number;
  /** The global log position, as a decimal string (positions are 64-bit and beyond). */
  position: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  recordedAt: string;
}

export function presentEvent(event: RecordedEvent): EventObject {
  return {
    object: 'event',
    id: event.id,
    streamId: event.streamId,
    revision: event.revision,
    position: event.position.toString(),
    type: event.type,
    data: event.data,
    metadata: event.metadata,
    recordedAt: event.recordedAt,
  };
}

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1000;
const CURSOR = /^[A-Za-z0-9_-]{1,64}$/;
const CURSOR_PAYLOAD = /^rev:(0|[1-9]\d{0,15})$/;

/** The cursor of the page that starts at `revision`: opaque to clients. */
export function encodeRevisionCursor(revision: number): string {
  return Buffer.from(`rev:${revision}`, 'utf8').toString('base64url');
}

/** The revision a cursor starts at; anything not made by `encodeRevisionCursor` is a 400. */
export function decodeRevisionCursor(cursor: string): number {
  const invalid = () => DomainError.invalid('invalid page cursor: use the `next.page` value of a previous page');
  if (typeof cursor !== 'string' || !CURSOR.test(cursor)) throw invalid();
  const match = CURSOR_PAYLOAD.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw invalid();
  const revision = Number(match[1]);
  if (!Number.isSafeInteger(revision)) throw invalid();
  return revision;
}

/**
 * One page of a stream's events, oldest first, in the list envelope; `count` is the stream's
 * event count. Null for a stream that does not exist. An invalid stream name is the store's
 * EventStoreInputError (400); a bad cursor or limit a DomainError (400).
 */
export async function readStreamHistory(
  store: EventStore,
  stream: string,
  request: { page?: string; limit?: number } = {},
): Promise<ListEnvelope<EventObject> | null> {
  const limit = request.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw DomainError.invalid(`limit must be an integer from 1 to ${MAX_LIMIT}`);
  const from = request.page !== undefined ? decodeRevisionCursor(request.page) : 0;
  const current = await store.streamRevision(stream);
  if (current === null) return null;
  const events = from > current ? [] : await store.readStream(stream, { fromRevision: from, maxCount: limit });
  const last = events[events.length - 1];
  const next = last !== undefined && last.revision < current ? encodeRevisionCursor(last.revision + 1) : undefined;
  const items = events.map(presentEvent);
  return next === undefined ? { count: current + 1, items } : { next: { page: next }, count: current + 1, items };
}

/** Every event of a stream, oldest first, page by page (for the CLI). Empty for an unknown stream. */
export async function* streamEvents(store: EventStore, stream: string, pageSize = 500): AsyncGenerator<RecordedEvent> {
  let from = 0;
  for (;;) {
    const page = await store.readStream(stream, { fromRevision: from, maxCount: pageSize });
    yield* page;
    if (page.length < pageSize) return;
    from = page[page.length - 1].revision + 1;
  }
}
