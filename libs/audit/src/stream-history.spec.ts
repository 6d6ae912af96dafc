import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStoreInputError } from '#event-store/errors';
import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';
import { decodeRevisionCursor, encodeRevisionCursor, readStreamHistory, streamEvents } from './stream-history';

describe('stream history', () => {
  let dir: string;
  let store: LmdbEventStore;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stream-history-'));
    store = LmdbEventStore.open(join(dir, 'events'));
    await store.appendToStream('other-1', [{ type: 'Noise', data: {} }], 'no_stream');
    for (let i = 0; i < 5; i++)
      await store.appendToStream('space-s1', [{ type: 'Step', data: { i }, metadata: { n: i } }], i === 0 ? 'no_stream' : i - 1);
  });

  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('given a stream of five events, then pages of two walk it oldest first, counting the stream', async () => {
    const seen: number[] = [];
    let page: string | undefined;
    let pages = 0;
    do {
      const result = await readStreamHistory(store, 'space-s1', { limit: 2, page });
      expect(result?.count).toBe(5);
      seen.push(...result!.items.map((item) => item.revision));
      page = result!.next?.page;
      pages += 1;
    } while (page !== undefined);
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    expect(pages).toBe(3);
  });

  it('presents events with their position as a string', async () => {
    const result = await readStreamHistory(store, 'space-s1', { limit: 1 });
    expect(result?.items[0]).toEqual({
      object: 'event',
      id: expect.any(String),
      streamId: 'space-s1',
      revision: 0,
      position: '2',
      type: 'Step',
      data: { i: 0 },
      metadata: { n: 0 },
      recordedAt: expect.any(String),
    });
  });

  it('given a cursor beyond the end, then an empty last page', async () => {
    expect(await readStreamHistory(store, 'space-s1', { page: encodeRevisionCursor(9) })).toEqual({ count: 5, items: [] });
  });

  it('given an unknown stream, then null; an invalid name is the store’s input error', async () => {
    expect(await readStreamHistory(store, 'space-none')).toBeNull();
    await expect(readStreamHistory(store, 'nodash')).rejects.toBeInstanceOf(EventStoreInputError);
  });

  it('refuses cursors it did not make and limits out of range (400)', async () => {
    expect(decodeRevisionCursor(encodeRevisionCursor(42))).toBe(42);
    for (const bad of ['', '42', 'cmV2Oi0x', Buffer.from('rev:01').toString('base64url'), 'x'.repeat(100), 'a+b']) {
      expect(() => decodeRevisionCursor(bad)).toThrow(expect.objectContaining({ status: 400 }));
    }
    await expect(readStreamHistory(store, 'space-s1', { limit: 0 })).rejects.toMatchObject({ status: 400 });
    await expect(readStreamHistory(store, 'space-s1', { limit: 1001 })).rejects.toMatchObject({ status: 400 });
  });

  it('streams every event across pages', async () => {
    const all = [];
    for await (const event of streamEvents(store, 'space-s1', 2)) all.push(event.revision);
    expect(all).toEqual([0, 1, 2, 3, 4]);
    const none = [];
    for await (const event of streamEvents(store, 'space-none', 2)) none.push(event);
    expect(none).toEqual([]);
  });
});
