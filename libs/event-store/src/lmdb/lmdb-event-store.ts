import { mkdirSync } from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import { LMDB_VALUES } from '#platform/lmdb-values';
import { log } from '#platform/logging';
import { asStorageFull, listenToLmdbCommit, StorageFullError } from '#platform/storage-full';
import type {
  AppendResult,
  EventMetadata,
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
import { DamagedEventLogError, EventStoreUnavailableError, WrongExpectedRevisionError } from '../errors';
import { checkLmdbEnvironment } from '#platform/lmdb-file-check';
import {
  assertExpectedRevision,
  batchLimit,
  assertStreamName,
  expectationHolds,
  pageSize,
  serializeBatch,
  type SerializedEvent,
} from '../validation';
import { ProcessLock } from './process-lock';
import { newEventId } from '../event-ids';

/** One event as stored in the `log` database, keyed by its global position. */
export interface StoredEvent {
  id: string;
  stream: string;
  revision: number;
  type: string;
  /** Data and metadata as JSON values: the caller's values after a JSON round trip, as KurrentDB would keep them. */
  data: unknown;
  metadata: EventMetadata;
  /** ISO 8601 UTC, formatted once at append. */
  recordedAt: string;
}

/** Throws unless `value` has the shape every stored event has (a decoded record, not garbage). */
export function assertStoredEvent(value: unknown, position: number): asserts value is StoredEvent {
  const event = value as Partial<StoredEvent> | undefined;
  const sound =
    typeof event === 'object' &&
    event !== null &&
    typeof event.id === 'string' &&
    typeof event.stream === 'string' &&
    typeof event.type === 'string' &&
    typeof event.revision === 'number' &&
    typeof event.recordedAt === 'string';
  if (!sound) throw new Error(`the event at position ${position} is not a stored event`);
}

type AppendOutcome = { ok: true; result: AppendResult } | { ok: false; actual: number | null };

const LAST_REVISION = Number.MAX_SAFE_INTEGER;
/** `meta` key: the position up to which `type-index` holds every event of the log. */
const TYPE_INDEX_THROUGH = 'typeIndexThrough';
/** Events indexed per transaction when a log written without the type index is indexed at open. */
const TYPE_INDEX_CHUNK = 10_000;

export interface LmdbEventStoreOptions {
  /** Largest append in bytes of JSON, the same rule as KurrentDB's (validation.ts, DEFAULT_BATCH_LIMIT_BYTES). */
  batchLimitBytes?: number;
}

/**
 * The embedded event store on LMDB.
 *
 * Layout, five databases in one environment:
 * - `log`: position (1, 2, 3…) → StoredEvent — the whole log in commit order;
 * - `streams`: stream name → current revision, for the expected-revision check (a point read is
 *   several times cheaper than a cursor, and this check runs inside the write lock);
 * - `stream-index`: [stream, revision] → position — for stream reads in both directions;
 * - `type-index`: [type, position] → true — for filtered subscriptions (`SubscribeOptions.types`),
 *   which read the positions of their types and then only those events, instead of decoding the
 *   whole log to look at each event's type (ten reactors catching up over a million events decoded
 *   ten million);
 * - `meta`: `typeIndexThrough`, the position up to which `type-index` is complete. Every append
 *   writes its entries and moves it in its own transaction; a log written before the index existed
 *   (or by a version without it) is indexed from there at open.
 *
 * Appends run as lmdb-js asynchronous transaction callbacks: every callback queued in the same event
 * turn shares one LMDB write transaction and one disk flush (group commit), while each callback's
 * check-then-write is atomic because callbacks run one after another inside the write lock.
 * An append resolves only after its transaction is flushed to disk: the environment is opened
 * without lmdb-js's `overlappingSync` (its default on Linux and macOS), so a commit resolves after
 * LMDB's own fdatasync. With it, a commit resolved before its flush and the append then had to await
 * `root.flushed`, which waits for whatever commit is pending at that moment: under load the next
 * group's, one more turn of a busy event loop for every write (about 20 ms of the mixed workload's
 * 80 ms write p50).
 */
export class LmdbEventStore implements EventStore {
  // Not readonly: `releaseMappedPages` opens them again.
  private root!: RootDatabase;
  private log!: Database<StoredEvent, number>;
  private streams!: Database<number, string>;
  private streamIndex!: Database<number, [string, number]>;
  private typeIndex!: Database<true, [string, number]>;
  private meta!: Database<number, string>;
  private readonly lock: ProcessLock;
  /** While `releaseMappedPages` runs: appends and reads wait for it. */
  private releasing: Promise<void> | null = null;
  private head = 0;
  /** Last position assigned in the write transaction `positionTxn`; callbacks of one transaction run one after another. */
  private positionTxn = -1;
  private txnPosition = 0;
  private closed = false;
  /** Set by an append that could not be stored, cleared by one that was: `health` reports it. */
  private storageFull: StorageFullError | undefined;
  private readonly waiters = new Set<() => void>();
  private readonly subscriptions = new Set<LmdbSubscription>();

  private readonly batchLimitBytes: number;

  private constructor(
    private readonly directory: string,
    options: LmdbEventStoreOptions,
  ) {
    this.batchLimitBytes = batchLimit(options.batchLimitBytes);
    mkdirSync(directory, { recursive: true });
    this.lock = ProcessLock.acquire(directory);
    try {
      this.openChecked();
      this.indexTypesAfter(this.meta.get(TYPE_INDEX_THROUGH) ?? 0);
    } catch (error) {
      this.lock.release();
      throw error;
    }
  }

  /**
   * Opens the databases once the file has passed its check (`checkLmdbEnvironment`: mapping a file
   * cut short is a SIGBUS, not an error), then decodes the last event: a log whose tail does not
   * decode is refused too (`DamagedEventLogError`), since every reader would fail there.
   */
  private openChecked(): void {
    const file = checkLmdbEnvironment(this.directory);
    if (file.problem) throw new DamagedEventLogError(this.directory, `${file.file}: ${file.problem}`);
    try {
      this.openDatabases();
    } catch (error) {
      throw new DamagedEventLogError(this.directory, `${file.file} does not open: ${(error as Error)?.message ?? String(error)}`);
    }
    try {
      this.head = this.lastPosition();
      if (this.head > 0) assertStoredEvent(this.log.get(this.head), this.head);
    } catch (error) {
      void this.root.close().catch(() => undefined);
      throw new DamagedEventLogError(this.directory, `its last event does not decode: ${(error as Error)?.message ?? String(error)}`);
    }
  }

  private openDatabases(): void {
    this.root = open({ path: this.directory, maxDbs: 6, ...LMDB_VALUES, overlappingSync: false });
    // Shared structures store the record shape once instead of in every entry: replay decodes ~3x faster.
    this.log = this.root.openDB<StoredEvent, number>({ name: 'log', ...LMDB_VALUES, sharedStructuresKey: Symbol.for('structures') });
    this.streams = this.root.openDB<number, string>({ name: 'streams', ...LMDB_VALUES });
    this.streamIndex = this.root.openDB<number, [string, number]>({ name: 'stream-index', ...LMDB_VALUES });
    this.typeIndex = this.root.openDB<true, [string, number]>({ name: 'type-index', ...LMDB_VALUES });
    this.meta = this.root.openDB<number, string>({ name: 'meta', ...LMDB_VALUES });
  }

  /**
   * Unmaps the log's file and maps it again, so that the pages a long read touched stop counting as
   * this process's resident memory: a replay reads the whole log through the map, and every page it
   * read stayed resident (767 MB for a million events). lmdb-js offers no `madvise`; closing the
   * environment is the way to drop them. Appends and reads that arrive meanwhile wait; appends in
   * flight are written first.
   */
  releaseMappedPages(): Promise<void> {
    this.assertOpen();
    this.releasing ??= (async () => {
      try {
        await this.root.close();
      } finally {
        // Opened again even when the close failed: the store must stay usable.
        this.openDatabases();
        this.releasing = null;
      }
    })();
    return this.releasing;
  }

  /** Opens (creating if needed) the store in `directory`; refuses a directory held by another process. */
  static open(directory: string, options: LmdbEventStoreOptions = {}): LmdbEventStore {
    return new LmdbEventStore(directory, options);
  }

  /**
   * `recordedAt` is for `cli import` alone: an imported event keeps the time its source recorded it.
   * Everything else lets the store stamp the time of the append.
   */
  async appendToStream(
    stream: string,
    events: NewEvent[],
    expected: ExpectedRevision,
    options: { recordedAt?: string } = {},
  ): Promise<AppendResult> {
    this.assertOpen();
    assertStreamName(stream);
    assertExpectedRevision(expected);
    if (this.releasing) await this.releasing;
    const recordedAt = options.recordedAt ?? new Date().toISOString();
    // Prepared before the transaction: the callback runs inside the write lock and must stay short.
    const batch = serializeBatch(events, newEventId, this.batchLimitBytes).map((event) => toStored(event, stream, recordedAt));
    const root = this.root;
    let outcome: AppendOutcome;
    try {
      const written = root.transaction(() => this.appendInTransaction(stream, batch, expected));
      listenToLmdbCommit(root);
      outcome = await written;
    } catch (error) {
      throw this.failedAppend(error);
    }
    this.storageFull = undefined;
    if (!outcome.ok) throw new WrongExpectedRevisionError(stream, expected, outcome.actual ?? 'no_stream');
    // Flushed already: the commit includes the fdatasync (no overlappingSync, above).
    this.advanceHead(Number(outcome.result.position));
    return outcome.result;
  }

  /**
   * An append that failed: a failed commit (a full disk, an I/O error) stored nothing and is a
   * StorageFullError, reported by `health` until an append succeeds. LMDB may keep an environment
   * whose commit failed in a fatal state that refuses every later transaction, so it is opened again
   * (appends and reads wait for that): once space is freed, appends work without a restart.
   */
  private failedAppend(error: unknown): unknown {
    const mapped = asStorageFull('event store', error);
    if (!(mapped instanceof StorageFullError)) return mapped;
    this.storageFull = mapped;
    // lmdb-js's own error only points at its cause, another promise.
    const cause = (error as { commitError?: Promise<unknown> }).commitError ?? Promise.reject(error);
    cause.catch((reason: unknown) =>
      log.error({ err: reason }, 'the event log could not store an append: no space left, or its commit failed'),
    );
    if (!this.closed)
      this.releaseMappedPages().catch((reopen: unknown) => log.error({ err: reopen }, 'the event log could not be opened again'));
    return mapped;
  }

  /** Runs inside the write transaction: reads see earlier callbacks of the same transaction. */
  private appendInTransaction(stream: string, batch: StoredEvent[], expected: ExpectedRevision): AppendOutcome {
    const current = this.currentRevision(stream);
    if (!expectationHolds(expected, current)) return { ok: false, actual: current };
    // A failed commit leaves the cached value behind with its transaction id, so it is never reused.
    const txn = this.root.getWriteTxnId();
    let position = txn === this.positionTxn ? this.txnPosition : this.lastPosition();
    let revision = current ?? -1;
    for (const event of batch) {
      position += 1;
      revision += 1;
      event.revision = revision;
      this.log.put(position, event);
      this.streamIndex.put([stream, revision], position);
      this.typeIndex.put([event.type, position], true);
    }
    this.streams.put(stream, revision);
    this.meta.put(TYPE_INDEX_THROUGH, position);
    this.positionTxn = txn;
    this.txnPosition = position;
    return { ok: true, result: { nextExpectedRevision: revision, position: BigInt(position) } };
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    assertStreamName(stream);
    if (this.releasing) await this.releasing;
    const limit = pageSize(options.maxCount);
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision ?? (backwards ? LAST_REVISION : 0);
    const range = backwards
      ? this.streamIndex.getRange({ start: [stream, from], end: [stream, -1], reverse: true, limit })
      : this.streamIndex.getRange({ start: [stream, from], end: [stream, LAST_REVISION], limit });
    const events: RecordedEvent[] = [];
    for (const { value: position } of range) {
      const stored = this.log.get(position);
      if (stored) events.push(toRecorded(position, stored));
    }
    return events;
  }

  async streamRevision(stream: string): Promise<number | null> {
    this.assertOpen();
    assertStreamName(stream);
    if (this.releasing) await this.releasing;
    return this.currentRevision(stream);
  }

  private currentRevision(stream: string): number | null {
    return this.streams.get(stream) ?? null;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    if (this.releasing) await this.releasing;
    return this.readAfter(options.after === undefined ? 0 : Number(options.after), pageSize(options.maxCount));
  }

  /** Synchronous page read: the subscription's catch-up and live reads share it. */
  readAfter(after: number, limit: number): RecordedEvent[] {
    const events: RecordedEvent[] = [];
    for (const { key, value } of this.log.getRange({ start: after + 1, limit })) events.push(toRecorded(key, value));
    return events;
  }

  async headPosition(): Promise<LogPosition | null> {
    this.assertOpen();
    return this.head === 0 ? null : BigInt(this.head);
  }

  /**
   * Synchronous filtered page read: the events of `types` after `after`, at most `limit` of them,
   * found through the type index; `through` is the position up to which every event of those types
   * is in `events` (`after` when there is nothing after it). Only the events returned are decoded.
   */
  readMatchingAfter(after: number, types: ReadonlySet<string>, limit: number): { events: RecordedEvent[]; through: number } {
    // Positions up to the head are committed, and indexed in the same transactions.
    const head = this.head;
    if (after >= head) return { events: [], through: after };
    const positions: number[] = [];
    for (const type of types) {
      for (const key of this.typeIndex.getKeys({ start: [type, after + 1], end: [type, head + 1], limit })) positions.push(key[1]);
    }
    positions.sort((a, b) => a - b);
    // With `limit` or more, every position up to the limit-th is among them: a type cut at `limit`
    // contributed `limit` positions, all at or before its last one.
    const taken = positions.length > limit ? positions.slice(0, limit) : positions;
    const through = positions.length >= limit ? taken[taken.length - 1] : head;
    return { events: taken.map((position) => toRecorded(position, this.log.get(position)!)), through };
  }

  /** Indexes the types of the events after `through` (a log written without the index), a chunk per transaction. */
  private indexTypesAfter(through: number): void {
    if (through >= this.head) return;
    const started = Date.now();
    log.info({ events: this.head - through }, 'indexing the event log by type, once: it was written without that index');
    while (through < this.head) {
      this.root.transactionSync(() => {
        for (const { key, value } of this.log.getRange({ start: through + 1, limit: TYPE_INDEX_CHUNK })) {
          this.typeIndex.put([value.type, key], true);
          through = key;
        }
        this.meta.put(TYPE_INDEX_THROUGH, through);
      });
    }
    log.info({ ms: Date.now() - started }, 'event log indexed by type');
  }

  subscribeToAll(options: SubscribeOptions = {}): LogSubscription {
    this.assertOpen();
    const types = options.types === undefined ? undefined : new Set(options.types);
    const subscription = new LmdbSubscription(this, options.after === undefined ? 0 : Number(options.after), types, (s) =>
      this.subscriptions.delete(s),
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  /** The `releaseMappedPages` in progress, to wait for before a synchronous read (it needs the databases open); undefined when none is. */
  whenUsable(): Promise<void> | undefined {
    return this.releasing ?? undefined;
  }

  /** Resolves when the durable head moves past `position`, or the store closes. */
  waitBeyond(position: number): Promise<void> {
    if (this.head > position || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        this.waiters.delete(wake);
        resolve();
      };
      this.waiters.add(wake);
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  async health(): Promise<EventStoreHealth> {
    if (this.closed) return { ok: false, detail: 'closed' };
    if (this.storageFull)
      return { ok: false, detail: `lmdb, appends failing: ${this.storageFull.message} (${describe(this.storageFull.cause)})` };
    return { ok: true, detail: `lmdb, head position ${this.head}` };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const subscription of this.subscriptions) await subscription.close();
    this.wakeAll();
    if (this.releasing) await this.releasing.catch(() => undefined);
    await this.root.close();
    this.lock.release();
  }

  private lastPosition(): number {
    for (const key of this.log.getKeys({ reverse: true, limit: 1 })) return key;
    return 0;
  }

  private advanceHead(position: number): void {
    if (position <= this.head) return;
    this.head = position;
    this.wakeAll();
  }

  /** Wakes every waiting subscription so it re-checks its state (new events, closed). */
  wakeAll(): void {
    for (const wake of [...this.waiters]) wake();
  }

  private assertOpen(): void {
    if (this.closed) throw new EventStoreUnavailableError('the event store is closed');
  }
}

/** Subscription pages through the log from its last delivered position, so it can neither skip nor repeat. */
class LmdbSubscription implements LogSubscription {
  private static readonly PAGE = 512;
  private buffer: RecordedEvent[] = [];
  /** Events of `buffer` already delivered. */
  private taken = 0;
  /** Filtered: the last position read, delivered as a `checkpoint` once the buffer is through. */
  private through: number;
  private caughtUp = false;
  private done = false;

  constructor(
    private readonly store: LmdbEventStore,
    private last: number,
    private readonly types: ReadonlySet<string> | undefined,
    private readonly onClose: (subscription: LmdbSubscription) => void,
  ) {
    this.through = last;
  }

  async next(): Promise<IteratorResult<SubscriptionMessage>> {
    while (!this.done) {
      if (this.taken < this.buffer.length) {
        const event = this.buffer[this.taken++];
        this.last = Number(event.position);
        return { done: false, value: { kind: 'event', event } };
      }
      if (this.through > this.last) {
        this.last = this.through;
        return { done: false, value: { kind: 'checkpoint', position: BigInt(this.last) } };
      }
      if (this.store.isClosed) break;
      const releasing = this.store.whenUsable();
      if (releasing) {
        await releasing;
        continue;
      }
      this.taken = 0;
      if (this.types === undefined) {
        this.buffer = this.store.readAfter(this.last, LmdbSubscription.PAGE);
      } else {
        const page = this.store.readMatchingAfter(this.last, this.types, LmdbSubscription.PAGE);
        this.buffer = page.events;
        this.through = page.through;
      }
      if (this.buffer.length > 0 || this.through > this.last) continue;
      if (!this.caughtUp) {
        this.caughtUp = true;
        return { done: false, value: { kind: 'caughtUp', position: this.last === 0 ? null : BigInt(this.last) } };
      }
      await this.store.waitBeyond(this.last);
    }
    this.done = true;
    return { done: true, value: undefined };
  }

  async return(): Promise<IteratorResult<SubscriptionMessage>> {
    await this.close();
    return { done: true, value: undefined };
  }

  async close(): Promise<void> {
    this.done = true;
    this.buffer = [];
    this.taken = 0;
    this.onClose(this);
    this.store.wakeAll();
  }

  [Symbol.asyncIterator](): AsyncIterator<SubscriptionMessage> {
    return this;
  }
}

/** The stored form; the revision is filled in inside the transaction. */
function toStored(event: SerializedEvent, stream: string, recordedAt: string): StoredEvent {
  return {
    id: event.id,
    stream,
    revision: -1,
    type: event.type,
    data: JSON.parse(event.data),
    metadata: JSON.parse(event.metadata),
    recordedAt,
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function toRecorded(position: number, stored: StoredEvent): RecordedEvent {
  return {
    id: stored.id,
    streamId: stored.stream,
    revision: stored.revision,
    position: BigInt(position),
    type: stored.type,
    data: stored.data,
    metadata: stored.metadata,
    recordedAt: stored.recordedAt,
  };
}
