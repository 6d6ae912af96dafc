import { DuplicateKeyError } from './errors';
import type { Collection, ReadStore } from './read-store.port';
import { rejection, type ContractSubject, type Item } from './read-store-fixtures.contract';

/** Unique indexes, and collections as a whole: listing, dropping, health. */
export function collectionsContract(subject: ContractSubject): void {
  let store: ReadStore;
  let items: Collection<Item>;

  // Registered in the contract's describe, after the store is opened: runs before this area's own set-up.
  beforeEach(() => ({ store, items } = subject));

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
}
