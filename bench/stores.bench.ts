/**
 * `npm run bench:stores`: throughput of the embedded stores, with raw lmdb puts as the physical
 * reference measured in the same run on the same disk.
 *
 * - durable appends/s with 1, 10 and 100 concurrent appenders (one event per append, each appender
 *   on its own stream with its exact expected revision);
 * - whole-log read rate (readAll pages);
 * - replay rate of projections into the memory read store (ProjectionRunner.rebuild);
 * - raw lmdb: the same number of concurrent writers doing a plain `put` and awaiting the flush.
 *
 * Targets (docs/architecture.md, Benchmarks): ≥ 20,000 appends/s at 100 appenders; replay ≥ 100,000 events/s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';
import { MemoryReadStore } from '#read-store/memory/memory-read-store';
import { documentProjection, type DomainEvent, type ProjectedDoc, type Projection } from '#read-store/projections/projection';
import { ProjectionRunner } from '#read-store/projections/projection-runner';
import { readLog } from './support/read-log';
import { positive, positiveInteger } from './support/settings';

const SECONDS = positive('BENCH_SECONDS', 3);
const REPLAY_EVENTS = positiveInteger('BENCH_REPLAY_EVENTS', 200_000);
const payload = { title: 'A page title of ordinary length', emoji: '📘', parent: 'c0ffee', position: 12, tags: ['a', 'b'] };
const metadata = {
  actor: { type: 'user', id: 'u123', label: 'Ada' },
  source: 'api',
  occurredAt: new Date().toISOString(),
  requestId: 'r1',
  correlationId: 'c1',
  causationId: 'c1',
  schemaVersion: 1,
};

interface Row {
  name: string;
  perSecond: number;
  reference?: number;
  target?: number;
}

async function concurrently(workers: number, seconds: number, work: (worker: number, i: number) => Promise<void>): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      for (let i = 0; performance.now() < deadline; i++) {
        await work(worker, i);
        done++;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

async function rawLmdbPuts(directory: string, workers: number): Promise<number> {
  const db = open({ path: directory, encoding: 'msgpack' });
  const value = JSON.stringify({ type: 'SpaceCreated', data: payload, metadata });
  const rate = await concurrently(workers, SECONDS, async (worker, i) => {
    await db.put(`${worker}/${i}`, value);
    await db.flushed;
  });
  await db.close();
  return rate;
}

async function appends(directory: string, workers: number): Promise<number> {
  const store = LmdbEventStore.open(directory);
  const rate = await concurrently(workers, SECONDS, async (worker, i) => {
    await store.appendToStream(`bench-w${worker}`, [{ type: 'SpaceCreated', data: payload, metadata }], i === 0 ? 'no_stream' : i - 1);
  });
  await store.close();
  return rate;
}

async function seedLog(directory: string, count: number): Promise<void> {
  const store = LmdbEventStore.open(directory);
  const perStream = 10;
  const inFlight: Promise<unknown>[] = [];
  for (let s = 0; s < count / perStream; s++) {
    const events = Array.from({ length: perStream }, (_, i) => ({
      type: i === 0 ? 'SpaceCreated' : 'SpaceRenamed',
      data: { ...payload, title: `Space ${s} v${i}` },
      metadata,
    }));
    inFlight.push(store.appendToStream(`space-s${s}`, events, 'no_stream'));
    if (inFlight.length === 200) await Promise.all(inFlight.splice(0));
  }
  await Promise.all(inFlight);
  await store.close();
}

interface SpaceDoc extends ProjectedDoc {
  title: string;
  versions: number;
}
const spaces = documentProjection<DomainEvent, SpaceDoc>({
  name: 'spaces',
  collection: 'spaces',
  handles: ['SpaceCreated', 'SpaceRenamed'],
  documentId: (event) => event.streamId,
  evolve: (doc, event) => ({ _id: event.streamId, title: (event.data as { title: string }).title, versions: (doc?.versions ?? 0) + 1 }),
});
const counters: Projection = {
  name: 'counters',
  collections: ['counters'],
  async apply(event, tx) {
    await tx.collection('counters').update(event.type, { $inc: { count: 1 } }, { upsert: true });
  },
};

async function replayRate(directory: string): Promise<{ rate: number; count: number }> {
  const store = LmdbEventStore.open(directory);
  const reads = new MemoryReadStore();
  const runner = new ProjectionRunner(store, reads, [spaces, counters], { batchSize: 1000 });
  const started = performance.now();
  const { applied } = await runner.rebuild();
  const rate = applied / ((performance.now() - started) / 1000);
  await store.close();
  await reads.close();
  return { rate, count: applied };
}

function format(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'bench-stores-'));
  const dir = (name: string) => join(root, name);
  const rows: Row[] = [];
  try {
    const raw = new Map<number, number>();
    for (const workers of [1, 10, 100]) {
      raw.set(workers, await rawLmdbPuts(dir(`raw-${workers}`), workers));
      rows.push({ name: `raw lmdb put+flush, ${workers} writer(s)`, perSecond: raw.get(workers)! });
    }
    for (const workers of [1, 10, 100]) {
      rows.push({
        name: `LMDB appends, ${workers} appender(s)`,
        perSecond: await appends(dir(`append-${workers}`), workers),
        reference: raw.get(workers),
        target: workers === 100 ? 20_000 : undefined,
      });
    }
    await seedLog(dir('log'), REPLAY_EVENTS);
    rows.push({
      name: `whole-log read (${format(REPLAY_EVENTS)} events)`,
      perSecond: await readLog(dir('log')).then(({ events, seconds }) => events / seconds),
    });
    const replay = await replayRate(dir('log'));
    rows.push({ name: `replay into memory read store (${format(replay.count)} events)`, perSecond: replay.rate, target: 100_000 });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const width = Math.max(...rows.map((r) => r.name.length));
  console.log(`\nbench:stores  (node ${process.version}, ${SECONDS}s per rate)\n`);
  console.log(`${'measure'.padEnd(width)}  ${'per second'.padStart(12)}  ${'vs raw lmdb'.padStart(11)}  target`);
  for (const row of rows) {
    const ratio = row.reference ? `${((row.perSecond / row.reference) * 100).toFixed(0)}%` : '';
    const target = row.target ? `${row.perSecond >= row.target ? 'met' : 'MISSED'} (≥ ${format(row.target)})` : '';
    console.log(`${row.name.padEnd(width)}  ${format(row.perSecond).padStart(12)}  ${ratio.padStart(11)}  ${target}`);
  }
  const missed = rows.filter((r) => r.target && r.perSecond < r.target);
  if (missed.length > 0) process.exitCode = 1;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
