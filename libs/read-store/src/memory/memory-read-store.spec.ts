import { DuplicateKeyError, ReadStoreInputError, ReadStoreUnavailableError } from '../errors';
import { readStoreContract } from '../read-store.contract';
import type { Doc, ReadStoreTransaction, Sort } from '../read-store.port';
import { MemoryReadStore } from './memory-read-store';

readStoreContract('memory', async () => new MemoryReadStore());

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** A promise with its resolve function, to hold a transaction open. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('MemoryReadStore', () => {
  let store: MemoryReadStore;

  beforeEach(() => {
    store = new MemoryReadStore();
  });

  afterEach(async () => {
    await store.close();
  });

  describe('JSON values only', () => {
    class Point {
      constructor(readonly x: number) {}
    }
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const bad: Array<[string, unknown]> = [
      ['a function', () => 1],
      ['undefined in an array', [1, undefined]],
      ['an array hole', [1, , 3]],
      ['NaN', NaN],
      ['Infinity', Infinity],
      ['-Infinity', -Infinity],
      ['a Date', new Date(0)],
      ['a Map', new Map()],
      ['a class instance', new Point(1)],
      ['a RegExp', /x/],
      ['a Buffer', Buffer.from('x')],
      ['a bigint', BigInt(1)],
      ['a symbol', Symbol('s')],
      ['a cycle', cyclic],
      ['a __proto__ key', JSON.parse('{"__proto__": {"polluted": true}}')],
    ];

    for (const [name, value] of bad) {
      it(`given ${name} nested in a document, when inserting, putting or $set-ting it, then ReadStoreInputError and nothing is stored`, async () => {
        const col = store.collection('docs');
        expect(await rejection(col.insert({ _id: 'a', nested: { list: [value] } }))).toBeInstanceOf(ReadStoreInputError);
        expect(await rejection(col.put({ _id: 'a', value }))).toBeInstanceOf(ReadStoreInputError);
        expect(await rejection(col.update('a', { $set: { value } }, { upsert: true }))).toBeInstanceOf(ReadStoreInputError);
        expect(await col.get('a')).toBeNull();
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      });
    }

    it('given a bad value, when rejected, then the message names its path', async () => {
      const error = await rejection(store.collection('docs').put({ _id: 'a', outer: { list: [1, NaN] } }));
      expect((error as Error).message).toContain('document.outer.list.1');
    });

    it('given an object member that is undefined, when storing, then the member is dropped as JSON would', async () => {
      await store.collection('docs').put({ _id: 'a', gone: undefined, kept: 1 });
      expect(await store.collection('docs').get('a')).toEqual({ _id: 'a', kept: 1 });
      expect(Object.keys((await store.collection('docs').get('a')) as Doc)).toEqual(['_id', 'kept']);
    });

    it('given a document without a string _id, when storing, then ReadStoreInputError', async () => {
      const col = store.collection('docs');
      for (const doc of [{ _id: 1 }, { title: 'no id' }, null, 'text', [{ _id: 'a' }]]) {
        expect(await rejection(col.put(doc as unknown as Doc))).toBeInstanceOf(ReadStoreInputError);
      }
      expect(await rejection(col.get(7 as unknown as string))).toBeInstanceOf(ReadStoreInputError);
    });

    it('given a null-prototype object, when storing, then it is accepted as a plain object', async () => {
      const doc = Object.assign(Object.create(null) as Record<string, unknown>, { _id: 'a', x: 1 }) as Doc;
      await store.collection('docs').put(doc);
      expect(await store.collection('docs').get('a')).toEqual({ _id: 'a', x: 1 });
    });
  });

  describe('update documents', () => {
    beforeEach(async () => {
      await store.collection('docs').insert({
        _id: 'a',
        s: 'text',
        n: 5,
        list: [3, 1, 2],
        items: [
          { k: 1, v: 'a' },
          { k: 2, v: 'b' },
        ],
      });
    });

    const invalid: Array<[string, Record<string, unknown>]> = [
      ['a replacement document', { s: 'x' }],
      ['a mix of operators and fields', { $set: { s: 'x' }, n: 1 }],
      ['an empty update', {}],
      ['an unknown operator', { $frobnicate: { s: 1 } }],
      ['$currentDate (time must come from the event)', { $currentDate: { at: true } }],
      ['$inc with a non-number', { $inc: { n: '1' } }],
      ['$inc of a string field', { $inc: { s: 1 } }],
      ['$push onto a non-array', { $push: { s: 1 } }],
      ['$set through a string', { $set: { 's.x': 1 } }],
      ['conflicting paths', { $set: { 'a.b': 1 }, $unset: { a: '' } }],
      ['a change of _id', { $set: { _id: 'b' } }],
      ['$unset of _id', { $unset: { _id: '' } }],
      ['a non-object operand', { $set: 5 }],
      ['an empty path segment', { $set: { 'a..b': 1 } }],
      ['a NaN operand', { $set: { x: NaN } }],
    ];
    for (const [name, update] of invalid) {
      it(`given ${name}, when updating, then ReadStoreInputError and the document is unchanged`, async () => {
        const col = store.collection('docs');
        const before = await col.get('a');
        expect(await rejection(col.update('a', update))).toBeInstanceOf(ReadStoreInputError);
        expect(await rejection(col.updateMany({}, update))).toBeInstanceOf(ReadStoreInputError);
        expect(await col.get('a')).toEqual(before);
      });
    }

    it('given $set of _id to its own value, when updating, then it is accepted', async () => {
      expect(await store.collection('docs').update('a', { $set: { _id: 'a', n: 6 } })).toMatchObject({ _id: 'a', n: 6 });
    });

    it('given operators handled by mingo, when updating, then MongoDB semantics apply', async () => {
      const col = store.collection('docs');
      expect(await col.update('a', { $min: { n: 2 }, $max: { top: 9 } })).toMatchObject({ n: 2, top: 9 });
      expect(await col.update('a', { $mul: { n: 3 } })).toMatchObject({ n: 6 });
      expect(await col.update('a', { $rename: { s: 'renamed' } })).toMatchObject({ renamed: 'text' });
      expect((await col.update('a', { $pop: { list: -1 } }))?.list).toEqual([1, 2]);
      expect((await col.update('a', { $push: { list: { $each: [7, 8], $slice: -3 } } }))?.list).toEqual([2, 7, 8]);
      expect((await col.update('a', { $pull: { items: { k: 1 } } }))?.items).toEqual([{ k: 2, v: 'b' }]);
      expect((await col.update('a', { $set: { 'items.0.v': 'z' } }))?.items).toEqual([{ k: 2, v: 'z' }]);
      expect((await col.update('a', { $pull: { list: { $gte: 7 } } }))?.list).toEqual([2]);
      expect((await col.update('a', { $pullAll: { list: [2] } }))?.list).toEqual([]);
    });

    it('given $addToSet of objects, when an equal object is present, then it is not added again', async () => {
      const col = store.collection('docs');
      const doc = await col.update('a', { $addToSet: { items: { k: 1, v: 'a' } } });
      expect(doc?.items).toHaveLength(2);
      expect((await col.update('a', { $addToSet: { items: { k: 3, v: 'c' } } }))?.items).toHaveLength(3);
    });

    it('given updateMany where one document fails, when updating, then no document changes', async () => {
      const col = store.collection('docs');
      await col.insert({ _id: 'b', n: 'not a number' });
      expect(await rejection(col.updateMany({}, { $inc: { n: 1 } }))).toBeInstanceOf(ReadStoreInputError);
      expect((await col.get('a'))?.n).toBe(5);
    });
  });

  describe('queries', () => {
    it('given an unknown query operator or a bad filter, when finding, then ReadStoreInputError', async () => {
      const col = store.collection('docs');
      await col.insert({ _id: 'a' });
      expect(await rejection(col.find({ x: { $nope: 1 } }))).toBeInstanceOf(ReadStoreInputError);
      expect(await rejection(col.count({ $where: 'true' }))).toBeInstanceOf(ReadStoreInputError);
      expect(await rejection(col.findOne('x' as unknown as Doc))).toBeInstanceOf(ReadStoreInputError);
    });

    it('given an invalid collection name, when asking for it, then ReadStoreInputError', () => {
      for (const name of ['', 'a$b', 'system.users', 'x'.repeat(200), 'nul\0']) {
        expect(() => store.collection(name)).toThrow(ReadStoreInputError);
      }
    });

    it('given mixed values, when paginating every sort with every limit, then pages equal the unpaginated order', async () => {
      const values: unknown[] = [null, undefined, 0, -3, 2.5, 10, '', 'a', 'B', 'b', true, false, { a: 1 }, { a: 2 }, { b: 0 }];
      const col = store.collection('docs');
      let seed = 7;
      const random = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
      for (let i = 0; i < 60; i++) {
        const doc: Doc = { _id: `d${String(i).padStart(2, '0')}` };
        const a = values[Math.floor(random() * values.length)];
        const b = values[Math.floor(random() * values.length)];
        if (a !== undefined) doc.a = a;
        if (b !== undefined) doc.nested = { b };
        await col.insert(doc);
      }
      const sorts: Sort[] = [{ a: 1 }, { a: -1 }, { 'nested.b': 1, a: -1 }, { 'nested.b': -1, a: 1 }, { a: -1, _id: -1 }];
      for (const sort of sorts) {
        const whole = (await col.find({}, { sort, limit: 1000 })).items.map((d) => d._id);
        for (const limit of [1, 3, 7]) {
          const ids: string[] = [];
          let after: string | undefined;
          do {
            const page = await col.find({}, { sort, limit, after });
            ids.push(...page.items.map((d) => d._id));
            after = page.next;
          } while (after);
          expect(ids).toEqual(whole);
        }
      }
    });
  });

  describe('indexes', () => {
    it('given an index on the same fields with other options, when ensuring it, then ReadStoreInputError', async () => {
      await store.ensureIndex('docs', { fields: { slug: 1 }, unique: true });
      expect(await rejection(store.ensureIndex('docs', { fields: { slug: 1 } }))).toBeInstanceOf(ReadStoreInputError);
    });

    it('given a partial filter beyond equality and $exists, when ensuring the index, then ReadStoreInputError', async () => {
      expect(await rejection(store.ensureIndex('docs', { fields: { slug: 1 }, unique: true, partial: { n: { $gt: 1 } } }))).toBeInstanceOf(
        ReadStoreInputError,
      );
      expect(await rejection(store.ensureIndex('docs', { fields: { slug: 2 as 1 } }))).toBeInstanceOf(ReadStoreInputError);
      expect(await rejection(store.ensureIndex('docs', { fields: {} }))).toBeInstanceOf(ReadStoreInputError);
    });

    it('given a partial filter with $exists, when documents lack the field, then they do not take part', async () => {
      await store.ensureIndex('docs', { fields: { email: 1 }, unique: true, partial: { email: { $exists: true } } });
      const col = store.collection('docs');
      await col.insert({ _id: 'a' });
      await col.insert({ _id: 'b' });
      await col.insert({ _id: 'c', email: 'x@example.com' });
      expect(await rejection(col.insert({ _id: 'd', email: 'x@example.com' }))).toBeInstanceOf(DuplicateKeyError);
    });

    it('given a unique index without a partial filter, when two documents lack the field, then they collide on null', async () => {
      await store.ensureIndex('docs', { fields: { email: 1 }, unique: true });
      const col = store.collection('docs');
      await col.insert({ _id: 'a' });
      const error = await rejection(col.insert({ _id: 'b', email: null }));
      expect(error).toBeInstanceOf(DuplicateKeyError);
      expect((error as DuplicateKeyError).key).toEqual({ email: null });
    });

    it('given a unique index on an array field, when another document shares an element, then DuplicateKeyError', async () => {
      await store.ensureIndex('docs', { fields: { aliases: 1 }, unique: true });
      const col = store.collection('docs');
      await col.insert({ _id: 'a', aliases: ['x', 'y', 'y'] });
      await col.insert({ _id: 'b', aliases: ['z'] });
      const error = await rejection(col.insert({ _id: 'c', aliases: ['q', 'y'] }));
      expect((error as DuplicateKeyError).key).toEqual({ aliases: 'y' });
      await col.update('a', { $pull: { aliases: 'y' } });
      await col.insert({ _id: 'c', aliases: ['q', 'y'] });
    });

    it('given a unique index, when the duplicate comes from put or a transaction, then DuplicateKeyError reports the key', async () => {
      await store.ensureIndex('docs', { fields: { org: 1, slug: 1 }, unique: true });
      await store.collection('docs').insert({ _id: 'a', org: 'o', slug: 's' });
      const error = await rejection(
        store.transaction(async (tx) => {
          await tx.collection('docs').put({ _id: 'b', org: 'o', slug: 's' });
        }),
      );
      expect(error).toBeInstanceOf(DuplicateKeyError);
      expect(error).toMatchObject({ collection: 'docs', index: 'org,slug', key: { org: 'o', slug: 's' } });
    });
  });

  describe('what reads hand out', () => {
    it('outside a transaction, the stored document itself, frozen to its leaves', async () => {
      await store.collection('docs').insert({ _id: 'a', meta: { tags: ['x'] } });
      const first = await store.collection('docs').get('a');
      expect(first).toBe((await store.collection('docs').find({})).items[0]);
      expect(Object.isFrozen(first) && Object.isFrozen(first!.meta) && Object.isFrozen((first!.meta as { tags: string[] }).tags)).toBe(
        true,
      );
    });

    it('inside a transaction, a copy of its own', async () => {
      await store.collection('docs').insert({ _id: 'a', meta: { tags: ['x'] } });
      const inside = await store.transaction((tx) => tx.collection('docs').get('a'));
      expect(Object.isFrozen(inside)).toBe(false);
      expect(inside).not.toBe(await store.collection('docs').get('a'));
    });

    it('after an update, a new document: what was handed out before keeps its values', async () => {
      await store.collection('docs').insert({ _id: 'a', n: 1 });
      const before = await store.collection('docs').get('a');
      await store.collection('docs').update('a', { $set: { n: 2 } });
      expect(before).toEqual({ _id: 'a', n: 1 });
      expect(await store.collection('docs').get('a')).toEqual({ _id: 'a', n: 2 });
    });
  });

  describe('transactions', () => {
    it('given two concurrent transactions, when both run, then the second starts only after the first committed', async () => {
      const col = store.collection('docs');
      await col.insert({ _id: 'counter', value: 0 });
      const order: string[] = [];
      const hold = gate();
      const first = store.transaction(async (tx) => {
        order.push('first:start');
        const doc = await tx.collection('docs').get('counter');
        await hold.promise;
        await tx.collection('docs').put({ _id: 'counter', value: (doc?.value as number) + 1 });
        order.push('first:end');
      });
      const second = store.transaction(async (tx) => {
        order.push('second:start');
        const doc = await tx.collection('docs').get('counter');
        await tx.collection('docs').put({ _id: 'counter', value: (doc?.value as number) + 10 });
        order.push('second:end');
      });
      await tick();
      expect(order).toEqual(['first:start']);
      hold.open();
      await Promise.all([first, second]);
      expect(order).toEqual(['first:start', 'first:end', 'second:start', 'second:end']);
      expect((await col.get('counter'))?.value).toBe(11);
    });

    it('given a running transaction, when writing outside it, then the write waits for the commit while reads do not', async () => {
      const col = store.collection('docs');
      await col.insert({ _id: 'x', value: 0 });
      const hold = gate();
      const tx = store.transaction(async (t) => {
        await t.collection('docs').put({ _id: 'x', value: 1 });
        await hold.promise;
      });
      await tick();
      let written = false;
      const write = col.put({ _id: 'x', value: 2 }).then(() => (written = true));
      await tick();
      expect(written).toBe(false);
      expect((await col.get('x'))?.value).toBe(0);
      hold.open();
      await Promise.all([tx, write]);
      expect((await col.get('x'))?.value).toBe(2);
    });

    it('given a failed write that the work caught, when the work resolves, then the transaction still aborts', async () => {
      const col = store.collection('docs');
      await col.insert({ _id: 'a' });
      const error = await rejection(
        store.transaction(async (tx) => {
          await tx.collection('docs').put({ _id: 'b' });
          await tx
            .collection('docs')
            .insert({ _id: 'a' })
            .catch(() => undefined);
          await tx.collection('docs').put({ _id: 'c' });
        }),
      );
      expect(error).toBeInstanceOf(ReadStoreInputError);
      expect(await col.get('b')).toBeNull();
      expect(await col.get('c')).toBeNull();
    });

    it('given a transaction that ended, when its handle is used again, then ReadStoreInputError', async () => {
      let leaked: ReadStoreTransaction | undefined;
      await store.transaction(async (tx) => {
        leaked = tx;
      });
      expect(await rejection((leaked as ReadStoreTransaction).collection('docs').put({ _id: 'a' }))).toBeInstanceOf(ReadStoreInputError);
      expect(await store.collection('docs').get('a')).toBeNull();
    });

    it('given a transaction that failed, when the next one runs, then the queue goes on', async () => {
      await rejection(
        store.transaction(async () => {
          throw new Error('boom');
        }),
      );
      await store.transaction(async (tx) => tx.collection('docs').put({ _id: 'a' }));
      expect(await store.collection('docs').get('a')).toEqual({ _id: 'a' });
    });

    it('given updateMany and deleteMany inside a transaction, when reading inside, then they apply to its own writes', async () => {
      await store.collection('docs').insert({ _id: 'a', g: 1 });
      await store.transaction(async (tx) => {
        const col = tx.collection('docs');
        await col.insert({ _id: 'b', g: 1 });
        expect(await col.updateMany({ g: 1 }, { $set: { seen: true } })).toBe(2);
        expect(await col.count({ seen: true })).toBe(2);
        expect(await col.deleteMany({ _id: 'a' })).toBe(1);
        expect((await col.find()).items).toEqual([{ _id: 'b', g: 1, seen: true }]);
      });
      expect((await store.collection('docs').find()).items).toEqual([{ _id: 'b', g: 1, seen: true }]);
    });
  });

  describe('lifecycle', () => {
    it('given a closed store, when it is used, then ReadStoreUnavailableError, and health reports it', async () => {
      const col = store.collection('docs');
      await store.close();
      expect(await rejection(col.get('a'))).toBeInstanceOf(ReadStoreUnavailableError);
      expect(await rejection(col.put({ _id: 'a' }))).toBeInstanceOf(ReadStoreUnavailableError);
      expect(await rejection(store.transaction(async () => 1))).toBeInstanceOf(ReadStoreUnavailableError);
      expect(await rejection(store.listCollections())).toBeInstanceOf(ReadStoreUnavailableError);
      expect(await store.health()).toEqual({ ok: false, detail: expect.any(String) });
    });

    it('given a transaction running, when closing, then it completes first', async () => {
      const hold = gate();
      const tx = store.transaction(async (t) => {
        await hold.promise;
        await t.collection('docs').put({ _id: 'a' });
        return 'done';
      });
      await tick();
      const closing = store.close();
      hold.open();
      expect(await tx).toBe('done');
      await closing;
    });
  });

  describe('content version', () => {
    it('given reads, no-op writes and failed transactions, then the version stands; given committed changes, then it moves', async () => {
      const docs = store.collection('docs');
      const moved = async (work: () => Promise<unknown>) => {
        const before = store.contentVersion();
        await work().catch(() => undefined);
        return store.contentVersion() !== before;
      };
      expect(await moved(() => docs.put({ _id: 'a', n: 1 }))).toBe(true);
      expect(await moved(() => docs.get('a'))).toBe(false);
      expect(await moved(() => docs.find({ n: 1 }))).toBe(false);
      expect(await moved(() => docs.updateMany({ n: 99 }, { $set: { n: 2 } }))).toBe(false);
      expect(await moved(() => docs.delete('missing'))).toBe(false);
      expect(
        await moved(() =>
          store.transaction(async (tx) => {
            await tx.collection('docs').put({ _id: 'b', n: 1 });
            throw new Error('rolled back');
          }),
        ),
      ).toBe(false);
      expect(await docs.get('b')).toBeNull();
      expect(await moved(() => store.transaction(async (tx) => tx.collection('docs').update('a', { $inc: { n: 1 } })))).toBe(true);
      expect(await moved(() => docs.delete('a'))).toBe(true);
      expect(await moved(() => store.dropCollections(['docs']))).toBe(true);
    });
  });
});

describe('compiled filters', () => {
  it('answers a filter given again from the documents as they are now', async () => {
    const store = new MemoryReadStore();
    const spaces = store.collection('spaces');
    await spaces.put({ _id: 'a', status: 'open' });
    expect((await spaces.find({ status: { $in: ['open'] } })).items.map((doc) => doc._id)).toEqual(['a']);
    await spaces.put({ _id: 'b', status: 'open' });
    expect((await spaces.find({ status: { $in: ['open'] } })).items.map((doc) => doc._id)).toEqual(['a', 'b']);
  });

  it('refuses a filter naming __proto__ in a path, whatever the documents hold', async () => {
    const spaces = new MemoryReadStore().collection('spaces');
    await spaces.put({ _id: 'a', status: 'open' });
    expect(await rejection(spaces.find({ '__proto__.polluted': null }))).toBeInstanceOf(ReadStoreInputError);
    expect(await rejection(spaces.count({ 'status.__proto__': null }))).toBeInstanceOf(ReadStoreInputError);
  });

  it('tells apart filters whose JSON is the same but whose regular expressions differ', async () => {
    const store = new MemoryReadStore();
    const spaces = store.collection('spaces');
    await spaces.put({ _id: 'a', title: 'Alpha' });
    await spaces.put({ _id: 'b', title: 'Beta' });
    expect((await spaces.find({ title: { $regex: /^Al/ } })).items.map((doc) => doc._id)).toEqual(['a']);
    expect((await spaces.find({ title: { $regex: /^Be/ } })).items.map((doc) => doc._id)).toEqual(['b']);
  });
});
