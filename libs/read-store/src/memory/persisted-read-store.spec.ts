import { existsSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';
import { readStoreContract } from '../read-store.contract';
import type { Doc } from '../read-store.port';
import { CHECKPOINTS, ProjectionRunner } from '../projections/projection-runner';
import type { Projection } from '../projections/projection';
import { MemoryReadStore } from './memory-read-store';
import { residentKbOfMappedFile } from '../../../../test/support/mapped-memory';

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
  await events.appendToStream(
    stream,
    Array.from({ length: count }, (_, i) => ({ type: 'Happened', data: { i }, metadata: {} })),
    'any',
  );
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
  it('given documents read back from the file, then they are plain objects and arrays of this realm, and queries on arrays answer as before the restart', async () => {
    // Under Jest lmdb's own msgpackr belongs to the first test file of the worker: decoded with it,
    // documents had another realm's Object and Array, and mingo's comparisons on arrays failed.
    const file = directory();
    const first = MemoryReadStore.open(file);
    await first.collection('a').put({ _id: '1', n: [1, 2], nested: { m: [3] } });
    await first.close();
    const second = MemoryReadStore.open(file);
    const doc = (await second.collection('a').get('1')) as Doc & { n: number[]; nested: { m: number[] } };
    expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(doc.n)).toBe(Array.prototype);
    expect(Object.getPrototypeOf(doc.nested.m)).toBe(Array.prototype);
    expect((await second.collection('a').find({ n: [1, 2] })).items.map((found) => found._id)).toEqual(['1']);
    await second.close();
  });

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
    expect({ a: (await second.collection('a').find({})).items, b: (await second.collection('b').find({})).items }).toEqual({
      a: [{ _id: '2', n: 2 }],
      b: [{ _id: '3', n: 3 }],
    });
    await second.close();
  });

  it('given a transaction rolled back and a dropped collection, when the store is opened again, then neither shows', async () => {
    const file = directory();
    const first = MemoryReadStore.open(file);
    await first.collection('kept').put({ _id: '1' });
    await first.collection('dropped').put({ _id: '1' });
    await first
      .transaction(async (tx) => {
        await tx.collection('kept').put({ _id: '2' });
        throw new Error('roll back');
      })
      .catch(() => undefined);
    await first.dropCollections(['dropped']);
    await first.close();
    const second = MemoryReadStore.open(file);
    expect({
      kept: await second.collection('kept').count(),
      dropped: await second.collection('dropped').count(),
      collections: await second.listCollections(),
    }).toEqual({ kept: 1, dropped: 0, collections: ['kept'] });
    await second.close();
  });

  it('given a collection dropped and written again by commits handed to the file together, when the store is opened again, then the later writes are there', async () => {
    const file = directory();
    const first = MemoryReadStore.open(file);
    await first.collection('c').put({ _id: 'old' });
    await first.collection('other').put({ _id: '1' });
    await Promise.all([
      first.dropCollections(['c']),
      first.collection('c').put({ _id: 'new' }),
      first.collection('other').put({ _id: '2' }),
    ]);
    await first.close();
    const second = MemoryReadStore.open(file);
    expect({ c: (await second.collection('c').find({})).items, other: await second.collection('other').count() }).toEqual({
      c: [{ _id: 'new' }],
      other: 2,
    });
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

  describe('releasing mapped pages', () => {
    it('given a file whose documents were read, when its mapped pages are released, then the pages read are no longer resident', async () => {
      const file = directory();
      const writer = MemoryReadStore.open(file);
      await writer.declareLarge('audit');
      const text = 'y'.repeat(8 * 1024);
      await writer.transaction(async (tx) => {
        for (let i = 0; i < 2000; i++) await tx.collection('audit').put({ _id: `a${i}`, text });
      });
      await writer.close();
      const store = MemoryReadStore.open(file);
      await store.declareLarge('audit');
      let read = 0;
      for (let i = 0; i < 2000; i++) if ((await store.collection('audit').get(`a${i}`))?.text === text) read += 1;
      expect(read).toBe(2000);
      const before = residentKbOfMappedFile(join(file, 'data.mdb'));
      if (before === null) return console.log('skipped: no /proc/self/smaps here to see resident mapped pages');
      expect(before).toBeGreaterThan(10_000);
      await store.releaseMappedPages();
      expect(residentKbOfMappedFile(join(file, 'data.mdb'))).toBeLessThan(1_000);
      await store.close();
    });

    it('given commits handed to the file and not written yet, when the pages are released, then everything committed reads back, then and after a restart', async () => {
      const file = directory();
      const store = MemoryReadStore.open(file);
      await store.declareLarge('audit');
      await store.transaction(async (tx) => {
        await tx.collection('kept').put({ _id: 'k1', n: 1 });
        await tx.collection('audit').put({ _id: 'a1', n: 1 });
      });
      await store.releaseMappedPages();
      await store.transaction(async (tx) => {
        await tx.collection('kept').put({ _id: 'k2', n: 2 });
        await tx.collection('audit').put({ _id: 'a2', n: 2 });
      });
      const read = async (reads: MemoryReadStore) => ({
        kept: (await reads.collection('kept').find({})).items,
        audit: (await reads.collection('audit').find({})).items,
      });
      const expected = {
        kept: [
          { _id: 'k1', n: 1 },
          { _id: 'k2', n: 2 },
        ],
        audit: [
          { _id: 'a1', n: 1 },
          { _id: 'a2', n: 2 },
        ],
      };
      expect(await read(store)).toEqual(expected);
      await store.close();
      const reopened = MemoryReadStore.open(file);
      await reopened.declareLarge('audit');
      expect(await read(reopened)).toEqual(expected);
      await reopened.close();
    });

    it('given a transaction queued behind a release, then it waits for the release and commits', async () => {
      const file = directory();
      const store = MemoryReadStore.open(file);
      await store.declareLarge('audit');
      const released = store.releaseMappedPages();
      const committed = store.transaction(async (tx) => {
        await tx.collection('audit').put({ _id: 'a1' });
      });
      await Promise.all([released, committed]);
      expect(await store.collection('audit').get('a1')).toEqual({ _id: 'a1' });
      await store.close();
    });

    it('given a store without a file, then releasing does nothing', async () => {
      const store = new MemoryReadStore();
      await store.collection('a').put({ _id: '1' });
      await store.releaseMappedPages();
      expect(await store.collection('a').get('1')).toEqual({ _id: '1' });
      await store.close();
    });
  });

  describe('loading a large file', () => {
    /** A file with `count` documents in `big` and one in `small`. */
    async function fileWith(count: number): Promise<string> {
      const file = directory();
      const store = MemoryReadStore.open(file);
      await store.transaction(async (tx) => {
        for (let n = 0; n < count; n++) await tx.collection('big').put({ _id: `d${String(n).padStart(5, '0')}`, n, group: n % 3 });
        await tx.collection('small').put({ _id: 'only', n: 0 });
      });
      await store.close();
      return file;
    }

    it('given a collection larger than a loading chunk, when it is first read, then every document is there', async () => {
      const store = MemoryReadStore.open(await fileWith(4500));
      expect(await store.collection('big').count()).toBe(4500);
      expect(await store.collection('big').get('d04499')).toEqual({ _id: 'd04499', n: 4499, group: 2 });
      await store.close();
    });

    it('given an index declared before the collection is used, when it is used, then the index holds (a unique one refuses a duplicate)', async () => {
      const store = MemoryReadStore.open(await fileWith(10));
      await store.ensureIndex('big', { fields: { n: 1 }, unique: true });
      await expect(store.collection('big').insert({ _id: 'other', n: 3, group: 0 })).rejects.toThrow(/duplicate/i);
      expect((await store.collection('big').findOne({ n: 3 }))?._id).toBe('d00003');
      await store.close();
    });

    it('given collections not used yet, then they are listed, and one dropped before use is gone at the next open', async () => {
      const file = await fileWith(10);
      const store = MemoryReadStore.open(file);
      expect(await store.listCollections()).toEqual(['big', 'small']);
      await store.dropCollections(['big']);
      expect(await store.listCollections()).toEqual(['small']);
      await store.close();
      const again = MemoryReadStore.open(file);
      expect(await again.listCollections()).toEqual(['small']);
      expect(await again.collection('big').count()).toBe(0);
      await again.close();
    });

    it('given no request for the background, then nothing is loaded that was not used', async () => {
      const store = MemoryReadStore.open(await fileWith(4500));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(store.loaded).toBe(false);
      await store.close();
    });

    it('given collections not loaded yet, then health says so while ok, and says nothing once the background has loaded them', async () => {
      const store = MemoryReadStore.open(await fileWith(4500));
      expect(await store.health()).toEqual({ ok: true, detail: '2 read model collection(s) not in memory yet, each loaded on first use' });
      store.loadInBackground();
      expect(await store.health()).toEqual({ ok: true, detail: '2 read model collection(s) not in memory yet, loading in the background' });
      await untilLoaded(store);
      expect(await store.health()).toEqual({ ok: true });
      await store.close();
    });

    it('given the background started and time for it, then every collection is loaded without being asked for', async () => {
      const store = MemoryReadStore.open(await fileWith(4500));
      store.loadInBackground();
      await untilLoaded(store);
      expect(store.loaded).toBe(true);
      expect(await store.collection('small').get('only')).toEqual({ _id: 'only', n: 0 });
      expect(await store.collection('big').count()).toBe(4500);
      await store.close();
    });
  });
  describe('dropping by writing what is kept to a new file', () => {
    /** A file with a large collection `audit` (indexed by `n`), a collection `big` of 300 documents of 4 KB, and `kept`. */
    async function filled(file: string): Promise<void> {
      const store = MemoryReadStore.open(file);
      await store.declareLarge('audit');
      await store.ensureIndex('audit', { fields: { n: 1 } });
      await store.declareLarge('trail');
      const text = 'z'.repeat(4096);
      await store.transaction(async (tx) => {
        for (let i = 0; i < 300; i++) await tx.collection('big').put({ _id: `b${i}`, text });
        for (let i = 0; i < 300; i++) await tx.collection('trail').put({ _id: `t${i}`, text });
        for (let i = 0; i < 5; i++) await tx.collection('audit').put({ _id: `a${i}`, n: 5 - i });
        await tx.collection('kept').put({ _id: 'k1', n: 1 });
      });
      await store.close();
    }

    const dataFile = (file: string) => statSync(join(file, 'data.mdb')).size;
    const leftovers = (file: string) => readdirSync(dirname(file)).filter((entry) => entry.startsWith(`${basename(file)}-`));

    it('given dropped collections holding most of the file, then what is kept reads back, then and after a restart, and the file shrinks to it', async () => {
      const file = directory();
      await filled(file);
      const before = dataFile(file);
      const store = MemoryReadStore.open(file);
      await store.declareLarge('audit');
      await store.dropCollections(['big', 'trail']);
      const read = async (reads: MemoryReadStore) => ({
        collections: await reads.listCollections(),
        kept: await reads.collection('kept').get('k1'),
        audit: (await reads.collection('audit').find({}, { sort: { n: 1 }, limit: 2 })).items.map((doc) => doc._id),
        big: await reads.collection('big').count(),
      });
      const expected = { collections: ['audit', 'kept'], kept: { _id: 'k1', n: 1 }, audit: ['a4', 'a3'], big: 0 };
      expect(await read(store)).toEqual(expected);
      await store.close();
      expect(dataFile(file)).toBeLessThan(before / 4);
      expect(leftovers(file)).toEqual([]);
      const reopened = MemoryReadStore.open(file);
      await reopened.declareLarge('audit');
      expect(await read(reopened)).toEqual(expected);
      await reopened.close();
    });

    it('given a file replaced by a drop, then later commits, releases of mapped pages and a second drop land in the new file', async () => {
      const file = directory();
      await filled(file);
      const store = MemoryReadStore.open(file);
      await store.dropCollections(['big']);
      await store.collection('kept').put({ _id: 'k2', n: 2 });
      await store.releaseMappedPages();
      await store.collection('kept').put({ _id: 'k3', n: 3 });
      await store.dropCollections(['trail']);
      await store.collection('kept').put({ _id: 'k4', n: 4 });
      await store.close();
      const reopened = MemoryReadStore.open(file);
      expect({
        collections: await reopened.listCollections(),
        kept: (await reopened.collection('kept').find({})).items.map((doc) => doc._id),
      }).toEqual({
        collections: ['audit', 'kept'],
        kept: ['k1', 'k2', 'k3', 'k4'],
      });
      await reopened.close();
      expect(leftovers(file)).toEqual([]);
    });

    it('given more kept than a new file takes, then the drop removes the dropped keys from the file instead, which does not shrink', async () => {
      const file = directory();
      await filled(file);
      const before = dataFile(file);
      const store = MemoryReadStore.open(file, { rewriteKeptLimit: 10 });
      await store.dropCollections(['big', 'trail']);
      await store.close();
      expect(dataFile(file)).toBeGreaterThanOrEqual(before);
      const reopened = MemoryReadStore.open(file);
      await reopened.declareLarge('audit');
      expect({
        collections: await reopened.listCollections(),
        audit: await reopened.collection('audit').count(),
        kept: await reopened.collection('kept').count(),
      }).toEqual({
        collections: ['audit', 'kept'],
        audit: 5,
        kept: 1,
      });
      await reopened.close();
    });

    /** Two files: `file` holds `kept` with `{ _id: 'old' }`, `other` holds it with `{ _id: 'new' }`. */
    async function twoFiles(): Promise<{ file: string; other: string }> {
      const file = directory();
      const other = directory();
      for (const [path, id] of [
        [file, 'old'],
        [other, 'new'],
      ]) {
        const store = MemoryReadStore.open(path);
        await store.collection('kept').put({ _id: id });
        await store.close();
      }
      return { file, other };
    }
    const keptIds = async (file: string) => {
      const store = MemoryReadStore.open(file);
      const ids = (await store.collection('kept').find({})).items.map((doc) => doc._id);
      await store.close();
      return { ids, leftovers: leftovers(file) };
    };

    it('given a new file left beside the file by a crash before the renames, when opened, then the file is the old one and the new one is removed', async () => {
      const { file, other } = await twoFiles();
      renameSync(other, `${file}-next-1-2-3`);
      expect(await keptIds(file)).toEqual({ ids: ['old'], leftovers: [] });
    });

    it('given a crash between the two renames, when opened, then the new file takes the name and the old one is removed', async () => {
      const { file, other } = await twoFiles();
      renameSync(file, `${file}-old-1-2-3`);
      renameSync(other, `${file}-next-1-2-3`);
      expect(await keptIds(file)).toEqual({ ids: ['new'], leftovers: [] });
    });

    it('given a crash after the renames, before the old file was removed, when opened, then the old file is removed', async () => {
      const { file, other } = await twoFiles();
      renameSync(other, `${file}-old-1-2-3`);
      expect(await keptIds(file)).toEqual({ ids: ['old'], leftovers: [] });
      expect(existsSync(`${file}-old-1-2-3`)).toBe(false);
    });
  });
});

/** Waits for the background load, however long the machine takes (the test's own time-out bounds it). */
async function untilLoaded(store: MemoryReadStore): Promise<void> {
  while (!store.loaded) await new Promise((resolve) => setTimeout(resolve, 10));
}
