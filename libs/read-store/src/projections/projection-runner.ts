import { createHash } from 'node:crypto';
import type { EventStore, LogPosition, LogSubscription, RecordedEvent, SubscriptionMessage } from '#event-store/event-store.port';
import { ReadStoreTransactionTooLargeError } from '../errors';
import type { Collection, Doc, Filter, ReadStore, ReadStoreTransaction, Update } from '../read-store.port';
import { NO_PROJECTION_RESOURCES, type ApplyMode, type Projection, type ProjectionResources } from './projection';
import { EventLoopTurns, IDLE, nextTurn, retryWithBackoff, type Backoff } from './backoff';
import type { ReplayMemoryGuard } from './replay-heap';

export interface ProjectionRunnerOptions {
  /** Name of the checkpoint; one runner per name. Default 'main'. */
  name?: string;
  /**
   * Most events applied in one read-store transaction. Default 500. A transaction the store refuses
   * as too large (`ReadStoreTransactionTooLargeError`) is retried with half as many events, down to
   * one; the size then grows back (doubling per committed transaction) up to this value.
   */
  batchSize?: number;
  /** Backoff after a dropped subscription or a failed batch: doubles from `initialMs` up to `maxMs`. */
  backoff?: { initialMs: number; maxMs: number };
  logger?: { warn(message: string, context?: object): void; error(message: string, context?: object): void };
  /** What projections may read besides their collections (the blob store). */
  resources?: ProjectionResources;
  /**
   * When the stored checkpoint was written by other projections (another `projectionsFingerprint`:
   * names, versions, collections, indexes, handled types), drop their read models and replay the
   * log at start. For stores that keep read models across starts (embedded mode's LMDB file).
   */
  rebuildWhenChanged?: boolean;
  /** What else the read models depend on, in the fingerprint: the code that projects (a digest of it). */
  build?: string;
  /**
   * Called with the events of each committed transaction, once the runner has caught up with the
   * log (live events, not a replay or rebuild): the runtime measures projection lag with it.
   */
  onApplied?: (events: readonly RecordedEvent[]) => void;
  /** Told after each full batch (a rebuild, or catching up from far behind), in order, to keep the replay's memory bounded (`ReplayHeap`, `ReplayMappedPages`). */
  replayMemory?: readonly ReplayMemoryGuard[];
  /** Test hook: called inside the batch transaction after the projections' writes, before the checkpoint write. */
  beforeCheckpoint?: (lastEvent: RecordedEvent) => void;
}

export interface ProjectionStatus {
  running: boolean;
  caughtUp: boolean;
  checkpoint: LogPosition | null;
  head: LogPosition | null;
  /** Events known to be unapplied, where the store's positions count events (LMDB); otherwise null. */
  lagEvents: number | null;
  lastError: string | null;
}

export interface RebuildProgress {
  applied: number;
  position: LogPosition | null;
  head: LogPosition | null;
  /** 0..1, from positions. */
  fraction: number;
}

export const CHECKPOINTS = '_checkpoints';

const LIVE: ApplyMode = Object.freeze({ replayFromEmpty: false });
const FROM_EMPTY: ApplyMode = Object.freeze({ replayFromEmpty: true });

/** Documents one multi-document write touches per round when an event is applied without a transaction. */
export const UNTRANSACTED_WRITE_CHUNK = 500;

/**
 * What the read models of these projections depend on besides the log: their names, versions,
 * collections, indexes and handled types, and (when given) the code that projects. A stored checkpoint with another fingerprint was written
 * by other projections (`rebuildWhenChanged`).
 */
export function projectionsFingerprint(projections: readonly Projection[], build?: string): string {
  // Not `large`: where a collection is kept changes no document (`declareLarge` moves them).
  const described = projections.map((p) => [
    p.name,
    p.version ?? 0,
    [...p.collections].sort(),
    p.indexes ?? [],
    p.handles ? [...p.handles].sort() : null,
  ]);
  return createHash('sha256')
    .update(JSON.stringify(build === undefined ? described : [build, described]))
    .digest('base64url');
}

/** The fingerprint of a checkpoint whose read models are being dropped: no projections have it. */
const DROPPING = 'dropping';

interface CheckpointDoc {
  _id: string;
  position: string | null;
  updatedAt: string;
  fingerprint?: string;
  [key: string]: unknown;
}

/**
 * Runs projections against the log (docs/read-side.md, Projections): subscribes from the stored checkpoint,
 * applies events in batches, and commits each batch's read-model writes together with the new
 * checkpoint in one read-store transaction. After a dropped subscription or a failed batch it
 * resubscribes from the checkpoint with backoff. Callers can wait until a position is applied
 * (read-your-writes), and can rebuild every read model from the start of the log.
 */
export class ProjectionRunner {
  private readonly name: string;
  private readonly batchSize: number;
  /** Events per transaction now: `batchSize`, or less after the store refused a transaction as too large. */
  private batchLimit: number;
  private readonly backoff: Backoff;
  private checkpoint: LogPosition | null = null;
  private running = false;
  private caughtUp = false;
  private lastError: string | null = null;
  /** `ApplyMode.replayFromEmpty`: set while this runner replays into read models it dropped, until caught up or a failure. */
  private replay: ApplyMode = LIVE;
  private loop: Promise<void> | null = null;
  private subscription: LogSubscription | null = null;
  private readonly waiters = new Set<{ position: LogPosition; resolve: (applied: boolean) => void }>();
  private readonly caughtUpWaiters: Array<() => void> = [];
  /** Event type → the projections that handle it, computed on first sight of each type. */
  private readonly routes = new Map<string, readonly Projection[]>();
  private readonly fingerprint: string;
  private readonly committedListeners: Array<(events: readonly RecordedEvent[]) => void> = [];

  constructor(
    private readonly events: EventStore,
    private readonly reads: ReadStore,
    private readonly projections: readonly Projection[],
    private readonly options: ProjectionRunnerOptions = {},
  ) {
    this.name = options.name ?? 'main';
    this.batchSize = options.batchSize ?? 500;
    this.batchLimit = this.batchSize;
    this.backoff = options.backoff ?? { initialMs: 100, maxMs: 5000 };
    this.fingerprint = projectionsFingerprint(projections, options.build);
    const names = new Set<string>();
    for (const projection of projections) {
      if (names.has(projection.name)) throw new Error(`two projections are named '${projection.name}'`);
      names.add(projection.name);
    }
  }

  /** Loads the checkpoint and starts applying events in the background. */
  async start(): Promise<void> {
    if (this.running) return;
    this.replay = LIVE;
    if (this.options.rebuildWhenChanged) {
      const stored = await this.reads.collection<CheckpointDoc>(CHECKPOINTS).get(this.name);
      if (stored && stored.fingerprint !== this.fingerprint) {
        this.options.logger?.warn('the projections changed since their read models were written: replaying the log into fresh ones', {
          runner: this.name,
        });
        await this.dropReadModels();
        this.replay = FROM_EMPTY;
      }
    }
    await this.ensureIndexes();
    this.checkpoint = await this.loadCheckpoint();
    this.running = true;
    this.caughtUp = false;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.subscription?.close();
    await this.loop;
    this.loop = null;
    for (const waiter of this.waiters) waiter.resolve(false);
    this.waiters.clear();
  }

  /** The last applied position. */
  position(): LogPosition | null {
    return this.checkpoint;
  }

  /**
   * Told, synchronously and in order, the events of each committed transaction, right after the
   * checkpoint moved past them: the process's reactors take their events from here rather than
   * reading the log again.
   */
  onCommitted(listener: (events: readonly RecordedEvent[]) => void): void {
    this.committedListeners.push(listener);
  }

  async status(): Promise<ProjectionStatus> {
    const head = await this.events.headPosition();
    const checkpoint = this.checkpoint;
    const counted = head !== null && head < 1n << 64n;
    return {
      running: this.running,
      caughtUp: this.caughtUp,
      checkpoint,
      head,
      lagEvents: counted ? Number(head - (checkpoint ?? 0n)) : null,
      lastError: this.lastError,
    };
  }

  /** Resolves true once `position` is applied, or false after `timeoutMs` (or when stopped). */
  waitFor(position: LogPosition, timeoutMs: number): Promise<boolean> {
    if (this.checkpoint !== null && this.checkpoint >= position) return Promise.resolve(true);
    if (!this.running) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = {
        position,
        resolve: (applied: boolean) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(applied);
        },
      };
      const timer = setTimeout(() => waiter.resolve(false), timeoutMs);
      timer.unref?.();
      this.waiters.add(waiter);
    });
  }

  /** Why the last batch (or subscription) failed, while the runner retries it; null once a batch commits. */
  get failure(): string | null {
    return this.lastError;
  }

  /** Whether the runner has caught up with the log since it started (`whenCaughtUp`). */
  get isCaughtUp(): boolean {
    return this.caughtUp;
  }

  /** Resolves once the runner has applied everything that existed when it caught up. */
  whenCaughtUp(): Promise<void> {
    if (this.caughtUp) return Promise.resolve();
    return new Promise((resolve) => this.caughtUpWaiters.push(resolve));
  }

  /**
   * Replays the whole log into fresh read models: drops the projections' collections and the
   * checkpoint, then applies every event from the start. Stops the runner first; restart it after.
   */
  async rebuild(onProgress?: (progress: RebuildProgress) => void): Promise<{ applied: number }> {
    await this.stop();
    await this.dropReadModels();
    await this.ensureIndexes();
    const head = await this.events.headPosition();
    let applied = 0;
    this.replay = FROM_EMPTY;
    try {
      for (;;) {
        const page = await this.events.readAll({ after: this.checkpoint ?? undefined, maxCount: this.batchSize });
        if (page.length === 0) break;
        await this.applyBatch(page);
        if (page.length === this.batchSize) await this.afterFullBatch();
        applied += page.length;
        onProgress?.({ applied, position: this.checkpoint, head, fraction: fraction(this.checkpoint, head) });
      }
    } finally {
      this.replay = LIVE;
    }
    return { applied };
  }

  private async afterFullBatch(): Promise<void> {
    for (const guard of this.options.replayMemory ?? []) await guard.afterFullBatch();
  }

  /**
   * Drops the projections' collections and the checkpoint. The checkpoint is first marked as
   * dropping: a crash before the end leaves read models that a start (fingerprint changed) drops
   * again, never a checkpoint of read models that are gone.
   */
  private async dropReadModels(): Promise<void> {
    const checkpoints = this.reads.collection<CheckpointDoc>(CHECKPOINTS);
    await checkpoints.put({ _id: this.name, position: null, updatedAt: new Date().toISOString(), fingerprint: DROPPING });
    await this.reads.dropCollections([...new Set(this.projections.flatMap((p) => p.collections))]);
    await checkpoints.delete(this.name);
    this.checkpoint = null;
  }

  private async run(): Promise<void> {
    await retryWithBackoff({
      backoff: this.backoff,
      isRunning: () => this.running,
      attempt: () => this.consume(),
      onFailure: (error, retryInMs) => {
        // A batch may have been written in part (a store without transactions, an event applied alone): the guards read again.
        this.replay = LIVE;
        this.lastError = String((error as Error)?.message ?? error);
        this.options.logger?.warn('projection subscription failed; resubscribing from checkpoint', {
          runner: this.name,
          checkpoint: this.checkpoint?.toString() ?? null,
          error: this.lastError,
          retryInMs,
        });
      },
    });
  }

  /** One subscription's life: batches events while they arrive back to back, flushes when idle. */
  private async consume(): Promise<void> {
    const subscription = this.events.subscribeToAll({ after: this.checkpoint ?? undefined });
    const iterator = subscription[Symbol.asyncIterator]();
    this.subscription = subscription;
    const batch: RecordedEvent[] = [];
    const turns = new EventLoopTurns();
    try {
      let pending = iterator.next();
      while (this.running) {
        let result: IteratorResult<SubscriptionMessage> | typeof IDLE =
          batch.length > 0 ? await Promise.race([pending, nextTurn()]) : await pending;
        if (result === IDLE) {
          await this.applyBatch(batch.splice(0));
          result = await pending;
        }
        if (result.done) {
          if (this.running) throw new Error('the subscription ended');
          return;
        }
        pending = iterator.next();
        const message = result.value;
        if (message.kind === 'event') {
          batch.push(message.event);
          if (batch.length >= this.batchSize) {
            await this.applyBatch(batch.splice(0));
            await this.afterFullBatch();
            await turns.maybe();
          }
        } else if (message.kind === 'caughtUp') {
          await this.applyBatch(batch.splice(0));
          this.markCaughtUp();
        }
      }
    } finally {
      this.subscription = null;
      await subscription.close();
    }
  }

  /**
   * Applies the events in order, in transactions of at most `batchLimit` events. When the store
   * refuses a transaction as too large, the same events are retried with half as many per
   * transaction, down to one; a single event still refused is applied without a transaction
   * (`commitAlone`). Each committed transaction moves the checkpoint, so read-your-writes
   * progresses while a large batch is split.
   */
  private async applyBatch(batch: RecordedEvent[]): Promise<void> {
    if (batch.length === 0) return;
    let start = 0;
    while (start < batch.length) {
      const chunk = batch.slice(start, start + this.batchLimit);
      try {
        await this.commit(chunk);
      } catch (error) {
        if (!(error instanceof ReadStoreTransactionTooLargeError)) throw error;
        if (chunk.length === 1) {
          this.options.logger?.warn('projection transaction too large for one event; applying it without a transaction', {
            runner: this.name,
            position: chunk[0].position.toString(),
            error: error.message,
          });
          await this.commitAlone(chunk[0]);
          start += 1;
          continue;
        }
        this.batchLimit = Math.max(1, Math.floor(chunk.length / 2));
        this.options.logger?.warn('projection transaction too large; retrying with fewer events', {
          runner: this.name,
          events: chunk.length,
          retryWith: this.batchLimit,
          error: error.message,
        });
        continue;
      }
      start += chunk.length;
    }
    // Grow back between batches, doubling, so that one large event does not shrink every later
    // transaction, and within a batch the size that fitted is kept (no fail-and-halve again per chunk).
    this.batchLimit = Math.min(this.batchSize, this.batchLimit * 2);
  }

  private async commit(batch: RecordedEvent[]): Promise<void> {
    if (batch.length === 0) return;
    const last = batch[batch.length - 1];
    await this.reads.transaction(async (tx) => {
      for (const event of batch) {
        for (const projection of this.route(event.type))
          await projection.apply(event, tx, this.options.resources ?? NO_PROJECTION_RESOURCES, this.replay);
      }
      this.options.beforeCheckpoint?.(last);
      await tx
        .collection<CheckpointDoc>(CHECKPOINTS)
        .put({ _id: this.name, position: last.position.toString(), updatedAt: new Date().toISOString(), fingerprint: this.fingerprint });
    });
    this.checkpoint = last.position;
    this.lastError = null;
    for (const waiter of this.waiters) if (waiter.position <= last.position) waiter.resolve(true);
    this.reportApplied(batch);
  }

  /**
   * One event too large for any transaction (an `updateMany` over a huge set): its writes go to the
   * store directly, multi-document ones in chunks of `UNTRANSACTED_WRITE_CHUNK`, then the checkpoint.
   * This is safe because every projection write is guarded by position stamps: a crash half-way
   * applies the event again, and the documents it already stamped are skipped.
   */
  private async commitAlone(event: RecordedEvent): Promise<void> {
    const direct: ReadStoreTransaction = { collection: <T extends Doc = Doc>(name: string) => inChunks(this.reads.collection<T>(name)) };
    for (const projection of this.route(event.type))
      await projection.apply(event, direct, this.options.resources ?? NO_PROJECTION_RESOURCES, this.replay);
    await this.reads
      .collection<CheckpointDoc>(CHECKPOINTS)
      .put({ _id: this.name, position: event.position.toString(), updatedAt: new Date().toISOString(), fingerprint: this.fingerprint });
    this.checkpoint = event.position;
    this.lastError = null;
    for (const waiter of this.waiters) if (waiter.position <= event.position) waiter.resolve(true);
    this.reportApplied([event]);
  }

  private reportApplied(events: readonly RecordedEvent[]): void {
    for (const listener of this.committedListeners) listener(events);
    if (this.running && this.caughtUp) this.options.onApplied?.(events);
  }

  private route(type: string): readonly Projection[] {
    let projections = this.routes.get(type);
    if (!projections) {
      projections = this.projections.filter((p) => !p.handles || p.handles.includes(type));
      this.routes.set(type, projections);
    }
    return projections;
  }

  private markCaughtUp(): void {
    // Live from here: another process may apply events too (distributed mode), and a failed batch is retried.
    this.replay = LIVE;
    this.caughtUp = true;
    this.caughtUpWaiters.splice(0).forEach((resolve) => resolve());
  }

  private async loadCheckpoint(): Promise<LogPosition | null> {
    const stored = await this.reads.collection<CheckpointDoc>(CHECKPOINTS).get(this.name);
    return stored?.position ? BigInt(stored.position) : null;
  }

  /** Declares the projections' large collections, then their indexes. */
  private async ensureIndexes(): Promise<void> {
    for (const projection of this.projections) {
      for (const collection of projection.large ?? []) await this.reads.declareLarge(collection);
      for (const { collection, ...index } of projection.indexes ?? []) await this.reads.ensureIndex(collection, index);
    }
  }
}

/** The collection with its multi-document writes split into rounds of at most `UNTRANSACTED_WRITE_CHUNK` documents, walked by `_id`. */
function inChunks<T extends Doc>(collection: Collection<T>): Collection<T> {
  const chunked = Object.create(collection) as Collection<T>;
  async function eachChunk(filter: Filter, write: (ids: string[]) => Promise<number>): Promise<number> {
    let total = 0;
    let after: string | undefined;
    do {
      // Ids first, by keyset on _id: a write that moves documents out of the filter does not shift the walk.
      const page = await collection.find(filter, { sort: { _id: 1 }, limit: UNTRANSACTED_WRITE_CHUNK, after, count: false });
      if (page.items.length > 0) total += await write(page.items.map((document) => document._id));
      after = page.next;
    } while (after !== undefined);
    return total;
  }
  chunked.updateMany = (filter: Filter, update: Update) =>
    eachChunk(filter, (ids) => collection.updateMany({ $and: [filter, { _id: { $in: ids } }] }, update));
  chunked.deleteMany = (filter: Filter) => eachChunk(filter, (ids) => collection.deleteMany({ $and: [filter, { _id: { $in: ids } }] }));
  return chunked;
}

function fraction(position: LogPosition | null, head: LogPosition | null): number {
  if (head === null || head === 0n) return 1;
  if (position === null) return 0;
  return Math.min(1, Number((position * 10_000n) / head) / 10_000);
}
