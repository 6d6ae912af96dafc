import {
  BACKWARDS,
  END,
  FORWARDS,
  KurrentDBClient,
  START,
  excludeSystemEvents,
  jsonEvent,
  type JSONType,
  type ReadPosition,
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
} from '../event-store.port';
import { EventStoreInputError, EventStoreUnavailableError } from '../errors';
import { assertBatch, assertExpectedRevision, assertStreamName, batchLimit, pageSize } from '../validation';
import { unpackPosition } from './kurrentdb-position';
import { SharedClients, type ClientLease } from './shared-clients';
import { isStreamNotFound, messageOf, toPortError } from './kurrentdb-errors';
import {
  decodeRecorded,
  eventId,
  isSystemEvent,
  logPosition,
  readDirection,
  revision,
  toAppendResult,
  toStreamState,
} from './kurrentdb-records';
import { KurrentDbSubscription } from './kurrentdb-subscription';

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

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new EventStoreUnavailableError(message)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
