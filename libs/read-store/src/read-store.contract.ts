/**
 * The behaviour every `ReadStore` adapter must show. Run it from an adapter's spec:
 *
 *   readStoreContract('memory', async () => new MemoryReadStore());
 *
 * `open` must return a fresh, empty store; each test closes the store it opened.
 * Test-only: not exported from the library's index.
 */
import { DuplicateKeyError, ReadStoreInputError } from './errors';
import type { Collection, Doc, Filter, FindOptions, ReadStore, Sort } from './read-store.port';

interface Item extends Doc {
  title?: string;
  n?: number | null | string | boolean | Record<string, unknown>;
  group?: string;
  score?: number;
  tags?: string[];
  meta?: { owner?: string; level?: number };
}

/** Every page of a query, in order, with the `count` each page reported. */
async function allPages<T extends Doc>(
  collection: Collection<T>,
  filter: Filter,
  options: FindOptions,
): Promise<{ ids: string[]; counts: number[]; pages: number }> {
  const ids: string[] = [];
  const counts: number[] = [];
  let after: string | undefined = options.after;
  let pages = 0;
  do {
    const page = await collection.find(filter, { ...options, after });
    pages++;
    ids.push(...page.items.map((item) => item._id));
    counts.push(page.count);
    after = page.next;
    if (pages > 1000) throw new Error('pagination does not end');
  } while (after !== undefined);
  return { ids, counts, pages };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

export function readStoreContract(adapterName: string, open: () => Promise<ReadStore>): void {
  describe(`ReadStore contract (${adapterName})`, () => {
    let store: ReadStore;
    let items: Collection<Item>;

    beforeEach(async () => {
      store = await open();
      items = store.collection<Item>('items');
    });

    afterEach(async () => {
      await store.close();
    });

    describe('documents by id', () => {
      it('given an empty collection, when getting an id, then it returns null', async () => {
        expect(await items.get('missing')).toBeNull();
      });

      it('given an inserted document, when getting it, then it returns an equal document', async () => {
        await items.insert({ _id: 'a', title: 'Alpha', tags: ['x'], meta: { owner: 'u1', level: 2 } });
        expect(await items.get('a')).toEqual({ _id: 'a', title: 'Alpha', tags: ['x'], meta: { owner: 'u1', level: 2 } });
      });

      it('given a document, when inserting another with the same _id, then DuplicateKeyError names the _id index', async () => {
        await items.insert({ _id: 'a', title: 'first' });
        const error = await rejection(items.insert({ _id: 'a', title: 'second' }));
        expect(error).toBeInstanceOf(DuplicateKeyError);
        expect((error as DuplicateKeyError).index).toBe('_id');
        expect((error as DuplicateKeyError).collection).toBe('items');
        expect(await items.get('a')).toEqual({ _id: 'a', title: 'first' });
      });

      it('given a document, when putting one with the same _id, then the whole document is replaced', async () => {
        await items.put({ _id: 'a', title: 'first', score: 1 });
        await items.put({ _id: 'a', title: 'second' });
        expect(await items.get('a')).toEqual({ _id: 'a', title: 'second' });
      });

      it('given a document, when deleting it, then it is gone and delete reports true, then false', async () => {
        await items.insert({ _id: 'a' });
        expect(await items.delete('a')).toBe(true);
        expect(await items.get('a')).toBeNull();
        expect(await items.delete('a')).toBe(false);
      });

      it('given a document, when updating it, then update returns the document as updated', async () => {
        await items.insert({ _id: 'a', title: 'old', score: 1 });
        const updated = await items.update('a', { $set: { title: 'new' }, $inc: { score: 2 } });
        expect(updated).toEqual({ _id: 'a', title: 'new', score: 3 });
        expect(await items.get('a')).toEqual({ _id: 'a', title: 'new', score: 3 });
      });

      it('given no document, when updating without upsert, then it returns null and creates nothing', async () => {
        expect(await items.update('a', { $set: { title: 'x' } })).toBeNull();
        expect(await items.get('a')).toBeNull();
      });

      it('given no document, when updating with upsert, then { _id } plus the update is created, $setOnInsert included', async () => {
        const created = await items.update(
          'a',
          { $set: { title: 'x' }, $inc: { score: 1 }, $setOnInsert: { group: 'g' } },
          { upsert: true },
        );
        expect(created).toEqual({ _id: 'a', title: 'x', score: 1, group: 'g' });
        const again = await items.update(
          'a',
          { $set: { title: 'y' }, $inc: { score: 1 }, $setOnInsert: { group: 'other' } },
          { upsert: true },
        );
        expect(again).toEqual({ _id: 'a', title: 'y', score: 2, group: 'g' });
      });

      it('given a document, when an update would change its _id, then ReadStoreInputError and nothing changes', async () => {
        await items.insert({ _id: 'a', title: 't' });
        expect(await rejection(items.update('a', { $set: { _id: 'b' } }))).toBeInstanceOf(ReadStoreInputError);
        expect(await items.get('a')).toEqual({ _id: 'a', title: 't' });
        expect(await items.get('b')).toBeNull();
      });
    });

    describe('update operators', () => {
      beforeEach(async () => {
        await items.insert({ _id: 'a', title: 't', score: 5, tags: ['x', 'y'], meta: { owner: 'u1' } });
      });

      it('given a document, when $set reaches a dotted path, then nested members are set and created', async () => {
        const doc = await items.update('a', { $set: { 'meta.level': 3, 'extra.deep.value': true } });
        expect(doc).toEqual({
          _id: 'a',
          title: 't',
          score: 5,
          tags: ['x', 'y'],
          meta: { owner: 'u1', level: 3 },
          extra: { deep: { value: true } },
        });
      });

      it('given a document, when $unset names fields, then they are removed (missing ones ignored)', async () => {
        expect(await items.update('a', { $unset: { title: '', 'meta.owner': '', nothing: '' } })).toEqual({
          _id: 'a',
          score: 5,
          tags: ['x', 'y'],
          meta: {},
        });
      });

      it('given a document, when $inc targets existing and missing fields, then they are added to / created', async () => {
        expect(await items.update('a', { $inc: { score: -2, views: 10, 'meta.level': 1 } })).toMatchObject({
          score: 3,
          views: 10,
          meta: { owner: 'u1', level: 1 },
        });
      });

      it('given a document, when $push adds one value and $each several, then arrays grow (and are created)', async () => {
        const doc = await items.update('a', { $push: { tags: 'z', history: { $each: [1, 2] } } });
        expect(doc?.tags).toEqual(['x', 'y', 'z']);
        expect((doc as Doc).history).toEqual([1, 2]);
      });

      it('given a document, when $addToSet adds present and absent values, then only absent ones are added', async () => {
        const doc = await items.update('a', { $addToSet: { tags: { $each: ['y', 'z', 'z'] } } });
        expect(doc?.tags).toEqual(['x', 'y', 'z']);
        expect((await items.update('a', { $addToSet: { tags: 'x' } }))?.tags).toEqual(['x', 'y', 'z']);
      });

      it('given a document, when $pull removes a value, then every equal element is removed', async () => {
        await items.update('a', { $push: { tags: 'x' } });
        expect((await items.update('a', { $pull: { tags: 'x' } }))?.tags).toEqual(['y']);
      });

      it('given documents, when updateMany matches some, then only those change and the count is returned', async () => {
        await items.insert({ _id: 'b', group: 'g', score: 1 });
        await items.insert({ _id: 'c', group: 'g', score: 2 });
        expect(await items.updateMany({ group: 'g' }, { $inc: { score: 10 }, $set: { touched: true } })).toBe(2);
        expect(await items.get('b')).toEqual({ _id: 'b', group: 'g', score: 11, touched: true });
        expect(await items.get('c')).toEqual({ _id: 'c', group: 'g', score: 12, touched: true });
        expect((await items.get('a'))?.score).toBe(5);
        expect(await items.updateMany({ group: 'none' }, { $set: { touched: true } })).toBe(0);
      });

      it('given documents, when deleteMany matches some, then exactly those are deleted and counted', async () => {
        await items.insert({ _id: 'b', group: 'g' });
        await items.insert({ _id: 'c', group: 'g' });
        expect(await items.deleteMany({ group: 'g' })).toBe(2);
        expect(await items.count()).toBe(1);
        expect(await items.deleteMany({ group: 'g' })).toBe(0);
      });
    });

    describe('queries', () => {
      beforeEach(async () => {
        await items.insert({ _id: 'a', title: 'Hello world', score: 10, group: 'g1', tags: ['red'], meta: { owner: 'u1' } });
        await items.insert({ _id: 'b', title: 'hello there', score: 20, group: 'g2', tags: ['blue'], meta: { owner: 'u2' } });
        await items.insert({ _id: 'c', title: 'Goodbye', score: 30, group: 'g1', tags: ['red', 'blue'] });
        await items.insert({ _id: 'd', title: 'Other', group: 'g3' });
      });

      const ids = async (filter: Filter, sort: Sort = {}): Promise<string[]> =>
        (await items.find(filter, { sort })).items.map((item) => item._id);

      it('given documents, when filtering by equality, $in, $gt and $ne, then the matching ones are found', async () => {
        expect(await ids({ group: 'g1' })).toEqual(['a', 'c']);
        expect(await ids({ group: { $in: ['g2', 'g3'] } })).toEqual(['b', 'd']);
        expect(await ids({ score: { $gt: 10 } })).toEqual(['b', 'c']);
        expect(await ids({ group: { $ne: 'g1' } })).toEqual(['b', 'd']);
        expect(await ids({ tags: 'blue' })).toEqual(['b', 'c']);
      });

      it('given documents, when filtering with a case-insensitive $regex, then both cases match', async () => {
        expect(await ids({ title: { $regex: '^hello', $options: 'i' } })).toEqual(['a', 'b']);
      });

      it('given documents, when filtering on a dotted path and with $or and $exists, then they match', async () => {
        expect(await ids({ 'meta.owner': 'u2' })).toEqual(['b']);
        expect(await ids({ $or: [{ group: 'g3' }, { score: 10 }] })).toEqual(['a', 'd']);
        expect(await ids({ score: { $exists: false } })).toEqual(['d']);
      });

      it('given documents, when findOne and count run, then they agree with find', async () => {
        expect((await items.findOne({ group: 'g2' }))?._id).toBe('b');
        expect(await items.findOne({ group: 'none' })).toBeNull();
        expect(await items.count({ group: 'g1' })).toBe(2);
        expect(await items.count()).toBe(4);
        expect(await items.count({ _id: 'a' })).toBe(1);
      });

      it('given documents, when sorting ascending and descending, then the order follows (with _id as tie-breaker)', async () => {
        expect(await ids({}, { score: -1 })).toEqual(['c', 'b', 'a', 'd']);
        expect(await ids({}, { score: 1 })).toEqual(['d', 'a', 'b', 'c']);
        expect(await ids({}, { group: 1, score: -1 })).toEqual(['c', 'a', 'b', 'd']);
        expect(await ids({}, { group: -1, title: 1 })).toEqual(['d', 'b', 'c', 'a']);
      });

      it('given a page smaller than the matches, when finding, then count covers every match and next is set', async () => {
        const page = await items.find({}, { sort: { score: 1 }, limit: 3 });
        expect(page.items.map((item) => item._id)).toEqual(['d', 'a', 'b']);
        expect(page.count).toBe(4);
        expect(page.next).toEqual(expect.any(String));
        const last = await items.find({}, { sort: { score: 1 }, limit: 3, after: page.next });
        expect(last.items.map((item) => item._id)).toEqual(['c']);
        expect(last.count).toBe(4);
        expect(last.next).toBeUndefined();
      });

      it('given count: false, when finding, then count is the number of items on the page', async () => {
        const page = await items.find({}, { limit: 2, count: false });
        expect(page.items).toHaveLength(2);
        expect(page.count).toBe(2);
      });

      it('given a bad limit, when finding, then ReadStoreInputError', async () => {
        for (const limit of [0, 1001, 2.5, -1]) {
          expect(await rejection(items.find({}, { limit }))).toBeInstanceOf(ReadStoreInputError);
        }
      });

      it('given a garbage, truncated or foreign cursor, when finding, then ReadStoreInputError', async () => {
        const page = await items.find({}, { sort: { score: 1 }, limit: 1 });
        const foreign = page.next as string;
        for (const after of ['garbage', '!!!', 'eyJ4IjoxfQ', foreign.slice(0, -3), Buffer.from('[1,2]').toString('base64url')]) {
          expect(await rejection(items.find({}, { sort: { score: 1 }, limit: 1, after }))).toBeInstanceOf(ReadStoreInputError);
        }
        // A cursor made for another sort is refused.
        expect(await rejection(items.find({}, { sort: { title: 1 }, limit: 1, after: foreign }))).toBeInstanceOf(ReadStoreInputError);
      });

      it('given a bad sort direction, when finding, then ReadStoreInputError', async () => {
        expect(await rejection(items.find({}, { sort: { score: 2 as 1 } }))).toBeInstanceOf(ReadStoreInputError);
      });
    });

    describe('keyset pagination', () => {
      // Sort values include duplicates, null, missing, and several types.
      const docs: Item[] = [
        { _id: 'd01', n: 3, group: 'b' },
        { _id: 'd02', n: null, group: 'a' },
        { _id: 'd03', group: 'a' },
        { _id: 'd04', n: 1, group: 'b' },
        { _id: 'd05', n: 3, group: 'a' },
        { _id: 'd06', n: 'x', group: 'c' },
        { _id: 'd07', n: 2 },
        { _id: 'd08', n: null, group: 'c' },
        { _id: 'd09', n: -1, group: 'a' },
        { _id: 'd10', n: 'a', group: 'b' },
        { _id: 'd11', group: 'b' },
        { _id: 'd12', n: 3, group: 'c' },
        { _id: 'd13', n: true, group: 'a' },
        { _id: 'd14', n: 2.5, group: 'c' },
      ];

      beforeEach(async () => {
        for (const doc of docs) await items.insert(doc);
      });

      it('given null, missing and mixed-type values, when sorting one field, then MongoDB order applies', async () => {
        const asc = (await items.find({}, { sort: { n: 1 } })).items.map((item) => item._id);
        expect(asc).toEqual(['d02', 'd03', 'd08', 'd11', 'd09', 'd04', 'd07', 'd14', 'd01', 'd05', 'd12', 'd10', 'd06', 'd13']);
        const desc = (await items.find({}, { sort: { n: -1 } })).items.map((item) => item._id);
        expect(desc).toEqual(['d13', 'd06', 'd10', 'd01', 'd05', 'd12', 'd14', 'd07', 'd04', 'd09', 'd02', 'd03', 'd08', 'd11']);
      });

      const sorts: Sort[] = [{}, { n: 1 }, { n: -1 }, { group: 1, n: -1 }, { group: -1, n: 1 }, { _id: -1 }, { n: -1, _id: -1 }];
      for (const sort of sorts) {
        for (const limit of [1, 2, 5]) {
          it(`given sort ${JSON.stringify(sort)} and limit ${limit}, when following every next, then each document is visited once in the unpaginated order`, async () => {
            const whole = (await items.find({}, { sort, limit: 1000 })).items.map((item) => item._id);
            expect(whole).toHaveLength(docs.length);
            const paged = await allPages(items, {}, { sort, limit });
            expect(paged.ids).toEqual(whole);
            expect(paged.pages).toBe(Math.ceil(docs.length / limit));
            expect(new Set(paged.counts)).toEqual(new Set([docs.length]));
          });
        }
      }

      it('given a filter, when paginating, then pages cover exactly the filtered documents', async () => {
        const filter = { group: { $in: ['a', 'c'] } };
        const whole = (await items.find(filter, { sort: { n: 1 }, limit: 1000 })).items.map((item) => item._id);
        const paged = await allPages(items, filter, { sort: { n: 1 }, limit: 2 });
        expect(paged.ids).toEqual(whole);
        expect(paged.counts.every((count) => count === whole.length)).toBe(true);
      });

      it('given a cursor, when documents before it are inserted and deleted between pages, then the rest is neither skipped nor repeated', async () => {
        const first = await items.find({}, { sort: { n: 1 }, limit: 4 });
        expect(first.items.map((item) => item._id)).toEqual(['d02', 'd03', 'd08', 'd11']);
        // Before the cursor (null, 'd11'): d00 and d105; after it: d20.
        await items.insert({ _id: 'd00', n: null });
        await items.insert({ _id: 'd105' });
        await items.insert({ _id: 'd20', n: -5 });
        await items.delete('d03');
        await items.delete('d11');
        const rest = await allPages(items, {}, { sort: { n: 1 }, limit: 3, after: first.next });
        expect(rest.ids).toEqual(['d20', 'd09', 'd04', 'd07', 'd14', 'd01', 'd05', 'd12', 'd10', 'd06', 'd13']);
      });

      it('given a cursor, when the document it was taken from is deleted, then the next page still starts right after it', async () => {
        const first = await items.find({}, { sort: { n: -1 }, limit: 3 });
        expect(first.items.map((item) => item._id)).toEqual(['d13', 'd06', 'd10']);
        await items.delete('d10');
        const second = await items.find({}, { sort: { n: -1 }, limit: 3, after: first.next });
        expect(second.items.map((item) => item._id)).toEqual(['d01', 'd05', 'd12']);
      });
    });

    describe('unique indexes', () => {
      it('given a unique index, when inserting a duplicate value, then DuplicateKeyError and the collection is unchanged', async () => {
        await store.ensureIndex('items', { fields: { title: 1 }, unique: true });
        await items.insert({ _id: 'a', title: 'same' });
        const error = await rejection(items.insert({ _id: 'b', title: 'same' }));
        expect(error).toBeInstanceOf(DuplicateKeyError);
        expect((error as DuplicateKeyError).index).toBe('title');
        expect((error as DuplicateKeyError).collection).toBe('items');
        expect(await items.get('b')).toBeNull();
        expect(await rejection(items.put({ _id: 'b', title: 'same' }))).toBeInstanceOf(DuplicateKeyError);
      });

      it('given a unique index, when an update would move a document onto a taken value, then DuplicateKeyError and nothing changes', async () => {
        await store.ensureIndex('items', { fields: { title: 1 }, unique: true });
        await items.insert({ _id: 'a', title: 'one' });
        await items.insert({ _id: 'b', title: 'two' });
        expect(await rejection(items.update('b', { $set: { title: 'one', score: 1 } }))).toBeInstanceOf(DuplicateKeyError);
        expect(await items.get('b')).toEqual({ _id: 'b', title: 'two' });
        expect(await rejection(items.updateMany({}, { $set: { title: 'three' } }))).toBeInstanceOf(DuplicateKeyError);
        expect(await items.get('a')).toEqual({ _id: 'a', title: 'one' });
        // A document may keep (or rewrite) its own value, and a freed value may be taken.
        await items.update('a', { $set: { title: 'one', score: 2 } });
        await items.update('a', { $set: { title: 'uno' } });
        await items.update('b', { $set: { title: 'one' } });
        expect(await items.get('b')).toEqual({ _id: 'b', title: 'one' });
      });

      it('given a compound unique index on a dotted path, when values differ in one field, then both are accepted', async () => {
        await store.ensureIndex('items', { fields: { 'meta.owner': 1, title: 1 }, unique: true });
        await items.insert({ _id: 'a', title: 't', meta: { owner: 'u1' } });
        await items.insert({ _id: 'b', title: 't', meta: { owner: 'u2' } });
        const error = await rejection(items.insert({ _id: 'c', title: 't', meta: { owner: 'u1' } }));
        expect(error).toBeInstanceOf(DuplicateKeyError);
        expect((error as DuplicateKeyError).index).toBe('meta.owner,title');
      });

      it('given a unique index with partial { deletedAt: null }, when a document is marked deleted, then its value is free again', async () => {
        await store.ensureIndex('items', { fields: { group: 1, title: 1 }, unique: true, partial: { deletedAt: null } });
        await items.insert({ _id: 'a', group: 'g', title: 'slug' });
        expect(await rejection(items.insert({ _id: 'b', group: 'g', title: 'slug' }))).toBeInstanceOf(DuplicateKeyError);
        await items.update('a', { $set: { deletedAt: '2024-01-01T00:00:00.000Z' } });
        await items.insert({ _id: 'b', group: 'g', title: 'slug' });
        expect(await rejection(items.update('a', { $set: { deletedAt: null } }))).toBeInstanceOf(DuplicateKeyError);
        expect(await rejection(items.update('a', { $unset: { deletedAt: '' } }))).toBeInstanceOf(DuplicateKeyError);
        await items.insert({ _id: 'c', group: 'g', title: 'slug', deletedAt: '2024-01-02T00:00:00.000Z' });
        expect(await items.count({ title: 'slug' })).toBe(3);
      });

      it('given duplicates already stored, when ensuring a unique index, then DuplicateKeyError and no index is created', async () => {
        await items.insert({ _id: 'a', title: 'same' });
        await items.insert({ _id: 'b', title: 'same' });
        expect(await rejection(store.ensureIndex('items', { fields: { title: 1 }, unique: true }))).toBeInstanceOf(DuplicateKeyError);
        await items.insert({ _id: 'c', title: 'same' });
        expect(await items.count({ title: 'same' })).toBe(3);
      });

      it('given an index, when ensuring it again, then nothing happens (idempotent), unique or not', async () => {
        await store.ensureIndex('items', { fields: { title: 1 }, unique: true });
        await store.ensureIndex('items', { fields: { title: 1 }, unique: true });
        await store.ensureIndex('items', { fields: { score: -1, group: 1 } });
        await store.ensureIndex('items', { fields: { score: -1, group: 1 } });
        await items.insert({ _id: 'a', title: 'x', score: 1 });
        await items.insert({ _id: 'b', title: 'y', score: 1 });
        expect(await rejection(items.insert({ _id: 'c', title: 'x' }))).toBeInstanceOf(DuplicateKeyError);
      });

      it('given a unique index, when deleting the holder, then its value can be inserted again', async () => {
        await store.ensureIndex('items', { fields: { title: 1 }, unique: true });
        await items.insert({ _id: 'a', title: 'x' });
        await items.delete('a');
        await items.insert({ _id: 'b', title: 'x' });
        await items.deleteMany({ title: 'x' });
        await items.insert({ _id: 'c', title: 'x' });
        expect(await items.count()).toBe(1);
      });
    });

    describe('transactions', () => {
      it('given writes to several collections, when the work resolves, then all are applied and its result returned', async () => {
        await items.insert({ _id: 'gone' });
        const result = await store.transaction(async (tx) => {
          await tx.collection<Item>('items').insert({ _id: 'a', title: 'A' });
          await tx.collection<Item>('items').update('a', { $inc: { score: 1 } });
          await tx.collection('items').delete('gone');
          await tx.collection('checkpoints').put({ _id: 'projection', position: 42 });
          return 'done';
        });
        expect(result).toBe('done');
        expect(await items.get('a')).toEqual({ _id: 'a', title: 'A', score: 1 });
        expect(await items.get('gone')).toBeNull();
        expect(await store.collection('checkpoints').get('projection')).toEqual({ _id: 'projection', position: 42 });
      });

      it('given writes, when the work throws, then none is applied and the error comes out', async () => {
        await items.insert({ _id: 'kept', score: 1 });
        const failure = new Error('boom');
        const error = await rejection(
          store.transaction(async (tx) => {
            await tx.collection<Item>('items').insert({ _id: 'a' });
            await tx.collection<Item>('items').update('kept', { $inc: { score: 1 } });
            await tx.collection<Item>('items').delete('kept');
            await tx.collection('checkpoints').put({ _id: 'projection', position: 1 });
            throw failure;
          }),
        );
        expect(error).toBe(failure);
        expect(await items.get('a')).toBeNull();
        expect(await items.get('kept')).toEqual({ _id: 'kept', score: 1 });
        expect(await store.collection('checkpoints').get('projection')).toBeNull();
      });

      it('given writes inside a transaction, when reading inside it, then its own writes are seen (get, find, count)', async () => {
        await items.insert({ _id: 'x', group: 'g', score: 1 });
        await items.insert({ _id: 'y', group: 'g', score: 2 });
        await store.transaction(async (tx) => {
          const col = tx.collection<Item>('items');
          await col.insert({ _id: 'a', group: 'g', score: 3 });
          await col.update('x', { $set: { score: 10 } });
          await col.delete('y');
          expect(await col.get('a')).toEqual({ _id: 'a', group: 'g', score: 3 });
          expect(await col.get('y')).toBeNull();
          const page = await col.find({ group: 'g' }, { sort: { score: 1 } });
          expect(page.items.map((item) => [item._id, item.score])).toEqual([
            ['a', 3],
            ['x', 10],
          ]);
          expect(page.count).toBe(2);
          expect(await col.count({ score: { $gte: 3 } })).toBe(2);
          expect((await col.findOne({ score: 10 }))?._id).toBe('x');
          // Outside the transaction, nothing is visible before commit.
          expect(await items.get('a')).toBeNull();
          expect((await items.get('x'))?.score).toBe(1);
        });
        expect((await items.find({}, { sort: { score: 1 } })).items.map((item) => item._id)).toEqual(['a', 'x']);
      });

      it('given a unique index, when a write inside a transaction violates it, then the whole transaction is aborted', async () => {
        await store.ensureIndex('items', { fields: { title: 1 }, unique: true });
        await items.insert({ _id: 'held', title: 'taken' });
        const error = await rejection(
          store.transaction(async (tx) => {
            await tx.collection<Item>('items').insert({ _id: 'a', title: 'free' });
            await tx.collection('other').put({ _id: 'o' });
            await tx.collection<Item>('items').insert({ _id: 'b', title: 'taken' });
          }),
        );
        expect(error).toBeInstanceOf(DuplicateKeyError);
        expect(await items.get('a')).toBeNull();
        expect(await items.get('b')).toBeNull();
        expect(await store.collection('other').get('o')).toBeNull();
      });

      it('given a unique value freed and retaken inside one transaction, when it commits, then the index follows', async () => {
        await store.ensureIndex('items', { fields: { title: 1 }, unique: true });
        await items.insert({ _id: 'a', title: 'one' });
        await items.insert({ _id: 'b', title: 'two' });
        await store.transaction(async (tx) => {
          const col = tx.collection<Item>('items');
          await col.update('a', { $set: { title: 'tmp' } });
          await col.update('b', { $set: { title: 'one' } });
          await col.update('a', { $set: { title: 'two' } });
        });
        expect(await items.get('a')).toEqual({ _id: 'a', title: 'two' });
        expect(await items.get('b')).toEqual({ _id: 'b', title: 'one' });
        expect(await rejection(items.insert({ _id: 'c', title: 'one' }))).toBeInstanceOf(DuplicateKeyError);
        expect(await rejection(items.insert({ _id: 'c', title: 'two' }))).toBeInstanceOf(DuplicateKeyError);
        await items.insert({ _id: 'c', title: 'tmp' });
      });
    });

    describe('isolation', () => {
      it('given a document was put, when the caller mutates the object it passed, then the stored document is unchanged', async () => {
        const doc: Item = { _id: 'a', tags: ['x'], meta: { owner: 'u1' } };
        await items.put(doc);
        doc.tags?.push('y');
        (doc.meta as { owner: string }).owner = 'changed';
        doc.title = 'added';
        expect(await items.get('a')).toEqual({ _id: 'a', tags: ['x'], meta: { owner: 'u1' } });
      });

      it('given a stored document, when the caller mutates what get, find, findOne and update returned, then the store is unchanged', async () => {
        // Answers are read-only (read-store.port.ts): a change either fails (a frozen, shared
        // document) or lands on the caller's own copy; the store is unchanged either way.
        const attempt = (change: () => void) => {
          try {
            change();
          } catch (error) {
            expect(error).toBeInstanceOf(TypeError);
          }
        };
        await items.insert({ _id: 'a', tags: ['x'], meta: { owner: 'u1' } });
        const got = (await items.get('a')) as Item;
        attempt(() => got.tags?.push('y'));
        const found = (await items.find({})).items[0];
        attempt(() => ((found.meta as { owner: string }).owner = 'changed'));
        const one = (await items.findOne({ _id: 'a' })) as Item;
        attempt(() => (one.title = 'added'));
        const updated = (await items.update('a', { $set: { score: 1 } })) as Item;
        attempt(() => updated.tags?.push('z'));
        expect(await items.get('a')).toEqual({ _id: 'a', tags: ['x'], meta: { owner: 'u1' }, score: 1 });
      });

      it('given an update operand, when the caller mutates it afterwards, then the stored document is unchanged', async () => {
        const value = { list: [1] };
        await items.update('a', { $set: { value } }, { upsert: true });
        value.list.push(2);
        expect(await items.get('a')).toEqual({ _id: 'a', value: { list: [1] } });
      });
    });

    describe('collections', () => {
      it('given written collections, when listing, then their names are returned', async () => {
        await items.insert({ _id: 'a' });
        await store.collection('others').insert({ _id: 'b' });
        const names = await store.listCollections();
        expect(names).toEqual(expect.arrayContaining(['items', 'others']));
      });

      it('given a collection with documents and indexes, when dropping it, then both are gone', async () => {
        await store.ensureIndex('items', { fields: { title: 1 }, unique: true });
        await items.insert({ _id: 'a', title: 'x' });
        await store.dropCollections(['items']);
        expect(await store.listCollections()).not.toContain('items');
        expect(await items.count()).toBe(0);
        await items.insert({ _id: 'a', title: 'x' });
        await items.insert({ _id: 'b', title: 'x' });
        expect(await items.count()).toBe(2);
      });

      it('given three collections, when dropping two of them and a missing one together, then only the third is left', async () => {
        await items.insert({ _id: 'a' });
        await store.collection('others').insert({ _id: 'b' });
        await store.collection('kept').insert({ _id: 'c' });
        await store.dropCollections(['items', 'others', 'never']);
        const names = await store.listCollections();
        expect(names.filter((name) => ['items', 'others', 'never', 'kept'].includes(name))).toEqual(['kept']);
        expect(await store.collection('kept').get('c')).toEqual({ _id: 'c' });
      });

      it('given a collection name that is not allowed among those to drop, then the drop is refused and nothing is dropped', async () => {
        await items.insert({ _id: 'a' });
        await expect(store.dropCollections(['items', '$bad'])).rejects.toThrow();
        expect(await items.count()).toBe(1);
      });

      it('given a missing collection, when dropping it, then nothing fails', async () => {
        await store.dropCollections(['never']);
        expect(await store.listCollections()).not.toContain('never');
      });

      it('given an open store, when checking health, then it is ok', async () => {
        expect(await store.health()).toMatchObject({ ok: true });
      });
    });
  });
}
