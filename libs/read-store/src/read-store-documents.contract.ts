import { DuplicateKeyError, ReadStoreInputError } from './errors';
import type { Collection, Doc } from './read-store.port';
import { rejection, type ContractSubject, type Item } from './read-store-fixtures.contract';

/** Documents by id, and the update operators. */
export function documentsContract(subject: ContractSubject): void {
  let items: Collection<Item>;

  // Registered in the contract's describe, after the store is opened: runs before this area's own set-up.
  beforeEach(() => ({ items } = subject));

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
      const created = await items.update('a', { $set: { title: 'x' }, $inc: { score: 1 }, $setOnInsert: { group: 'g' } }, { upsert: true });
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
}
