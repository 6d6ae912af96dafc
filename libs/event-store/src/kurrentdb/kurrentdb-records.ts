/** Conversions between the KurrentDB client's shapes and the event store port's: appends, stream states, recorded events, read options. */
import {
  ANY,
  NO_STREAM,
  STREAM_EXISTS,
  type AllStreamResolvedEvent,
  type AppendStreamState,
  type ResolvedEvent,
} from '@kurrent/kurrentdb-client';
import type { AppendResult, EventStore, ExpectedRevision, LogPosition, NewEvent, RecordedEvent } from '../event-store.port';
import { EventStoreInputError, WrongExpectedRevisionError } from '../errors';
import { newEventId } from '../event-ids';
import { hasLogPosition, packPosition, unpackPosition, type KurrentDbPosition } from './kurrentdb-position';

/** What the client answers to an append, as far as this adapter reads it. */
export interface ClientAppendResult {
  success: boolean;
  nextExpectedRevision: bigint;
  position?: KurrentDbPosition;
}

/**
 * The port's result for the client's answer to an append.
 *
 * - `success: false` is only reachable with `throwOnAppendFailure=false` in the connection string; the
 *   client's revision in that case is not reliable, so the stream itself is asked.
 * - A success without a log position is KurrentDB acknowledging an idempotent repeat (the same event
 *   ids at the same expected revision): nothing was written, the events are in the log already. It is
 *   a success; its position is that of the event at the acknowledged revision, read back, or, should
 *   that read find nothing, the head of the log, which is at or after it (callers only wait for it).
 */
export async function toAppendResult(
  result: ClientAppendResult,
  stream: string,
  expected: ExpectedRevision,
  store: Pick<EventStore, 'readStream' | 'streamRevision' | 'headPosition'>,
): Promise<AppendResult> {
  if (!result.success) {
    throw new WrongExpectedRevisionError(stream, expected, (await store.streamRevision(stream)) ?? 'no_stream');
  }
  const nextExpectedRevision = Number(result.nextExpectedRevision);
  if (hasLogPosition(result.position)) return { nextExpectedRevision, position: packPosition(result.position) };
  const [appended] = nextExpectedRevision >= 0 ? await store.readStream(stream, { fromRevision: nextExpectedRevision, maxCount: 1 }) : [];
  const position = appended?.revision === nextExpectedRevision ? appended.position : await store.headPosition();
  if (position === null) throw new Error(`KurrentDB acknowledged the append to '${stream}' but its log is empty`);
  return { nextExpectedRevision, position, alreadyAppended: true };
}

/** Maps the port's expected revision to the client's stream state. */
export function toStreamState(expected: ExpectedRevision): AppendStreamState {
  switch (expected) {
    case 'no_stream':
      return NO_STREAM;
    case 'any':
      return ANY;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      return BigInt(expected);
  }
}

type ClientRecordedEvent = NonNullable<ResolvedEvent['event']> | NonNullable<AllStreamResolvedEvent['event']>;

/** Converts a client record to the port's shape; null when it carries no log position. */
export function decodeRecorded(record: ClientRecordedEvent | undefined): RecordedEvent | null {
  if (!record || !hasLogPosition(record.position as KurrentDbPosition | undefined)) return null;
  return {
    id: record.id,
    streamId: record.streamId,
    revision: Number(record.revision),
    position: packPosition(record.position as KurrentDbPosition),
    type: record.type,
    data: decodeData(record.data),
    metadata: decodeMetadata(record.metadata),
    recordedAt: isoDate(record.created),
  };
}

export function isSystemEvent(event: RecordedEvent): boolean {
  return event.type.startsWith('$') || event.streamId.startsWith('$');
}

/** JSON events arrive parsed; anything else arrives as bytes, which are parsed when they hold JSON. */
function decodeData(data: unknown): unknown {
  if (!(data instanceof Uint8Array)) return data;
  const text = Buffer.from(data).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function decodeMetadata(metadata: unknown): Record<string, unknown> {
  if (metadata instanceof Uint8Array) {
    if (metadata.length === 0) return {};
    try {
      return decodeMetadata(JSON.parse(Buffer.from(metadata).toString('utf8')));
    } catch {
      return {};
    }
  }
  if (metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata)) return metadata as Record<string, unknown>;
  return {};
}

function isoDate(created: unknown): string {
  const date = created instanceof Date ? created : new Date(typeof created === 'number' ? created : Number.NaN);
  return Number.isNaN(date.getTime()) ? new Date(0).toISOString() : date.toISOString();
}

/** Ids were checked to be UUIDs by `assertBatch`; KurrentDB stores them in lower case. */
export function eventId(event: NewEvent): string {
  return event.id?.toLowerCase() ?? newEventId();
}

export function readDirection(direction: unknown): 'forwards' | 'backwards' {
  if (direction === undefined || direction === 'forwards') return 'forwards';
  if (direction === 'backwards') return 'backwards';
  throw new EventStoreInputError(`invalid direction '${String(direction)}': expected forwards or backwards`);
}

export function revision(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new EventStoreInputError(`invalid revision ${String(value)}: expected a non-negative integer`);
  }
  return value;
}

export function logPosition(value: unknown): LogPosition {
  if (typeof value !== 'bigint' || value < 0n) {
    throw new EventStoreInputError(`invalid log position ${String(value)}: expected a non-negative bigint`);
  }
  try {
    unpackPosition(value);
  } catch {
    throw new EventStoreInputError(`invalid log position ${String(value)}: not a KurrentDB position`);
  }
  return value;
}

export function fromStreamState(state: unknown): ExpectedRevision {
  if (state === NO_STREAM || state === ANY || state === STREAM_EXISTS) return state;
  if (typeof state === 'bigint' && state >= 0n) return Number(state);
  if (typeof state === 'number' && Number.isSafeInteger(state) && state >= 0) return state;
  return 'any';
}

/** The client reports the current revision as a bigint, or 'no_stream'; negative values mean no stream too. */
export function toActualRevision(state: unknown): number | 'no_stream' {
  if (typeof state === 'bigint') return state >= 0n ? Number(state) : 'no_stream';
  if (typeof state === 'number' && Number.isSafeInteger(state)) return state >= 0 ? state : 'no_stream';
  return 'no_stream';
}
