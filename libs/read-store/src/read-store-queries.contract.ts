import { ReadStoreInputError } from './errors';
import type { Collection, Filter, Sort } from './read-store.port';
import { allPages, rejection, type ContractSubject, type Item } from './read-store-fixtures.contract';

/** Queries (filters, sorts, counts) and keyset pagination. */
export function queriesContract(subject: ContractSubject): void {
  let items: Collection<Item>;

  // Registered in the contract's describe, after the store is opened: runs before this area's own set-up.
  beforeEach(() => ({ items } = subject));

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
}
