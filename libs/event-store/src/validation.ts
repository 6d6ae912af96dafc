import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type ExpectedRevision, type NewEvent } from './event-store.port';
import { EventStoreInputError } from './errors';

/** KurrentDB refuses appends over 1 MiB by default; both adapters hold every event under it. */
export const MAX_EVENT_BYTES = 1024 * 1024 - 64 * 1024;
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

/** Checks a batch (non-empty, typed, JSON, under the size limit) and serializes it once. */
export function serializeBatch(events: readonly NewEvent[], newId: () => string): SerializedEvent[] {
  if (!Array.isArray(events) || events.length === 0) throw new EventStoreInputError('an append needs at least one event');
  return events.map((event) => {
    if (!event || typeof event.type !== 'string' || event.type.length === 0 || event.type.length > 200) {
      throw new EventStoreInputError('every event needs a type of 1..200 characters');
    }
    if (event.id !== undefined && (typeof event.id !== 'string' || !UUID.test(event.id))) {
      throw new EventStoreInputError(`event '${event.type}' has an invalid id: event ids must be UUIDs`);
    }
    const data = JSON.stringify(event.data ?? null);
    const metadata = JSON.stringify(event.metadata ?? {});
    if (data === undefined || metadata === undefined) throw new EventStoreInputError(`event '${event.type}' is not JSON`);
    const size = Buffer.byteLength(data) + Buffer.byteLength(metadata);
    if (size > MAX_EVENT_BYTES) {
      throw new EventStoreInputError(`event '${event.type}' is ${size} bytes; events must stay under ${MAX_EVENT_BYTES} bytes`);
    }
    return { id: event.id?.toLowerCase() ?? newId(), type: event.type, data, metadata };
  });
}

/** Validation only, for adapters whose client serializes on its own. */
export function assertBatch(events: readonly NewEvent[]): void {
  serializeBatch(events, () => 'unused');
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
