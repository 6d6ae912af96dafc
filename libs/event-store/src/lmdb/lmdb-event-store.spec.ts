import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import type { SubscriptionMessage } from '../event-store.port';
import { eventStoreContract } from '../event-store.contract';
import { DataDirectoryLockedError } from '../errors';
import { LmdbEventStore } from './lmdb-event-store';
import { residentKbOfMappedFile } from '../../../../test/support/mapped-memory';

const directories: string[] = [];
const freshDirectory = () => {
  const directory = mkdtempSync(join(tmpdir(), 'lmdb-events-'));
  directories.push(directory);
  return directory;
};
afterAll(() => directories.forEach((d) => rmSync(d, { recursive: true, force: true })));

eventStoreContract('lmdb', async () => LmdbEventStore.open(freshDirectory()));

describe('LMDB event store', () => {
  it('given a directory held by an open store, when opening it again, then it is refused with a clear error', async () => {
    const directory = freshDirectory();
    const first = LmdbEventStore.open(directory);
    expect(() => LmdbEventStore.open(directory)).toThrow(DataDirectoryLockedError);
    expect(() => LmdbEventStore.open(directory)).toThrow(
      new RegExp(`in use by process ${process.pid}; stop the other service using it, or choose another DATA_DIR`),
    );
    await first.close();
    const second = LmdbEventStore.open(directory);
    await second.close();
  });

  it('given a closed store, when reopened, then every event and stream revision is still there', async () => {
    const directory = freshDirectory();
    const store = LmdbEventStore.open(directory);
    await store.appendToStream('space-a', [{ type: 'SpaceCreated', data: { title: 'A' } }], 'no_stream');
    await store.appendToStream(
      'space-b',
      [
        { type: 'SpaceCreated', data: { title: 'B' } },
        { type: 'SpaceRenamed', data: { title: 'C' } },
      ],
      'no_stream',
    );
    await store.close();
    const reopened = LmdbEventStore.open(directory);
    expect(await reopened.streamRevision('space-b')).toBe(1);
    expect((await reopened.readAll()).map((e) => [e.position, e.streamId, e.type])).toEqual([
      [1n, 'space-a', 'SpaceCreated'],
      [2n, 'space-b', 'SpaceCreated'],
      [3n, 'space-b', 'SpaceRenamed'],
    ]);
    const next = await reopened.appendToStream('space-a', [{ type: 'SpaceDeleted', data: {} }], 0);
    expect(next.position).toBe(4n);
    await reopened.close();
  });

  it('given a log written without the type index, when opened, then filtered subscriptions find every event of their types', async () => {
    const directory = freshDirectory();
    const store = LmdbEventStore.open(directory);
    for (let i = 0; i < 30; i++)
      await store.appendToStream(`space-${i}`, [{ type: i % 3 === 0 ? 'Kept' : 'Skipped', data: { i } }], 'no_stream');
    await store.close();
    // As a version before the index left it: neither the index nor its marker.
    const raw = open({ path: directory, maxDbs: 6 });
    await raw.openDB({ name: 'type-index' }).drop();
    await raw.openDB({ name: 'meta' }).drop();
    await raw.close();

    const reopened = LmdbEventStore.open(directory);
    const subscription = reopened.subscribeToAll({ types: ['Kept'] });
    const received: SubscriptionMessage[] = [];
    for await (const message of subscription) {
      received.push(message);
      if (message.kind === 'caughtUp') break;
    }
    await subscription.close();
    const kept = received.flatMap((message) => (message.kind === 'event' ? [(message.event.data as { i: number }).i] : []));
    expect(kept).toEqual([0, 3, 6, 9, 12, 15, 18, 21, 24, 27]);
    expect(received.at(-1)).toEqual({ kind: 'caughtUp', position: 30n });
    await reopened.close();
  });

  it('given more events of the subscribed types than a page, then they arrive in log order across pages, each once', async () => {
    const store = LmdbEventStore.open(freshDirectory());
    const types = ['A', 'B', 'C'];
    await store.appendToStream(
      'mix-1',
      Array.from({ length: 900 }, (_, i) => ({ type: types[i % 3], data: { i } })),
      'no_stream',
    );
    await store.appendToStream(
      'mix-2',
      Array.from({ length: 900 }, (_, i) => ({ type: types[(i + 1) % 3], data: { i: 900 + i } })),
      'no_stream',
    );
    const subscription = store.subscribeToAll({ types: ['A', 'C'] });
    const positions: bigint[] = [];
    for await (const message of subscription) {
      if (message.kind === 'event') positions.push(message.event.position);
      if (message.kind === 'caughtUp') break;
    }
    await subscription.close();
    const expected = await store.readAll({ maxCount: 10_000 });
    expect(positions).toEqual(expected.filter((event) => event.type !== 'B').map((event) => event.position));
    await store.close();
  });

  describe('releasing mapped pages', () => {
    const bigPayload = 'x'.repeat(16 * 1024);

    it('given a log read from start to end, when its mapped pages are released, then the pages read are no longer resident', async () => {
      const directory = freshDirectory();
      const store = LmdbEventStore.open(directory);
      for (let i = 0; i < 20; i++)
        await store.appendToStream(
          `big-${i}`,
          Array.from({ length: 50 }, () => ({ type: 'Big', data: { bigPayload } })),
          'no_stream',
        );
      const file = join(directory, 'data.mdb');
      let read = 0;
      for (let after: bigint | undefined; ;) {
        const page = await store.readAll({ after, maxCount: 200 });
        if (page.length === 0) break;
        read += page.length;
        after = page[page.length - 1].position;
      }
      expect(read).toBe(1000);
      const before = residentKbOfMappedFile(file);
      if (before === null) return console.log('skipped: no /proc/self/smaps here to see resident mapped pages');
      expect(before).toBeGreaterThan(10_000);
      await store.releaseMappedPages();
      expect(residentKbOfMappedFile(file)).toBeLessThan(1_000);
      await store.close();
    });

    it('given a release in progress, when appending and reading at the same time, then both wait for it and succeed', async () => {
      const store = LmdbEventStore.open(freshDirectory());
      await store.appendToStream('space-a', [{ type: 'SpaceCreated', data: { title: 'A' } }], 'no_stream');
      const released = store.releaseMappedPages();
      const appended = store.appendToStream('space-a', [{ type: 'SpaceRenamed', data: { title: 'B' } }], 0);
      const revision = store.streamRevision('space-a');
      const stream = store.readStream('space-a');
      await released;
      expect((await appended).position).toBe(2n);
      expect(await revision).toBe(0);
      expect((await stream).map((event) => event.type)).toEqual(['SpaceCreated']);
      expect((await store.readAll()).map((event) => event.type)).toEqual(['SpaceCreated', 'SpaceRenamed']);
      await store.close();
    });

    it('given an append in flight, when the pages are released, then the append is written and durable', async () => {
      const directory = freshDirectory();
      const store = LmdbEventStore.open(directory);
      const appended = store.appendToStream('space-a', [{ type: 'SpaceCreated', data: { title: 'A' } }], 'no_stream');
      await Promise.resolve();
      await store.releaseMappedPages();
      expect((await appended).position).toBe(1n);
      await store.close();
      const reopened = LmdbEventStore.open(directory);
      expect((await reopened.readAll()).map((event) => event.type)).toEqual(['SpaceCreated']);
      await reopened.close();
    });

    it('given a subscription part way through the log, when the pages are released, then it goes on from where it was, each event once', async () => {
      const store = LmdbEventStore.open(freshDirectory());
      await store.appendToStream(
        'many-1',
        Array.from({ length: 1200 }, (_, i) => ({ type: i % 2 ? 'Odd' : 'Even', data: { i } })),
        'no_stream',
      );
      const all = store.subscribeToAll();
      const evens = store.subscribeToAll({ types: ['Even'] });
      const seen = { all: [] as number[], evens: [] as number[] };
      const drain = async (subscription: typeof all, into: number[]) => {
        for await (const message of subscription) {
          if (message.kind === 'event') into.push((message.event.data as { i: number }).i);
          if (message.kind === 'caughtUp') break;
          // Part way through the first page and again in the second.
          if (into.length === 300 || into.length === 700) await store.releaseMappedPages();
        }
        await subscription.close();
      };
      await drain(all, seen.all);
      await drain(evens, seen.evens);
      expect(seen.all).toEqual(Array.from({ length: 1200 }, (_, i) => i));
      expect(seen.evens).toEqual(Array.from({ length: 600 }, (_, i) => 2 * i));
      await store.close();
    });
  });

  it('given a closed store, then calls fail as unavailable', async () => {
    const store = LmdbEventStore.open(freshDirectory());
    await store.close();
    await expect(store.readAll()).rejects.toMatchObject({ name: 'EventStoreUnavailableError' });
    expect((await store.health()).ok).toBe(false);
  });
});
