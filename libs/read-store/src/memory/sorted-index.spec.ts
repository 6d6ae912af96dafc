import fc from 'fast-check';
import type { Doc, Filter, IndexSpec, Sort } from '../read-store.port';
import { MemoryReadStore } from './memory-read-store';

/**
 * Pages and counts read through the sorted indexes of declared indexes must be exactly what a scan
 * of the same documents answers (a store without the index is the reference), under inserts,
 * updates that change indexed fields, deletes, and transactions that commit or roll back.
 */

interface Item extends Doc {
  org: string;
  group?: string | number | null;
  n?: number | string | null;
  live?: boolean;
}

const INDEXES: IndexSpec[] = [{ fields: { org: 1, group: 1, n: 1 } }, { fields: { org: 1, n: -1 } }];

async function stores(): Promise<{ indexed: MemoryReadStore; scanned: MemoryReadStore }> {
  const indexed = new MemoryReadStore();
  for (const index of INDEXES) await indexed.ensureIndex('items', index);
  return { indexed, scanned: new MemoryReadStore() };
}

async function allPages(store: MemoryReadStore, filter: Filter, sort: Sort, limit: number): Promise<{ ids: string[]; counts: number[] }> {
  const ids: string[] = [];
  const counts: number[] = [];
  let after: string | undefined;
  do {
    const page = await store.collection<Item>('items').find(filter, { sort, limit, after });
    ids.push(...page.items.map((item) => item._id));
    counts.push(page.count);
    after = page.next;
  } while (after !== undefined);
  return { ids, counts };
}

const QUERIES: Array<{ filter: Filter; sort: Sort }> = [
  { filter: { org: 'a' }, sort: { group: 1, n: 1 } },
  { filter: { org: 'a', live: true }, sort: { group: 1, n: 1 } },
  { filter: { org: 'b', group: 'x' }, sort: { n: 1 } },
  { filter: { org: 'b', group: 'x' }, sort: { n: -1 } },
  { filter: { org: 'a' }, sort: { n: -1 } },
  { filter: { org: 'a' }, sort: { n: 1 } },
  { filter: { org: 'b', live: { $ne: false } }, sort: { n: -1 } },
  { filter: { org: 'a' }, sort: { group: -1, n: -1 } },
  { filter: { org: 'a', group: 'y', n: 2 }, sort: {} },
  { filter: { org: 'b', group: 'x', n: 1 }, sort: { _id: -1 } },
  { filter: { org: 'b', group: 'x', n: 1, live: true }, sort: {} },
  { filter: {}, sort: { org: 1, n: -1 } },
  { filter: { org: 'a', group: null }, sort: { n: 1 } },
  { filter: { org: 'b', group: { $eq: null }, live: true }, sort: { n: -1 } },
  { filter: { _id: { $in: ['i03', 'i07', 'i07', 'i30'] }, org: 'a' }, sort: { n: -1 } },
];

const value = fc.oneof(fc.constant(null), fc.constant(undefined), fc.integer({ min: 0, max: 4 }), fc.constantFrom('x', 'y', 'z'));
const item = fc.record({
  id: fc.integer({ min: 0, max: 24 }),
  org: fc.constantFrom('a', 'b'),
  group: value,
  n: value,
  live: fc.boolean(),
});
const operation = fc.oneof(
  fc.record({ kind: fc.constant('put' as const), item }),
  fc.record({ kind: fc.constant('update' as const), item }),
  fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 0, max: 24 }) }),
  fc.record({ kind: fc.constant('rolled back' as const), items: fc.array(item, { maxLength: 4 }) }),
);

function doc(generated: { id: number; org: string; group: unknown; n: unknown; live: boolean }): Item {
  const out: Item = { _id: `i${String(generated.id).padStart(2, '0')}`, org: generated.org, live: generated.live };
  if (generated.group !== undefined) out.group = generated.group as Item['group'];
  if (generated.n !== undefined) out.n = generated.n as Item['n'];
  return out;
}

type Operation = { kind: string; item?: unknown; id?: number; items?: unknown[] };

async function run(store: MemoryReadStore, op: Operation): Promise<void> {
  const items = store.collection<Item>('items');
  switch (op.kind) {
    case 'put':
      await items.put(doc(op.item as never));
      break;
    case 'update': {
      const { _id, ...rest } = doc(op.item as never);
      const $unset: Record<string, ''> = {};
      if (!('group' in rest)) $unset.group = '';
      if (!('n' in rest)) $unset.n = '';
      await items.update(_id, Object.keys($unset).length > 0 ? { $set: rest, $unset } : { $set: rest });
      break;
    }
    case 'delete':
      await items.delete(`i${String(op.id).padStart(2, '0')}`);
      break;
    default:
      await store
        .transaction(async (tx) => {
          for (const generated of (op.items ?? []) as never[]) await tx.collection<Item>('items').put(doc(generated));
          throw new Error('roll back');
        })
        .catch(() => undefined);
  }
}

describe('memory read store: sorted indexes', () => {
  it('every page and count read through an index equals the scan of the same documents, whatever the writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 4 }), async (operations, limit) => {
        const { indexed, scanned } = await stores();
        // Read once before writing, so that indexes and kept counts exist and are maintained by the writes.
        for (const { filter, sort } of QUERIES) await allPages(indexed, filter, sort, limit);
        for (const op of operations) {
          await run(indexed, op as never);
          await run(scanned, op as never);
        }
        for (const { filter, sort } of QUERIES) {
          const expected = await allPages(scanned, filter, sort, limit);
          const actual = await allPages(indexed, filter, sort, limit);
          expect({ filter, sort, ...actual }).toEqual({ filter, sort, ...expected });
          expect(await indexed.collection('items').count(filter)).toBe(await scanned.collection('items').count(filter));
        }
      }),
      { numRuns: 150 },
    );
  });

  it('an update that changes an indexed field moves the document to its new place in the page', async () => {
    const { indexed } = await stores();
    const items = indexed.collection<Item>('items');
    for (const n of [1, 2, 3]) await items.put({ _id: `i${n}`, org: 'a', n });
    expect((await items.find({ org: 'a' }, { sort: { n: -1 } })).items.map((i) => i._id)).toEqual(['i3', 'i2', 'i1']);
    await items.update('i1', { $set: { n: 9 } });
    expect((await items.find({ org: 'a' }, { sort: { n: -1 } })).items.map((i) => i._id)).toEqual(['i1', 'i3', 'i2']);
    await items.update('i3', { $set: { org: 'b' } });
    const page = await items.find({ org: 'a' }, { sort: { n: -1 } });
    expect({ ids: page.items.map((i) => i._id), count: page.count }).toEqual({ ids: ['i1', 'i2'], count: 2 });
  });

  it('a deleted document leaves the pages and the counts', async () => {
    const { indexed } = await stores();
    const items = indexed.collection<Item>('items');
    for (const n of [1, 2, 3]) await items.put({ _id: `i${n}`, org: 'a', n, live: true });
    expect(await items.count({ org: 'a', live: true })).toBe(3);
    await items.delete('i2');
    const page = await items.find({ org: 'a', live: true }, { sort: { n: -1 } });
    expect({ ids: page.items.map((i) => i._id), count: page.count, counted: await items.count({ org: 'a', live: true }) }).toEqual({
      ids: ['i3', 'i1'],
      count: 2,
      counted: 2,
    });
  });

  it('a transaction rolled back leaves the pages and the counts as they were', async () => {
    const { indexed } = await stores();
    const items = indexed.collection<Item>('items');
    for (const n of [1, 2]) await items.put({ _id: `i${n}`, org: 'a', n, live: true });
    expect(await items.count({ org: 'a', live: true })).toBe(2);
    await expect(
      indexed.transaction(async (tx) => {
        await tx.collection<Item>('items').put({ _id: 'i3', org: 'a', n: 0, live: true });
        await tx.collection<Item>('items').update('i1', { $set: { n: 7, live: false } });
        await tx.collection<Item>('items').delete('i2');
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    const page = await items.find({ org: 'a', live: true }, { sort: { n: 1 } });
    expect({ ids: page.items.map((i) => i._id), count: page.count, counted: await items.count({ org: 'a', live: true }) }).toEqual({
      ids: ['i1', 'i2'],
      count: 2,
      counted: 2,
    });
  });

  it('a null equality on an indexed field reads the documents holding null and those missing the field', async () => {
    const { indexed } = await stores();
    const items = indexed.collection<Item>('items');
    await items.put({ _id: 'i1', org: 'a', group: null, n: 1 });
    await items.put({ _id: 'i2', org: 'a', n: 2 });
    await items.put({ _id: 'i3', org: 'a', group: 'x', n: 3 });
    const page = await items.find({ org: 'a', group: null }, { sort: { n: -1 } });
    expect({ ids: page.items.map((i) => i._id), count: page.count }).toEqual({ ids: ['i2', 'i1'], count: 2 });
  });

  it('a filter naming ids answers each named document matching the rest of the filter once, unknown ids left out', async () => {
    const { indexed } = await stores();
    const items = indexed.collection<Item>('items');
    for (const n of [1, 2, 3]) await items.put({ _id: `i${n}`, org: n === 2 ? 'b' : 'a', n });
    const page = await items.find({ _id: { $in: ['i3', 'i1', 'i2', 'i3', 'i9'] }, org: 'a' }, { sort: { n: 1 } });
    expect({ ids: page.items.map((i) => i._id), count: page.count }).toEqual({ ids: ['i1', 'i3'], count: 2 });
    expect(await items.count({ _id: { $in: ['i1', 'i2', 'i9'] } })).toBe(2);
  });

  it('a document holding an array at an indexed field is still found (the index gives way to a scan)', async () => {
    const { indexed } = await stores();
    const items = indexed.collection<Doc>('items');
    await items.put({ _id: 'i1', org: 'a', n: 1 });
    await items.put({ _id: 'i2', org: ['a', 'b'], n: 2 });
    const page = await items.find({ org: 'a' }, { sort: { n: -1 } });
    expect({ ids: page.items.map((i) => i._id), count: page.count }).toEqual({ ids: ['i2', 'i1'], count: 2 });
  });
});
