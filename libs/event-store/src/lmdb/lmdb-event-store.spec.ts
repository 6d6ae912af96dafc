import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import type { SubscriptionMessage } from '../event-store.port';
import { eventStoreContract } from '../event-store.contract';
import { DataDirectoryLockedError } from '../errors';
import { LmdbEventStore } from './lmdb-event-store';

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
    expect(() => LmdbEventStore.open(directory)).toThrow(/in use by process/);
    await first.close();
    const second = LmdbEventStore.open(directory);
    await second.close();
  });

  it('given a closed store, when reopened, then every event and stream revision is still there', async () => {
    const directory = freshDirectory();
    const store = LmdbEventStore.open(directory);
    await store.appendToStream('space-a', [{ type: 'SpaceCreated', data: { title: 'A' } }], 'no_stream');
    await store.appendToStream('space-b', [{ type: 'SpaceCreated', data: { title: 'B' } }, { type: 'SpaceRenamed', data: { title: 'C' } }], 'no_stream');
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
    for (let i = 0; i < 30; i++) await store.appendToStream(`space-${i}`, [{ type: i % 3 === 0 ? 'Kept' : 'Skipped', data: { i } }], 'no_stream');
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
    await store.appendToStream('mix-1', Array.from({ length: 900 }, (_, i) => ({ type: types[i % 3], data: { i } })), 'no_stream');
    await store.appendToStream('mix-2', Array.from({ length: 900 }, (_, i) => ({ type: types[(i + 1) % 3], data: { i: 900 + i } })), 'no_stream');
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

  it('given a closed store, then calls fail as unavailable', async () => {
    const store = LmdbEventStore.open(freshDirectory());
    await store.close();
    await expect(store.readAll()).rejects.toMatchObject({ name: 'EventStoreUnavailableError' });
    expect((await store.health()).ok).toBe(false);
  });
});
