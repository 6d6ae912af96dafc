import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type ExpectedRevision, type NewEvent } from './event-store.port';
import { EventStoreInputError } from './errors';

/**
 * Largest append, in bytes of JSON text (data + metadata of every event in the batch, UTF-8).
 * KurrentDB refuses a whole append request over its maximum append size (1 MiB by default), not
 * each event; both adapters refuse the same batches so that what works embedded works distributed.
 * The 64 KiB margin covers what KurrentDB adds per event (ids, types, content types, framing).
 * Configurable with `EVENT_BATCH_LIMIT_BYTES` (docs/architecture.md, Event store limits).
 */
export const DEFAULT_BATCH_LIMIT_BYTES = 1024 * 1024 - 64 * 1024;
/** Event ids are UUIDs: KurrentDB requires it, so the embedded store does too. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const STREAM_NAME = /^[A-Za-z0-9_.:@]+-[A-Za-z0-9_.:@-]+$/;

/** Stream names are `<category>-<id>`; the category has no '-' (docs/architecture.md, Messages and streams). */
export function assertStreamName(stream: string): void {
  if (typeof stream !== 'string' || stream.length > 512 || !STREAM_NAME.test(stream) || stream.startsWith('$')) {
    throw new EventStoreInputError(`invalid stream name '${String(stream).slice(0, 100)}': expected <category>-<id>`);
  }
}

export function assertExpectedRevision(expected: ExpectedRevision): void {
  if (expected === 'no_stream' || expected === 'any' || expected === 'stream_exists') return;
  if (!Number.isSafeInteger(expected) || expected < 0) {
    throw new EventStoreInputError(`invalid expected revision ${String(expected)}`);
  }
}

/** An event reduced to what both stores keep: JSON text, exactly as KurrentDB stores it. */
export interface SerializedEvent {
  id: string;
  type: string;
  data: string;
  metadata: string;
}

/** Checks a batch limit given to an adapter: a positive integer number of bytes. */
export function batchLimit(limitBytes: number | undefined): number {
  if (limitBytes === undefined) return DEFAULT_BATCH_LIMIT_BYTES;
  if (!Number.isSafeInteger(limitBytes) || limitBytes < 1) {
    throw new EventStoreInputError(`invalid batch limit ${String(limitBytes)}: expected a positive number of bytes`);
  }
  return limitBytes;
}

/**
 * Checks a batch (non-empty, typed, JSON, its encoded size within `limitBytes`) and serializes it once.
 * The size counted is the JSON text of data and metadata in UTF-8, which is what both adapters store.
 */
export function serializeBatch(
  events: readonly NewEvent[],
  newId: () => string,
  limitBytes: number = DEFAULT_BATCH_LIMIT_BYTES,
): SerializedEvent[] {
  if (!Array.isArray(events) || events.length === 0) throw new EventStoreInputError('an append needs at least one event');
  let total = 0;
  const serialized = events.map((event) => {
    if (!event || typeof event.type !== 'string' || event.type.length === 0 || event.type.length > 200) {
      throw new EventStoreInputError('every event needs a type of 1..200 characters');
    }
    if (event.id !== undefined && (typeof event.id !== 'string' || !UUID.test(event.id))) {
      throw new EventStoreInputError(`event '${event.type}' has an invalid id: event ids must be UUIDs`);
    }
    const data = JSON.stringify(event.data ?? null);
    const metadata = JSON.stringify(event.metadata ?? {});
    if (data === undefined || metadata === undefined) throw new EventStoreInputError(`event '${event.type}' is not JSON`);
    total += Buffer.byteLength(data) + Buffer.byteLength(metadata);
    return { id: event.id?.toLowerCase() ?? newId(), type: event.type, data, metadata };
  });
  if (total > limitBytes) {
    const what = events.length === 1 ? `event '${events[0].type}' is` : `the batch of ${events.length} events is`;
    throw new EventStoreInputError(
      `${what} ${total} bytes of JSON, over the event store's batch limit of ${limitBytes} bytes (EVENT_BATCH_LIMIT_BYTES)`,
    );
  }
  return serialized;
}

/** Validation only, for adapters whose client serializes on its own. */
export function assertBatch(events: readonly NewEvent[], limitBytes: number = DEFAULT_BATCH_LIMIT_BYTES): void {
  serializeBatch(events, () => 'unused', limitBytes);
}

export function pageSize(maxCount: number | undefined): number {
  if (maxCount === undefined) return DEFAULT_PAGE_SIZE;
  if (!Number.isSafeInteger(maxCount) || maxCount < 1 || maxCount > MAX_PAGE_SIZE) {
    throw new EventStoreInputError(`maxCount must be an integer in 1..${MAX_PAGE_SIZE}`);
  }
  return maxCount;
}

/** The expected-revision rule both adapters apply; `current` is null for a missing stream. */
export function expectationHolds(expected: ExpectedRevision, current: number | null): boolean {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return current === null;
    case 'stream_exists':
      return current !== null;
    default:
      return current === expected;
  }
}
