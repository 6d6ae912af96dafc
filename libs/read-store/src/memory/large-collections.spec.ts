import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReadStoreInputError } from '../errors';
import type { Doc, Filter, IndexSpec, ReadStore, Sort } from '../read-store.port';
import { MemoryReadStore } from './memory-read-store';
import { ReadModelFile } from './read-model-file';
import { idOf, storageString } from './large-collections';

const directories: string[] = [];
function directory(): string {
  const made = mkdtempSync(join(tmpdir(), 'large-collections-'));
  directories.push(made);
  return made;
}
afterAll(() => directories.forEach((made) => rmSync(made, { recursive: true, force: true })));

const INDEXES: IndexSpec[] = [{ fields: { org: 1, n: -1 } }, { fields: { org: 1, tag: 1 } }, { fields: { tag: 1 } }];

async function largeStore(file = directory(), indexes = INDEXES): Promise<MemoryReadStore> {
  const store = MemoryReadStore.open(file);
  await store.declareLarge('c');
  for (const index of indexes) await store.ensureIndex('c', index);
  return store;
}

async function allPages(store: ReadStore, filter: Filter, sort: Sort, limit: number): Promise<{ ids: string[]; counts: number[] }> {
  const ids: string[] = [];
  const counts: number[] = [];
  let after: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await store.collection('c').find(filter, { sort, limit, after });
    ids.push(...result.items.map((doc) => doc._id));
    counts.push(result.count);
    if (!result.next) break;
    after = result.next;
  }
  return { ids, counts };
}

describe('large collections of the memory read store on an LMDB file', () => {
  describe('storage strings', () => {
    it('order as UTF-16 code units do, and read back as the original, lone surrogates included', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
          const [x, y] = [storageString(a), storageString(b)];
          expect(idOf(x)).toBe(a);
          const bytes = Buffer.compare(Buffer.from(x), Buffer.from(y));
          expect(Math.sign(bytes)).toBe(a < b ? -1 : a > b ? 1 : 0);
        }),
        { numRuns: 500 },
      );
    });
  });

  describe('reads', () => {
    // Values that exercise the key order: types mixed, 0 and -0, missing, strings with characters
    // above U+FFFF or U+E000, NUL and the empty string, and arrays (irregular: the index is then not
    // used). No lone surrogates: documents are stored as UTF-8, which has none (the HTTP layer
    // refuses ill-formed Unicode; the storage strings above keep them apart in keys all the same).
    const org = fc.constantFrom<unknown>('a', 'b', null, undefined, 'a\u0000', '');
    const n = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom<unknown>(-0, 1.5, 'x', null, undefined, true));
    const tag = fc.constantFrom<unknown>('t', 'T', '\u{1F600}', '\uffff', '\ue000', 'é', undefined, 7);
    const id = fc.constantFrom('1', '2', '3', '10', '\u{1F600}', '\ufffe', '\u{10437}', 'a b', '__proto__', '');
    const document = fc.record({ _id: id, org, n, tag, list: fc.boolean() }).map(({ list, ...fields }) => {
      const doc: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(fields)) if (value !== undefined) doc[key] = value;
      if (list) doc.n = [1, 2];
      return doc as Doc;
    });
    type Write =
      | { kind: 'put'; doc: Doc }
      | { kind: 'delete'; id: string }
      | { kind: 'inc'; id: string }
      | { kind: 'deleteMany'; org: unknown }
      | { kind: 'tx'; docs: Doc[] };
    const write: fc.Arbitrary<Write> = fc.oneof(
      { weight: 6, arbitrary: document.map((doc) => ({ kind: 'put' as const, doc })) },
      { weight: 1, arbitrary: id.map((value) => ({ kind: 'delete' as const, id: value })) },
      { weight: 1, arbitrary: id.map((value) => ({ kind: 'inc' as const, id: value })) },
      { weight: 1, arbitrary: fc.constantFrom('a', 'b').map((value) => ({ kind: 'deleteMany' as const, org: value })) },
      { weight: 1, arbitrary: fc.array(document, { maxLength: 3 }).map((docs) => ({ kind: 'tx' as const, docs })) },
    );
    const filter = fc.oneof(
      fc.constant<Filter>({}),
      org.filter((value) => value !== undefined).map((value) => ({ org: value })),
      fc
        .tuple(
          org.filter((value) => value !== undefined),
          fc.integer({ min: -2, max: 2 }),
        )
        .map(([value, bound]) => ({ org: value, n: { $gt: bound } })),
      tag.filter((value) => value !== undefined).map((value) => ({ tag: { $eq: value } })),
      fc.constantFrom<Filter>({ org: 'a', tag: 't' }, { n: { $gte: 0 } }),
    );
    const sort = fc.constantFrom<Sort>(
      { n: -1 },
      { n: 1 },
      { tag: 1 },
      { tag: -1 },
      { _id: -1 },
      { org: 1, n: -1 },
      { n: -1, _id: -1 },
      {},
    );

    async function applyTo(store: ReadStore, writes: readonly Write[]): Promise<void> {
      const c = store.collection('c');
      for (const next of writes) {
        if (next.kind === 'put') await c.put(next.doc);
        else if (next.kind === 'delete') await c.delete(next.id);
        else if (next.kind === 'inc') await c.update(next.id, { $inc: { hits: 1 } });
        else if (next.kind === 'deleteMany') await c.deleteMany({ org: next.org });
        else await store.transaction(async (tx) => Promise.all(next.docs.map((doc) => tx.collection('c').put(doc))));
      }
    }

    it('answer every page, count and get as a collection held in memory does', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(write, { maxLength: 25 }),
          fc.array(fc.tuple(filter, sort, fc.integer({ min: 1, max: 4 })), { minLength: 1, maxLength: 4 }),
          async (writes, reads) => {
            const reference = new MemoryReadStore();
            for (const index of INDEXES) await reference.ensureIndex('c', index);
            const large = await largeStore();
            try {
              await applyTo(reference, writes);
              await applyTo(large, writes);
              // Read while the last commits are pending (not yet in the file), then once the file has them all.
              for (const written of [false, true]) {
                if (written) await large.whenWritten();
                for (const [where, order, limit] of reads) {
                  expect(await allPages(large, where, order, limit)).toEqual(await allPages(reference, where, order, limit));
                  expect(await large.collection('c').count(where)).toBe(await reference.collection('c').count(where));
                }
              }
              for (const doc of (await reference.collection('c').find({}, { limit: 1000 })).items) {
                // As JSON: -0 is stored as 0, as JSON writes it.
                expect(JSON.stringify(await large.collection('c').get(doc._id))).toBe(JSON.stringify(doc));
              }
            } finally {
              await large.close();
            }
          },
        ),
        { numRuns: 60 },
      );
    });

    it('walk an index from the cursor: a page of a range sorted by an indexed field reads about a page of documents', async () => {
      const store = await largeStore();
      await store.transaction(async (tx) => {
        for (let i = 0; i < 2000; i++)
          await tx.collection('c').put({ _id: `d${String(i).padStart(4, '0')}`, org: i % 2 === 0 ? 'a' : 'b', n: i });
      });
      await store.whenWritten();
      const file = (store as unknown as { file: ReadModelFile }).file;
      const stored = jest.spyOn(file.large, 'stored');
      const first = await store.collection('c').find({ org: 'a' }, { sort: { n: -1 }, limit: 10 });
      const second = await store.collection('c').find({ org: 'a' }, { sort: { n: -1 }, limit: 10, after: first.next });
      expect(first.count).toBe(1000);
      expect(second.items.map((doc) => doc.n)).toEqual([1978, 1976, 1974, 1972, 1970, 1968, 1966, 1964, 1962, 1960]);
      // Each page: its 10 documents, the next one, one to see the range end past it, and the cursor's own.
      expect(stored.mock.calls.length).toBeLessThanOrEqual(2 * 13);
      await store.close();
    });
  });

  describe('counts', () => {
    it('count a range once in the file and then keep the count, moved by every later commit', async () => {
      const store = await largeStore();
      await store.transaction(async (tx) => {
        for (let i = 0; i < 100; i++) await tx.collection('c').put({ _id: `d${i}`, org: i % 2 === 0 ? 'a' : 'b', n: i });
      });
      await store.whenWritten();
      const file = (store as unknown as { file: ReadModelFile }).file;
      const widths = jest.spyOn(file.large, 'count');
      const totals = jest.spyOn(file.large, 'countAll');
      expect((await store.collection('c').find({ org: 'a' }, { sort: { n: -1 }, limit: 5 })).count).toBe(50);
      expect(await store.collection('c').count()).toBe(100);
      await store.transaction(async (tx) => {
        await tx.collection('c').put({ _id: 'new', org: 'a', n: 1000 });
        await tx.collection('c').put({ _id: 'd1', org: 'a', n: 1 });
        await tx.collection('c').delete('d0');
      });
      for (const written of [false, true]) {
        if (written) await store.whenWritten();
        expect((await store.collection('c').find({ org: 'a' }, { sort: { n: -1 }, limit: 5 })).count).toBe(51);
        expect(await store.collection('c').count({ org: 'b' })).toBe(49);
        expect(await store.collection('c').count()).toBe(100);
      }
      expect(widths.mock.calls.length).toBe(2);
      // Declared in this store, the collection's whole count was kept from its declaration.
      expect(totals.mock.calls.length).toBe(0);
      await store.close();
    });

    it('given a collection declared large with documents in memory, then its count starts at what moved and is never measured in the file', async () => {
      const store = MemoryReadStore.open(directory());
      await store.collection('c').put({ _id: 'm1' });
      await store.collection('c').put({ _id: 'm2' });
      await store.declareLarge('c');
      const totals = jest.spyOn((store as unknown as { file: ReadModelFile }).file.large, 'countAll');
      await store.collection('c').put({ _id: 'm3' });
      expect(await store.collection('c').count()).toBe(3);
      expect(totals).not.toHaveBeenCalled();
      await store.close();
    });

    it('given a large collection written by an earlier process, when it is first counted, then the count is measured in the file once and kept', async () => {
      const file = directory();
      const first = await largeStore(file);
      await first.transaction(async (tx) => {
        for (let i = 0; i < 10; i++) await tx.collection('c').put({ _id: `d${i}`, org: 'a', n: i });
      });
      await first.close();
      const second = await largeStore(file);
      const totals = jest.spyOn((second as unknown as { file: ReadModelFile }).file.large, 'countAll');
      expect(await second.collection('c').count()).toBe(10);
      await second.collection('c').put({ _id: 'd10', org: 'a', n: 10 });
      expect(await second.collection('c').count()).toBe(11);
      expect(totals).toHaveBeenCalledTimes(1);
      await second.close();
    });
  });

  describe('on disk', () => {
    it('given documents of a large collection, when the store is opened again, then they are read from the file and not loaded into memory', async () => {
      const file = directory();
      const first = await largeStore(file);
      await first.collection('c').put({ _id: '1', org: 'a', n: 1 });
      await first.transaction(async (tx) => {
        await tx.collection('c').put({ _id: '2', org: 'a', n: 2 });
        await tx.collection('other').put({ _id: 'x' });
      });
      await first.close();

      const file_ = ReadModelFile.open(file);
      expect(file_.collectionNames()).toEqual(['other']);
      expect(file_.large.collectionNames()).toEqual(['c']);
      await file_.close();

      const second = await largeStore(file);
      expect((await second.collection('c').find({ org: 'a' }, { sort: { n: -1 } })).items.map((doc) => doc._id)).toEqual(['2', '1']);
      expect(await second.collection('other').get('x')).toEqual({ _id: 'x' });
      expect(await second.listCollections()).toEqual(['c', 'other']);
      await second.close();
    });

    it('given documents written before the collection was declared large, when it is declared, then they move to the file with their indexes', async () => {
      const file = directory();
      const first = MemoryReadStore.open(file);
      await first.ensureIndex('c', { fields: { org: 1, n: -1 } });
      await first.collection('c').put({ _id: '1', org: 'a', n: 1 });
      await first.collection('c').put({ _id: '2', org: 'a', n: 2 });
      await first.close();

      const second = MemoryReadStore.open(file);
      await second.declareLarge('c');
      await second.ensureIndex('c', { fields: { org: 1, n: -1 } });
      expect((await second.collection('c').find({ org: 'a' }, { sort: { n: -1 } })).items.map((doc) => doc._id)).toEqual(['2', '1']);
      await second.close();

      const file_ = ReadModelFile.open(file);
      expect(file_.collectionNames()).toEqual([]);
      expect([...file_.large.scan('c')].map((doc) => doc._id)).toEqual(['1', '2']);
      await file_.close();
    });

    it('fills an index declared after its documents from them', async () => {
      const store = await largeStore(directory(), []);
      await store.collection('c').put({ _id: '1', org: 'a', n: 1 });
      await store.collection('c').put({ _id: '2', org: 'a', n: 2 });
      await store.ensureIndex('c', { fields: { org: 1, n: -1 } });
      await store.whenWritten();
      const file = (store as unknown as { file: ReadModelFile }).file;
      expect(
        file.large.count(
          'c',
          file.large.tagOf(
            JSON.stringify([
              ['org', 1],
              ['n', -1],
            ]),
          ),
          [2, 'a'],
        ),
      ).toBe(2);
      expect(await store.collection('c').count({ org: 'a' })).toBe(2);
      await store.close();
    });

    it('counts the documents an index leaves out across commits handed to the file together', async () => {
      const file = directory();
      const store = await largeStore(file, [{ fields: { tag: 1 } }]);
      const tags = store.collection('c');
      // An array is left out of the index (irregular): in, in, out again, in.
      await Promise.all([
        tags.put({ _id: '1', tag: ['x'] }),
        tags.put({ _id: '2', tag: ['y'] }),
        tags.put({ _id: '1', tag: 'a' }),
        tags.put({ _id: '3', tag: 'b' }),
      ]);
      await store.close();
      const reopened = ReadModelFile.open(file);
      expect(reopened.large.usable('c', JSON.stringify([['tag', 1]]))).toBe(false);
      await reopened.close();
      const again = MemoryReadStore.open(file);
      await again.collection('c').put({ _id: '2', tag: 'c' });
      await again.close();
      const last = ReadModelFile.open(file);
      expect(last.large.usable('c', JSON.stringify([['tag', 1]]))).toBe(true);
      await last.close();
    });

    it('answers a commit’s documents before the file has them, and the same once it has', async () => {
      const store = await largeStore();
      await store.collection('c').put({ _id: '1', org: 'a', n: 1 });
      await store.whenWritten();
      await store.transaction(async (tx) => {
        await tx.collection('c').put({ _id: '2', org: 'a', n: 2 });
        await tx.collection('c').delete('1');
      });
      const read = async () => ({
        page: (await store.collection('c').find({ org: 'a' }, { sort: { n: -1 } })).items.map((doc) => doc._id),
        count: await store.collection('c').count({ org: 'a' }),
        all: await store.collection('c').count(),
        one: await store.collection('c').get('1'),
      });
      const before = await read();
      expect(before).toEqual({ page: ['2'], count: 1, all: 1, one: null });
      await store.whenWritten();
      expect(await read()).toEqual(before);
      await store.close();
    });

    it('makes a transaction that leaves more than 20,000 documents pending wait until the file has them', async () => {
      const store = await largeStore();
      await store.transaction(async (tx) => {
        for (let i = 0; i <= 20_000; i++) await tx.collection('c').put({ _id: String(i), org: 'a', n: i });
      });
      const file = (store as unknown as { file: ReadModelFile }).file;
      expect(file.large.countAll('c')).toBe(20_001);
      await store.close();
    });

    it('refuses a unique index on a large collection', async () => {
      const store = await largeStore();
      await expect(store.ensureIndex('c', { fields: { org: 1 }, unique: true })).rejects.toBeInstanceOf(ReadStoreInputError);
      await store.close();
    });

    it('drops a large collection with its documents, index entries and registration', async () => {
      const file = directory();
      const first = await largeStore(file);
      await first.collection('c').put({ _id: '1', org: 'a', n: 1 });
      await first.dropCollections(['c']);
      expect(await first.collection('c').count({ org: 'a' })).toBe(0);
      await first.close();
      const file_ = ReadModelFile.open(file);
      expect(file_.large.collectionNames()).toEqual([]);
      expect([...file_.large.scan('c')]).toEqual([]);
      await file_.close();
    });

    it('writes a commit to a large collection after the commits handed to the file before it, all of them landing', async () => {
      const file = directory();
      const first = await largeStore(file);
      // Handed to the file without waiting, then a commit with a large collection: written at once, after it.
      void first.collection('other').put({ _id: 'before', n: 1 });
      await first.transaction(async (tx) => {
        await tx.collection('c').put({ _id: '1', org: 'a' });
        await tx.collection('checkpoints').put({ _id: 'main', position: '7' });
      });
      await first.close();
      const second = await largeStore(file);
      expect(await second.collection('other').get('before')).toEqual({ _id: 'before', n: 1 });
      expect(await second.collection('checkpoints').get('main')).toEqual({ _id: 'main', position: '7' });
      expect(await second.collection('c').get('1')).toEqual({ _id: '1', org: 'a' });
      await second.close();
    });

    it('keeps a large collection in memory when the store has no file', async () => {
      const store = new MemoryReadStore();
      await store.declareLarge('c');
      await store.collection('c').put({ _id: '1' });
      expect(await store.collection('c').get('1')).toEqual({ _id: '1' });
    });
  });

  it('loads, after a restart, documents of an ordinary collection whose ids have characters above U+FFFF', async () => {
    const file = directory();
    const first = MemoryReadStore.open(file);
    await first.collection('a').put({ _id: '\u{1F600}' });
    await first.collection('a').put({ _id: 'z' });
    await first.close();
    const second = MemoryReadStore.open(file);
    expect((await second.collection('a').find({})).items.map((doc) => doc._id).sort()).toEqual(['z', '\u{1F600}']);
    await second.close();
  });
});
