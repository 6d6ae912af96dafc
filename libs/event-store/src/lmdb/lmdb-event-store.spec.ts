import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  it('given a closed store, then calls fail as unavailable', async () => {
    const store = LmdbEventStore.open(freshDirectory());
    await store.close();
    await expect(store.readAll()).rejects.toMatchObject({ name: 'EventStoreUnavailableError' });
    expect((await store.health()).ok).toBe(false);
  });
});
