import type { RecordedEvent } from '#event-store/event-store.port';
import { MemoryReadStore } from '../memory/memory-read-store';
import type { Doc, ReadStoreTransaction } from '../read-store.port';
import {
  documentProjection,
  hasSeen,
  isOneOf,
  multiDocumentProjection,
  positionKey,
  type ApplyMode,
  type Projection,
  type Recorded,
} from './projection';

type ShelfEvent =
  | { type: 'ShelfBuilt'; data: { shelfId: string; label: string } }
  | { type: 'BookShelved'; data: { shelfId: string; bookId: string } }
  | { type: 'BookRemoved'; data: { shelfId: string; bookId: string } }
  | { type: 'ShelfRelabelled'; data: { shelfId: string; label: string } };

interface ShelfDoc extends Doc {
  label: string;
  books: number;
}
interface BookDoc extends Doc {
  shelfId: string;
  label: string;
}

let position = 0n;
const at = (type: ShelfEvent['type'], data: object, streamId = 'shelf-s1'): RecordedEvent => ({
  id: `e${++position}`,
  streamId,
  revision: 0,
  position,
  type,
  data,
  metadata: {},
  recordedAt: '2026-01-01T00:00:00.000Z',
});

const shelves = multiDocumentProjection<ShelfEvent>({
  name: 'shelves',
  collections: ['shelves', 'books'],
  handles: ['ShelfBuilt', 'BookShelved', 'BookRemoved', 'ShelfRelabelled'],
  guard: (event) => ({ collection: 'shelves', id: event.data.shelfId }),
  async apply(event, documents) {
    const shelves = documents.collection<ShelfDoc>('shelves');
    const books = documents.collection<BookDoc>('books');
    const { shelfId } = event.data;
    switch (event.type) {
      case 'ShelfBuilt':
        await shelves.put({ _id: shelfId, label: event.data.label, books: 0 });
        return;
      case 'ShelfRelabelled':
        await shelves.update(shelfId, { $set: { label: event.data.label } });
        await books.updateMany({ shelfId }, { $set: { label: event.data.label } });
        return;
      case 'BookShelved':
      case 'BookRemoved': {
        const shelf = await shelves.get(shelfId);
        if (event.type === 'BookShelved') await books.put({ _id: event.data.bookId, shelfId, label: shelf?.label ?? '' });
        else await books.delete(event.data.bookId);
        // Two writes of one document by one event: both go through.
        await shelves.update(shelfId, { $set: { books: 0 } });
        await shelves.update(shelfId, { $set: { books: await books.count({ shelfId }) } });
        return;
      }
    }
  },
});

async function apply(reads: MemoryReadStore, projection: Projection, events: RecordedEvent[], mode?: ApplyMode): Promise<void> {
  await reads.transaction(async (tx) => {
    for (const event of events) await projection.apply(event, tx, undefined, mode);
  });
}
const FROM_EMPTY: ApplyMode = { replayFromEmpty: true };
const all = async (reads: MemoryReadStore, name: string) => (await reads.collection(name).find({}, { limit: 100 })).items;

describe('hasSeen: the one idempotency rule', () => {
  it('a document has seen every event at or before its stamp, and none after', () => {
    const stamped = { _id: 'd', _position: positionKey(5n) };
    expect([4n, 5n, 6n].map((p) => hasSeen(stamped, positionKey(p)))).toEqual([true, true, false]);
    expect(hasSeen({ _id: 'd' }, positionKey(1n))).toBe(false);
    expect(hasSeen(null, positionKey(1n))).toBe(false);
  });
});

describe('multiDocumentProjection', () => {
  const history = () => [
    at('ShelfBuilt', { shelfId: 's1', label: 'Novels' }),
    at('BookShelved', { shelfId: 's1', bookId: 'b1' }),
    at('BookShelved', { shelfId: 's1', bookId: 'b2' }),
    at('ShelfRelabelled', { shelfId: 's1', label: 'Fiction' }),
    at('BookRemoved', { shelfId: 's1', bookId: 'b1' }),
  ];

  it('stamps every document it writes with the position of the event, and lets one event write a document twice', async () => {
    const reads = new MemoryReadStore();
    const events = history();
    await apply(reads, shelves, events);
    expect(await all(reads, 'shelves')).toEqual([{ _id: 's1', label: 'Fiction', books: 1, _position: positionKey(events[4].position) }]);
    expect(await all(reads, 'books')).toEqual([{ _id: 'b2', shelfId: 's1', label: 'Fiction', _position: positionKey(events[3].position) }]);
  });

  it('given the events applied twice, or an older one again, then nothing changes (a deleted document is not brought back)', async () => {
    const events = history();
    const once = new MemoryReadStore();
    await apply(once, shelves, events);
    const twice = new MemoryReadStore();
    await apply(twice, shelves, events);
    await apply(twice, shelves, events);
    await apply(twice, shelves, [events[1], events[3], events[0]]);
    expect(await all(twice, 'shelves')).toEqual(await all(once, 'shelves'));
    expect(await all(twice, 'books')).toEqual(await all(once, 'books'));
  });

  it('given a replay from empty read models, then the documents are those a live application writes', async () => {
    const events = history();
    const live = new MemoryReadStore();
    await apply(live, shelves, events);
    const replayed = new MemoryReadStore();
    await apply(replayed, shelves, events, FROM_EMPTY);
    expect(await all(replayed, 'shelves')).toEqual(await all(live, 'shelves'));
    expect(await all(replayed, 'books')).toEqual(await all(live, 'books'));
  });

  it('given a replay from empty read models, then the guards read nothing: no guard document, no stamp, filters as the projection wrote them', async () => {
    const reads = new MemoryReadStore();
    const calls: string[] = [];
    const watched = (tx: ReadStoreTransaction): ReadStoreTransaction => ({
      collection: <T extends Doc>(name: string) => {
        const collection = tx.collection<T>(name);
        return new Proxy(collection, {
          get:
            (target, method: string) =>
            (...args: unknown[]) => {
              calls.push(`${name}.${method} ${JSON.stringify(args[0] ?? null)}`);
              return (target as unknown as Record<string, (...a: unknown[]) => unknown>)[method](...args);
            },
        });
      },
    });
    const relabel = history().slice(0, 4);
    await reads.transaction(async (tx) => {
      for (const event of relabel) await shelves.apply(event, watched(tx), undefined, FROM_EMPTY);
    });
    // Only what the projection itself reads: the shelf for a book's label, and the count of its books.
    expect(calls.filter((call) => call.split(' ')[0].endsWith('.get'))).toEqual(['shelves.get "s1"', 'shelves.get "s1"']);
    expect(calls).toContain('books.updateMany {"shelfId":"s1"}');
  });

  it('without a guard, each write is still skipped by a document that has seen the event', async () => {
    const reads = new MemoryReadStore();
    const built = at('ShelfBuilt', { shelfId: 's2', label: 'Old' });
    const relabelled = at('ShelfRelabelled', { shelfId: 's2', label: 'New' });
    await apply(reads, shelves, [built, relabelled]);
    const byPut = multiDocumentProjection<ShelfEvent>({
      name: 'put',
      collections: ['shelves'],
      handles: ['ShelfBuilt'],
      apply: async (event, documents) => {
        if (event.type === 'ShelfBuilt')
          await documents.collection<ShelfDoc>('shelves').put({ _id: event.data.shelfId, label: event.data.label, books: 0 });
      },
    });
    await apply(reads, byPut, [built]);
    expect(await reads.collection('shelves').get('s2')).toMatchObject({ label: 'New', _position: positionKey(relabelled.position) });
  });

  it('skips event types it does not handle, and refuses collections it does not own', async () => {
    const reads = new MemoryReadStore();
    await apply(reads, shelves, [at('ShelfBuilt', { shelfId: 's3', label: 'x' }), { ...at('ShelfBuilt', {}), type: 'SomethingElse' }]);
    expect(await all(reads, 'shelves')).toHaveLength(1);
    const nosy = multiDocumentProjection<ShelfEvent>({
      name: 'nosy',
      collections: ['shelves'],
      handles: ['ShelfBuilt'],
      apply: async (_event, documents) => void (await documents.collection('users').get('u1')),
    });
    await expect(apply(reads, nosy, [at('ShelfBuilt', { shelfId: 's4', label: 'y' })])).rejects.toThrow(
      "projection 'nosy' does not own the collection 'users'",
    );
  });

  it('isOneOf narrows an event to the listed types', () => {
    const { type: _type, data: _data, ...recorded } = at('BookShelved', {});
    const unnarrowed = (event: Recorded<ShelfEvent>) => event;
    const event = unnarrowed({ ...recorded, type: 'BookShelved', data: { shelfId: 's1', bookId: 'b9' } });
    expect(isOneOf(event, ['BookShelved', 'BookRemoved']) && event.data.bookId).toBe('b9');
    expect(isOneOf(event, ['ShelfBuilt'])).toBe(false);
  });
});

describe('documentProjection', () => {
  const labels = documentProjection<ShelfEvent, ShelfDoc>({
    name: 'labels',
    collection: 'labels',
    handles: ['ShelfBuilt', 'ShelfRelabelled'],
    documentId: (event) => event.data.shelfId,
    evolve(document, event) {
      switch (event.type) {
        case 'ShelfBuilt':
          return { _id: event.data.shelfId, label: event.data.label, books: 0 };
        case 'ShelfRelabelled':
          return document && { ...document, label: event.data.label, books: document.books + 1 };
        default:
          return document;
      }
    },
  });

  it('applies an event once: again, or an older one, changes nothing', async () => {
    const reads = new MemoryReadStore();
    const events = [at('ShelfBuilt', { shelfId: 's1', label: 'A' }), at('ShelfRelabelled', { shelfId: 's1', label: 'B' })];
    await apply(reads, labels, [...events, ...events, events[1]]);
    expect(await all(reads, 'labels')).toEqual([{ _id: 's1', label: 'B', books: 1, _position: positionKey(events[1].position) }]);
  });
});
