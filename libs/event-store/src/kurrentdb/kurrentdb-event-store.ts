import {
  ANY,
  BACKWARDS,
  END,
  FORWARDS,
  KurrentDBClient,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendStreamState,
  type JSONType,
  type ReadPosition,
  type ResolvedEvent,
} from '@kurrent/kurrentdb-client';
import type {
  AppendResult,
  EventStore,
  EventStoreHealth,
  ExpectedRevision,
  LogPosition,
  LogSubscription,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  SubscribeOptions,
  SubscriptionMessage,
} from '../event-store.port';
import { EventStoreInputError, EventStoreUnavailableError, WrongExpectedRevisionError } from '../errors';
import { assertBatch, assertExpectedRevision, assertStreamName, batchLimit, pageSize } from '../validation';
import { hasLogPosition, packPosition, unpackPosition, type KurrentDbPosition } from './kurrentdb-position';
import { SharedClients, type ClientLease } from './shared-clients';
import { newEventId } from '../event-ids';

/** gRPC status codes the adapter reads on errors (`@grpc/grpc-js` `status`). */
export const GRPC_STATUS = {
  CANCELLED: 1,
  UNKNOWN: 2,
  DEADLINE_EXCEEDED: 4,
  RESOURCE_EXHAUSTED: 8,
  UNAVAILABLE: 14,
} as const;

/** Client error `type`s (the client's `ErrorType` values) that mean "the store could not be reached in time". */
const UNAVAILABLE_TYPES = new Set(['unavailable', 'deadline-exceeded', 'timeout', 'not-leader', 'cancelled']);
/** Statuses that say nothing about the request itself, only that the server did not answer it (in time): retry later. */
const UNAVAILABLE_CODES = new Set<number>([
  GRPC_STATUS.CANCELLED,
  GRPC_STATUS.DEADLINE_EXCEEDED,
  GRPC_STATUS.RESOURCE_EXHAUSTED,
  GRPC_STATUS.UNAVAILABLE,
]);
/** A starting or overloaded node answers appends with these messages, which the client reports as `UnknownError`. */
const NOT_READY = /server is (not ready|busy)/i;
/**
 * What an `UnknownError` (or gRPC UNKNOWN) says when its cause is the transport, not the request:
 * grpc-js reports broken connections of streaming calls as UNKNOWN, and the client's native read
 * bridge reports the gRPC statuses it does not map itself (deadline, resource exhausted, cancelled…)
 * and connection failures as `UnknownError` with the status in the message and no code.
 */
const TRANSPORT_FAILURE =
  /client error \(connect\)|connection (refused|reset|closed|error)|transport error|grpc connection error|socket hang up|broken pipe|write after end|goaway|rst_stream|stream removed|econn(reset|refused|aborted)|epipe|etimedout|ehostunreach|enotfound|eai_again/i;
const UNAVAILABLE_STATUS =
  /\b(deadline_?exceeded|unavailable|resource_?exhausted|cancelled)\b|deadline (exceeded|expired)|service is currently unavailable|resource has been exhausted|operation was cancelled/i;

export interface KurrentDbEventStoreOptions {
  /** How long `health()` waits for its probe read, in milliseconds. */
  healthTimeoutMs?: number;
  /** Largest append in bytes of JSON (validation.ts, DEFAULT_BATCH_LIMIT_BYTES). */
  batchLimitBytes?: number;
}

/** How long closing the last store waits for the client's channel before leaving it to the process exit. */
const CHANNEL_CLOSE_TIMEOUT_MS = 2_000;

/** The process's KurrentDB clients, one per connection string (see `shared-clients.ts` for why). */
export const sharedKurrentDbClients = new SharedClients<KurrentDBClient>(parseConnectionString, disposeClient);

/** Cancels the client's calls, then closes its gRPC channel, which `dispose()` leaves open. */
async function disposeClient(client: KurrentDBClient, usedGrpc: boolean): Promise<void> {
  await client.dispose();
  if (!usedGrpc) return;
  // `getChannel` is protected in the client's types; it answers the channel the calls used (creating a
  // lazy, unconnected one if a failure had dropped it). Closed whenever it comes, waited for briefly.
  const getChannel = (client as unknown as { getChannel?: () => Promise<{ close(): void }> }).getChannel;
  if (typeof getChannel !== 'function') return;
  const closing = getChannel.call(client).then(
    (channel) => channel.close(),
    () => undefined,
  );
  await withTimeout(closing, CHANNEL_CLOSE_TIMEOUT_MS, 'the KurrentDB channel did not close in time').catch(() => undefined);
}

const DEFAULT_HEALTH_TIMEOUT_MS = 2_000;

/**
 * The distributed event store on KurrentDB (formerly EventStoreDB), through `@kurrent/kurrentdb-client`.
 *
 * - Appends are one atomic server-side write per call, sent with `requiresLeader` so that a follower
 *   refuses them (the client then reconnects to the leader; cluster discovery prefers the leader by default).
 *   Stream reads, which feed the decide step, also require the leader, so they are never stale.
 * - Event ids are UUIDs (KurrentDB's own requirement). The server treats a repeated append of the same
 *   ids at the same expected revision as idempotent: it succeeds without writing twice, and without a
 *   log position, which `toAppendResult` resolves.
 * - Every store on one connection string shares one client, disposed when the last store closes.
 * - Appends are limited by their total size like the embedded store's (`batchLimitBytes`), under the
 *   server's maximum append size, so both modes refuse the same batches with the same error.
 * - Positions are KurrentDB's `{ commit, prepare }` packed into one bigint (see `kurrentdb-position.ts`).
 * - `readAll`, `headPosition` and `subscribeToAll` exclude system events (`$`-prefixed types or streams)
 *   with the server-side `excludeSystemEvents()` filter, and check again on the client.
 */
export class KurrentDbEventStore implements EventStore {
  private closed = false;
  private readonly subscriptions = new Set<KurrentDbSubscription>();
  private readonly healthTimeoutMs: number;
  private readonly batchLimitBytes: number;
  private readonly client: KurrentDBClient;

  private constructor(
    private readonly lease: ClientLease<KurrentDBClient>,
    options: KurrentDbEventStoreOptions,
  ) {
    this.client = lease.client;
    this.healthTimeoutMs = options.healthTimeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS;
    this.batchLimitBytes = batchLimit(options.batchLimitBytes);
  }

  /**
   * Creates the store for a connection string such as `kurrentdb://host:2113?tls=false`. The string is
   * checked here with the client's own parser; the connection itself opens lazily, on the first call.
   * Stores on the same connection string share one client (`sharedKurrentDbClients`).
   */
  static connect(connectionString: string, options: KurrentDbEventStoreOptions = {}): KurrentDbEventStore {
    batchLimit(options.batchLimitBytes);
    return new KurrentDbEventStore(sharedKurrentDbClients.acquire(connectionString), options);
  }

  async appendToStream(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    this.assertOpen();
    assertStreamName(stream);
    assertExpectedRevision(expected);
    assertBatch(events, this.batchLimitBytes);
    const batch = events.map((event) =>
      jsonEvent({
        id: eventId(event),
        type: event.type,
        data: (event.data ?? null) as JSONType,
        metadata: (event.metadata ?? {}) as JSONType,
      }),
    );
    let result;
    this.lease.usedGrpc();
    try {
      result = await this.client.appendToStream(stream, batch, { streamState: toStreamState(expected), requiresLeader: true });
    } catch (error) {
      throw toPortError(error, stream, expected);
    }
    return toAppendResult(result, stream, expected, this);
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    assertStreamName(stream);
    const limit = pageSize(options.maxCount);
    const backwards = readDirection(options.direction) === 'backwards';
    const fromRevision = options.fromRevision === undefined ? (backwards ? END : START) : BigInt(revision(options.fromRevision));
    const events: RecordedEvent[] = [];
    try {
      const page = this.client.readStream(stream, {
        direction: backwards ? BACKWARDS : FORWARDS,
        fromRevision,
        maxCount: limit,
        requiresLeader: true,
      });
      for await (const resolved of page) {
        const event = decodeRecorded(resolved.event);
        if (!event) throw new Error(`KurrentDB returned an event of '${stream}' without a log position`);
        events.push(event);
      }
    } catch (error) {
      if (isStreamNotFound(error)) return [];
      throw toPortError(error, stream);
    }
    return events;
  }

  async streamRevision(stream: string): Promise<number | null> {
    this.assertOpen();
    assertStreamName(stream);
    try {
      const page = this.client.readStream(stream, { direction: BACKWARDS, fromRevision: END, maxCount: 1, requiresLeader: true });
      for await (const resolved of page) {
        if (resolved.event) return Number(resolved.event.revision);
      }
      return null;
    } catch (error) {
      if (isStreamNotFound(error)) return null;
      throw toPortError(error, stream);
    }
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const limit = pageSize(options.maxCount);
    const after = options.after === undefined ? undefined : logPosition(options.after);
    const events: RecordedEvent[] = [];
    // KurrentDB reads $all from a position inclusively: the event at `after` comes back first and is
    // skipped, so each request asks for one more than it still needs. Pages repeat until the limit is
    // met or the server returns a short page (the end of the log).
    let from: ReadPosition = after === undefined ? START : unpackPosition(after);
    let skipThrough = after;
    try {
      while (events.length < limit) {
        const wanted = limit - events.length + 1;
        let received = 0;
        let last: LogPosition | undefined;
        const page = this.client.readAll({ direction: FORWARDS, fromPosition: from, maxCount: wanted, filter: excludeSystemEvents() });
        for await (const resolved of page) {
          received += 1;
          const event = decodeRecorded(resolved.event);
          if (!event) continue;
          last = event.position;
          if (skipThrough !== undefined && event.position <= skipThrough) continue;
          if (isSystemEvent(event)) continue;
          events.push(event);
          if (events.length === limit) break;
        }
        if (events.length === limit || received < wanted || last === undefined) break;
        from = unpackPosition(last);
        skipThrough = last;
      }
    } catch (error) {
      throw toPortError(error);
    }
    return events;
  }

  async headPosition(): Promise<LogPosition | null> {
    this.assertOpen();
    const PAGE = 32;
    let from: ReadPosition = END;
    let below: LogPosition | undefined;
    try {
      for (;;) {
        let received = 0;
        let last: LogPosition | undefined;
        const page = this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: PAGE, filter: excludeSystemEvents() });
        for await (const resolved of page) {
          received += 1;
          const event = decodeRecorded(resolved.event);
          if (!event) continue;
          last = event.position;
          if (below !== undefined && event.position >= below) continue;
          if (!isSystemEvent(event)) return event.position;
        }
        if (received < PAGE || last === undefined) return null;
        from = unpackPosition(last);
        below = last;
      }
    } catch (error) {
      throw toPortError(error);
    }
  }

  subscribeToAll(options: SubscribeOptions = {}): LogSubscription {
    this.assertOpen();
    const after = options.after === undefined ? undefined : logPosition(options.after);
    this.lease.usedGrpc();
    const source = this.client.subscribeToAll({
      fromPosition: after === undefined ? START : unpackPosition(after),
      filter: excludeSystemEvents(),
      resolveLinkTos: false,
    });
    const subscription = new KurrentDbSubscription(source, after, (s) => this.subscriptions.delete(s), options.types);
    this.subscriptions.add(subscription);
    return subscription;
  }

  async health(): Promise<EventStoreHealth> {
    if (this.closed) return { ok: false, detail: 'closed' };
    const probe = (async () => {
      const page = this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1, deadline: this.healthTimeoutMs });
      for await (const resolved of page) void resolved;
    })();
    try {
      await withTimeout(probe, this.healthTimeoutMs, `no answer from KurrentDB within ${this.healthTimeoutMs} ms`);
      return { ok: true, detail: 'kurrentdb reachable' };
    } catch (error) {
      probe.catch(() => undefined);
      return { ok: false, detail: `kurrentdb: ${messageOf(toPortError(error))}` };
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    await this.lease.release();
  }

  private assertOpen(): void {
    if (this.closed) throw new EventStoreUnavailableError('the event store is closed');
  }
}

/** The factory the Nest module uses when `EVENTSTORE_URL` is set. */
export function createKurrentDbEventStore(url: string, options: KurrentDbEventStoreOptions = {}): EventStore {
  return KurrentDbEventStore.connect(url, options);
}

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

/** Marker pushed into the client's stream, in order with its events, when the server says "caught up". */
const CAUGHT_UP: unique symbol = Symbol('kurrentdb caught up');

/** The client's subscription object, as far as this adapter uses it (a test can supply its own). */
export type KurrentDbSubscriptionSource = Pick<
  AllStreamSubscription,
  'on' | 'once' | 'push' | 'destroy' | 'destroyed' | 'unsubscribe' | typeof Symbol.asyncIterator
>;

/**
 * A catch-up subscription to $all as a `LogSubscription`.
 *
 * The client's subscription is a Node object-mode stream that signals "caught up" as an event emitted
 * while it processes the server's message; events it processed earlier may still sit in its buffer.
 * The listener therefore pushes a marker into the same buffer, so the `caughtUp` message comes out in
 * order, after every event delivered before it. Reading the stream with for-await pulls one item at a
 * time, so the stream's high-water mark bounds the buffer and pauses the gRPC call when it is full.
 */
export class KurrentDbSubscription implements LogSubscription {
  private closed = false;
  private released = false;
  private readonly iterator: AsyncGenerator<SubscriptionMessage, void, undefined>;
  /**
   * `SubscribeOptions.types`, applied here rather than with the server's event-type filter: a filtered
   * server subscription reports its position only every `checkpointInterval` windows of matches, so a
   * consumer would not learn that it passed an event it does not handle until much later, and
   * read-your-writes waits for exactly that.
   */
  private readonly types: ReadonlySet<string> | undefined;

  constructor(
    private readonly source: KurrentDbSubscriptionSource,
    private readonly after: LogPosition | undefined,
    private readonly onRelease: (subscription: KurrentDbSubscription) => void = () => undefined,
    types?: readonly string[],
  ) {
    this.types = types === undefined ? undefined : new Set(types);
    source.once('caughtUp', () => {
      if (!source.destroyed) source.push(CAUGHT_UP);
    });
    // The client emits errors on the stream without destroying it; destroying it with the error makes
    // sure a reader that is waiting, or arrives later, sees it (and that nothing goes unhandled).
    source.on('error', (error: Error) => {
      if (!source.destroyed) source.destroy(error);
    });
    this.iterator = this.messages();
  }

  [Symbol.asyncIterator](): AsyncIterator<SubscriptionMessage> {
    return this.iterator;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.release();
  }

  private async *messages(): AsyncGenerator<SubscriptionMessage, void, undefined> {
    let last = this.after;
    let caughtUp = false;
    try {
      for await (const item of this.source as AsyncIterable<AllStreamResolvedEvent | typeof CAUGHT_UP>) {
        if (this.closed) return;
        if (item === CAUGHT_UP) {
          if (!caughtUp) {
            caughtUp = true;
            yield { kind: 'caughtUp', position: last ?? null };
          }
          continue;
        }
        const event = decodeRecorded(item.event);
        if (!event || isSystemEvent(event)) continue;
        // Exclusive start, and never a duplicate should the server repeat itself.
        if (last !== undefined && event.position <= last) continue;
        last = event.position;
        yield this.types === undefined || this.types.has(event.type)
          ? { kind: 'event', event }
          : { kind: 'checkpoint', position: event.position };
      }
    } catch (error) {
      if (this.closed) return;
      throw subscriptionError(error);
    } finally {
      await this.release();
    }
    if (!this.closed) throw new EventStoreUnavailableError('the KurrentDB subscription ended without being closed');
  }

  private async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    this.onRelease(this);
    try {
      await this.source.unsubscribe();
    } catch {
      // The call never started or already failed: nothing to cancel.
    }
    if (!this.source.destroyed) this.source.destroy();
  }
}

/**
 * Translates a client error into the port's errors: a wrong expected version becomes
 * `WrongExpectedRevisionError`; an unreachable, timed-out or non-leader server (the client's
 * `UnavailableError` family, a gRPC CANCELLED, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED or UNAVAILABLE,
 * an unknown error caused by the transport, or a node answering "Server Is Not Ready/Busy") becomes
 * `EventStoreUnavailableError` (503, retry later) rather than an internal error; an
 * append over the server's size limit becomes
 * `EventStoreInputError`. Anything else is returned as it came.
 */
export function toPortError(error: unknown, stream?: string, expected?: ExpectedRevision): Error {
  if (error instanceof WrongExpectedRevisionError || error instanceof EventStoreInputError || error instanceof EventStoreUnavailableError) {
    return error;
  }
  const type = errorType(error);
  if (type === 'maximum-append-size-exceeded' || type === 'append-record-size-exceeded' || type === 'transaction-max-size-exceeded') {
    return new EventStoreInputError(`the append is larger than KurrentDB accepts: ${messageOf(error)}`);
  }
  if (type === 'wrong-expected-version') {
    const details = error as { streamName?: unknown; expectedState?: unknown; actualState?: unknown };
    const name = stream ?? (typeof details.streamName === 'string' ? details.streamName : 'unknown stream');
    return new WrongExpectedRevisionError(name, expected ?? fromStreamState(details.expectedState), toActualRevision(details.actualState));
  }
  if (isUnavailable(error, type)) {
    return new EventStoreUnavailableError(`KurrentDB is unavailable: ${messageOf(error)}`, error);
  }
  return error instanceof Error ? error : new Error(messageOf(error));
}

/**
 * Whether an error means "the server did not answer (in time)" rather than "the request is wrong":
 * the client's unavailable family, a gRPC status in `UNAVAILABLE_CODES`, or an unknown error (gRPC
 * UNKNOWN, or the client's `UnknownError`, which its read bridge uses for every status it does not
 * map and carries no code) whose message names such a status or a transport failure.
 */
function isUnavailable(error: unknown, type: string | undefined): boolean {
  if (type !== undefined && UNAVAILABLE_TYPES.has(type)) return true;
  const code = grpcCode(error);
  if (code !== undefined && UNAVAILABLE_CODES.has(code)) return true;
  if (code !== undefined ? code !== GRPC_STATUS.UNKNOWN : type !== 'unknown') return false;
  const message = messageOf(error);
  return NOT_READY.test(message) || TRANSPORT_FAILURE.test(message) || UNAVAILABLE_STATUS.test(message);
}

/** A failure of a running subscription: always an `EventStoreUnavailableError`, so callers resubscribe. */
export function subscriptionError(error: unknown): EventStoreUnavailableError {
  const mapped = toPortError(error);
  if (mapped instanceof EventStoreUnavailableError) return mapped;
  return new EventStoreUnavailableError(`the KurrentDB subscription dropped: ${messageOf(error)}`, error);
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

/** Builds the client, turning the client's parse errors into `EventStoreInputError`. */
export function parseConnectionString(connectionString: string): KurrentDBClient {
  if (typeof connectionString !== 'string' || connectionString.trim() === '') {
    throw new EventStoreInputError('a KurrentDB connection string is required, such as kurrentdb://localhost:2113?tls=false');
  }
  try {
    return KurrentDBClient.connectionString(connectionString);
  } catch (error) {
    throw new EventStoreInputError(`invalid KurrentDB connection string: ${messageOf(error)}`);
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

function isSystemEvent(event: RecordedEvent): boolean {
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
function eventId(event: NewEvent): string {
  return event.id?.toLowerCase() ?? newEventId();
}

function readDirection(direction: unknown): 'forwards' | 'backwards' {
  if (direction === undefined || direction === 'forwards') return 'forwards';
  if (direction === 'backwards') return 'backwards';
  throw new EventStoreInputError(`invalid direction '${String(direction)}': expected forwards or backwards`);
}

function revision(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new EventStoreInputError(`invalid revision ${String(value)}: expected a non-negative integer`);
  }
  return value;
}

function logPosition(value: unknown): LogPosition {
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

function isStreamNotFound(error: unknown): boolean {
  return errorType(error) === 'stream-not-found';
}

function errorType(error: unknown): string | undefined {
  const type = (error as { type?: unknown } | null | undefined)?.type;
  return typeof type === 'string' ? type : undefined;
}

function grpcCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

function fromStreamState(state: unknown): ExpectedRevision {
  if (state === NO_STREAM || state === ANY || state === STREAM_EXISTS) return state;
  if (typeof state === 'bigint' && state >= 0n) return Number(state);
  if (typeof state === 'number' && Number.isSafeInteger(state) && state >= 0) return state;
  return 'any';
}

/** The client reports the current revision as a bigint, or 'no_stream'; negative values mean no stream too. */
function toActualRevision(state: unknown): number | 'no_stream' {
  if (typeof state === 'bigint') return state >= 0n ? Number(state) : 'no_stream';
  if (typeof state === 'number' && Number.isSafeInteger(state)) return state >= 0 ? state : 'no_stream';
  return 'no_stream';
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  const message = (error as { message?: unknown } | null | undefined)?.message;
  if (typeof message === 'string' && message) return message;
  const details = (error as { details?: unknown } | null | undefined)?.details;
  if (typeof details === 'string' && details) return details;
  return String(error);
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new EventStoreUnavailableError(message)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
