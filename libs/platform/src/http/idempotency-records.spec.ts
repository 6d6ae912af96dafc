import { MemoryReadStore } from '#read-store/memory/memory-read-store';
import { expiresAt, type IdempotencyRecord } from './idempotency-key';
import { IDEMPOTENCY_COLLECTION, ReadStoreIdempotencyRecords } from './idempotency-records';

const NOW = new Date('2026-01-01T12:00:00.000Z');
const HOUR_MS = 60 * 60 * 1000;
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);

const inProgress = (id: string, scope = 'token:t1', createdAt = NOW): IdempotencyRecord => ({
  _id: id,
  scope,
  fingerprint: 'f',
  state: 'in-progress',
  createdAt: createdAt.toISOString(),
  expiresAt: expiresAt(createdAt, HOUR_MS),
});

const RESPONSE = { status: 201, headers: {}, body: '{}' };

describe('Idempotency-Key records in the read store', () => {
  let reads: MemoryReadStore;
  beforeEach(() => {
    reads = new MemoryReadStore();
  });
  afterEach(() => reads.close());

  it('given a free key, then the claim holds it in progress', async () => {
    const records = new ReadStoreIdempotencyRecords(reads);
    expect(await records.claim(inProgress('k'), NOW)).toBe(true);
    expect(await records.get('k')).toMatchObject({ state: 'in-progress' });
  });

  it('given a live record, then a second claim fails', async () => {
    const records = new ReadStoreIdempotencyRecords(reads);
    await records.claim(inProgress('k'), NOW);
    expect(await records.claim(inProgress('k'), at(1))).toBe(false);
  });

  it('given two claims at once, then exactly one holds the key', async () => {
    const records = new ReadStoreIdempotencyRecords(reads);
    const claims = await Promise.all([records.claim(inProgress('k'), NOW), records.claim(inProgress('k'), NOW)]);
    expect(claims.sort()).toEqual([false, true]);
  });

  it('given an expired record, then the key can be claimed again', async () => {
    const records = new ReadStoreIdempotencyRecords(reads);
    await records.claim(inProgress('k'), NOW);
    await records.complete('k', RESPONSE);
    expect(await records.claim(inProgress('k', 'token:t1', at(60)), at(60))).toBe(true);
    expect(await records.get('k')).toMatchObject({ state: 'in-progress', createdAt: at(60).toISOString() });
  });

  it('a completed record keeps the answer', async () => {
    const records = new ReadStoreIdempotencyRecords(reads);
    await records.claim(inProgress('k'), NOW);
    await records.complete('k', RESPONSE);
    expect(await records.get('k')).toMatchObject({ state: 'completed', response: RESPONSE });
  });

  it('a released claim frees the key', async () => {
    const records = new ReadStoreIdempotencyRecords(reads);
    await records.claim(inProgress('k'), NOW);
    await records.release('k');
    expect(await records.get('k')).toBeNull();
  });

  it('a sweep forgets the expired records only', async () => {
    const records = new ReadStoreIdempotencyRecords(reads);
    await records.claim(inProgress('old', 'token:t1', NOW), NOW);
    await records.claim(inProgress('new', 'token:t1', at(30)), at(30));
    expect(await records.sweep(at(60))).toBe(1);
    expect((await reads.collection(IDEMPOTENCY_COLLECTION).find({})).items.map((doc) => doc._id)).toEqual(['new']);
  });

  it('past the cap per caller, the caller’s oldest completed records are forgotten, not another caller’s', async () => {
    const records = new ReadStoreIdempotencyRecords(reads, { perCaller: 2, total: 100 });
    for (const [minute, id] of ['a1', 'a2'].entries()) {
      await records.claim(inProgress(id, 'token:a', at(minute)), at(minute));
      await records.complete(id, RESPONSE);
    }
    await records.claim(inProgress('b1', 'token:b', at(2)), at(2));
    await records.complete('b1', RESPONSE);
    await records.claim(inProgress('a3', 'token:a', at(3)), at(3));
    const kept = (await reads.collection(IDEMPOTENCY_COLLECTION).find({}, { sort: { _id: 1 } })).items.map((doc) => doc._id);
    expect(kept).toEqual(['a2', 'a3', 'b1']);
  });

  it('past the total cap, the oldest completed records are forgotten; records in progress are kept', async () => {
    const records = new ReadStoreIdempotencyRecords(reads, { perCaller: 100, total: 2 });
    await records.claim(inProgress('running', 'token:a', at(0)), at(0));
    await records.claim(inProgress('done', 'token:b', at(1)), at(1));
    await records.complete('done', RESPONSE);
    await records.claim(inProgress('new', 'token:c', at(2)), at(2));
    const kept = (await reads.collection(IDEMPOTENCY_COLLECTION).find({}, { sort: { _id: 1 } })).items.map((doc) => doc._id);
    expect(kept).toEqual(['new', 'running']);
  });
});
