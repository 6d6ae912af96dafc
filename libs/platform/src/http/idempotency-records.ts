import type { Doc, ReadStore } from '#read-store/read-store.port';
import type { IdempotencyRecord, StoredResponse } from './idempotency-key';

/** Where the answers of POSTs with an `Idempotency-Key` are kept (idempotency.ts). */
export interface IdempotencyRecords {
  get(id: string): Promise<IdempotencyRecord | null>;
  /**
   * Records the key as in progress, unless a live record holds it (false). Resolves once the record
   * would survive the process being killed, so that a retry after a crash cannot run the request again.
   */
  claim(record: IdempotencyRecord, now: Date): Promise<boolean>;
  /** The request's answer; resolves once it is as durable as the claim. */
  complete(id: string, response: StoredResponse): Promise<void>;
  /** Forgets a claim whose request may run again (it failed with a server error). */
  release(id: string): Promise<void>;
  /** Forgets the expired records; how many. */
  sweep(now: Date): Promise<number>;
}

export interface IdempotencyLimits {
  /** Records kept per caller: past it, the caller's oldest completed ones are forgotten. */
  perCaller: number;
  /** Records kept in all: past it, the oldest completed ones are forgotten. */
  total: number;
}

export const DEFAULT_IDEMPOTENCY_LIMITS: IdempotencyLimits = { perCaller: 1000, total: 10_000 };

export const IDEMPOTENCY_COLLECTION = '_idempotency';

type RecordDoc = IdempotencyRecord & Doc;

/**
 * The records in the read store, beside the read models but owned by no projection (a rebuild of the
 * read models keeps them): embedded, in the read-model file, which keeps them across restarts;
 * distributed, in MongoDB, where `insert` on the unique `_id` settles a race between replicas.
 */
export class ReadStoreIdempotencyRecords implements IdempotencyRecords {
  private indexes: Promise<void> | null = null;

  constructor(
    private readonly reads: ReadStore,
    private readonly limits: IdempotencyLimits = DEFAULT_IDEMPOTENCY_LIMITS,
  ) {}

  private get records() {
    return this.reads.collection<RecordDoc>(IDEMPOTENCY_COLLECTION);
  }

  /** Declared on first use: at start the read store belongs to the projections' catch-up. */
  private ready(): Promise<void> {
    this.indexes ??= (async () => {
      await this.reads.ensureIndex(IDEMPOTENCY_COLLECTION, { fields: { scope: 1, createdAt: 1 } });
      await this.reads.ensureIndex(IDEMPOTENCY_COLLECTION, { fields: { state: 1, createdAt: 1 } });
      await this.reads.ensureIndex(IDEMPOTENCY_COLLECTION, { fields: { expiresAt: 1 } });
    })();
    return this.indexes;
  }

  async get(id: string): Promise<IdempotencyRecord | null> {
    await this.ready();
    return this.records.get(id);
  }

  async claim(record: IdempotencyRecord, now: Date): Promise<boolean> {
    await this.ready();
    // An expired record frees its key; a live one is left alone (the delete is conditional).
    await this.records.deleteMany({ _id: record._id, expiresAt: { $lte: now.toISOString() } });
    try {
      await this.records.insert({ ...record });
    } catch (error) {
      if ((error as { name?: string }).name === 'DuplicateKeyError') return false;
      throw error;
    }
    await this.evictOver(this.limits.perCaller, { scope: record.scope, state: 'completed' }, { scope: record.scope });
    await this.evictOver(this.limits.total, { state: 'completed' }, {});
    await this.durable();
    return true;
  }

  async complete(id: string, response: StoredResponse): Promise<void> {
    await this.records.update(id, { $set: { state: 'completed', response } });
    await this.durable();
  }

  async release(id: string): Promise<void> {
    await this.records.delete(id);
    await this.durable();
  }

  async sweep(now: Date): Promise<number> {
    await this.ready();
    return this.records.deleteMany({ expiresAt: { $lte: now.toISOString() } });
  }

  /** Forgets the oldest completed records matching `evictable` while those matching `counted` are over `limit`. */
  private async evictOver(limit: number, evictable: Record<string, unknown>, counted: Record<string, unknown>): Promise<void> {
    const excess = (await this.records.count(counted)) - limit;
    if (excess <= 0) return;
    const oldest = await this.records.find(evictable, { sort: { createdAt: 1 }, limit: Math.min(excess, 1000), count: false });
    for (const record of oldest.items) await this.records.delete(record._id);
  }

  /**
   * The embedded read store hands its commits to its file without waiting: waiting here makes the
   * record survive a kill of the process once this resolves (not a power loss: the file's commits
   * are not flushed one by one). MongoDB acknowledges durable writes itself.
   */
  private async durable(): Promise<void> {
    await (this.reads as { whenWritten?: () => Promise<void> }).whenWritten?.();
  }
}
