import { DuplicateKeyError } from './errors';
import type { Collection, ReadStore } from './read-store.port';
import { rejection, type ContractSubject, type Item } from './read-store-fixtures.contract';

/** Transactions, and the isolation of stored documents from the objects callers hold. */
export function transactionsContract(subject: ContractSubject): void {
  let store: ReadStore;
  let items: Collection<Item>;

  // Registered in the contract's describe, after the store is opened: runs before this area's own set-up.
  beforeEach(() => ({ store, items } = subject));

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
}
