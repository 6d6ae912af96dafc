import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LmdbEventStore } from '../../../event-store/src/lmdb/lmdb-event-store';
import { readStoreContract } from '../read-store.contract';
import type { Doc } from '../read-store.port';
import { CHECKPOINTS, ProjectionRunner } from '../projections/projection-runner';
import type { Projection } from '../projections/projection';
import { MemoryReadStore } from './memory-read-store';

const directories: string[] = [];
function directory(): string {
  const made = mkdtempSync(join(tmpdir(), 'persisted-read-store-'));
  directories.push(made);
  return made;
}
afterAll(() => directories.forEach((made) => rmSync(made, { recursive: true, force: true })));

readStoreContract('memory on an LMDB file', async () => MemoryReadStore.open(directory()));

/** Counts every application of an event, so that a replay shows as a count above the log's length. */
function counting(version = 0): Projection {
  return {
    name: 'applications',
    version,
    collections: ['applications'],
    async apply(_event, tx) {
      await tx.collection('applications').update('all', { $inc: { applied: 1 } }, { upsert: true });
    },
  };
}

async function append(events: LmdbEventStore, stream: string, count: number): Promise<void> {
  await events.appendToStream(stream, Array.from({ length: count }, (_, i) => ({ type: 'Happened', data: { i }, metadata: {} })), 'any');
}

async function runOnce(data: string, projection: Projection): Promise<{ applied: number; checkpoint: string | null }> {
  const events = LmdbEventStore.open(join(data, 'events'));
  const reads = MemoryReadStore.open(join(data, 'readmodels'));
  const runner = new ProjectionRunner(events, reads, [projection], { rebuildWhenChanged: true, batchSize: 7 });
  await runner.start();
  await runner.whenCaughtUp();
  await runner.stop();
  const applied = ((await reads.collection<Doc & { applied: number }>('applications').get('all'))?.applied ?? 0) as number;
  const checkpoint = ((await reads.collection<Doc & { position: string }>(CHECKPOINTS).get('main'))?.position ?? null) as string | null;
  await reads.close();
  await events.close();
  return { applied, checkpoint };
}

describe('MemoryReadStore on an LMDB file', () => {
  it('given committed documents, when the store is opened again on the same file, then they are there', async () => {
    const file = directory();
    const first = MemoryReadStore.open(file);
    await first.collection('a').put({ _id: '1', n: 1 });
    await first.transaction(async (tx) => {
      await tx.collection('a').put({ _id: '2', n: 2 });
      await tx.collection('b').put({ _id: '3', n: 3 });
    });
    await first.collection('a').delete('1');
    await first.close();
    const second = MemoryReadStore.open(file);
    expect({ a: (await second.collection('a').find({})).items, b: (await second.collection('b').find({})).items }).toEqual({ a: [{ _id: '2', n: 2 }], b: [{ _id: '3', n: 3 }] });
    await second.close();
  });

  it('given a transaction rolled back and a dropped collection, when the store is opened again, then neither shows', async () => {
    const file = directory();
    const first = MemoryReadStore.open(file);
    await first.collection('kept').put({ _id: '1' });
    await first.collection('dropped').put({ _id: '1' });
    await first.transaction(async (tx) => {
      await tx.collection('kept').put({ _id: '2' });
      throw new Error('roll back');
    }).catch(() => undefined);
    await first.dropCollection('dropped');
    await first.close();
    const second = MemoryReadStore.open(file);
    expect({ kept: await second.collection('kept').count(), dropped: await second.collection('dropped').count(), collections: await second.listCollections() }).toEqual({ kept: 1, dropped: 0, collections: ['kept'] });
    await second.close();
  });

  it('given read models written up to a checkpoint, when the runner starts again, then it resumes from the checkpoint without replaying', async () => {
    const data = directory();
    const events = LmdbEventStore.open(join(data, 'events'));
    await append(events, 's-1', 20);
    await events.close();
    expect(await runOnce(data, counting())).toEqual({ applied: 20, checkpoint: '20' });
    const more = LmdbEventStore.open(join(data, 'events'));
    await append(more, 's-2', 5);
    await more.close();
    expect(await runOnce(data, counting())).toEqual({ applied: 25, checkpoint: '25' });
  });

  it('given read models written by another version of a projection, when the runner starts, then it replays the log into fresh ones', async () => {
    const data = directory();
    const events = LmdbEventStore.open(join(data, 'events'));
    await append(events, 's-1', 10);
    await events.close();
    await runOnce(data, counting(1));
    expect(await runOnce(data, counting(2))).toEqual({ applied: 10, checkpoint: '10' });
  });
});
