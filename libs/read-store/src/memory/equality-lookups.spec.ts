/**
 * Equality lookups change how the memory read store finds documents, never what it finds: the same
 * writes and reads against a store with declared indexes (lookups) and one without (scans) give
 * the same answers, whatever the documents hold at the indexed fields (scalars of several types,
 * arrays, nested arrays on a dotted path, nothing) and whether the reads run inside a transaction.
 */
import fc from 'fast-check';
import type { Collection, Doc, Filter, ReadStore } from '../read-store.port';
import { MemoryReadStore } from './memory-read-store';

const ids = ['d0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7'];
const scalar = fc.constantFrom<unknown>('x', 'y', '1', 1, 1.0, 0, -0, true, false, '');
const fieldValue = fc.oneof(
  scalar,
  fc.constant(undefined),
  fc.constant(null),
  fc.array(scalar, { maxLength: 3 }),
  fc.constant({ nested: 'x' }),
  fc.constant([['x']]),
);
const document = fc.record({
  _id: fc.constantFrom(...ids),
  a: fieldValue,
  b: fieldValue,
  c: fc.oneof(fc.record({ d: fieldValue }), fc.array(fc.record({ d: fieldValue }), { maxLength: 2 }), fc.constant(undefined)),
});
const condition = fc.oneof(
  scalar,
  scalar.map((value) => ({ $eq: value })),
  fc.constant({ $exists: true }),
  fc.constant({ $in: ['x', 1] }),
);
const filter = fc
  .record({ a: condition, b: condition, 'c.d': condition }, { requiredKeys: [] })
  .map((f) => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)) as Filter);

type Step =
  | { kind: 'put'; doc: Doc }
  | { kind: 'delete'; id: string }
  | { kind: 'set'; filter: Filter; value: unknown }
  | { kind: 'read'; filter: Filter };
const step: fc.Arbitrary<Step> = fc.oneof(
  document.map((doc) => ({ kind: 'put' as const, doc: JSON.parse(JSON.stringify(doc)) as Doc })),
  fc.constantFrom(...ids).map((id) => ({ kind: 'delete' as const, id })),
  fc.tuple(filter, scalar).map(([f, value]) => ({ kind: 'set' as const, filter: f, value })),
  filter.map((f) => ({ kind: 'read' as const, filter: f })),
);

async function answers(collection: Collection<Doc>, f: Filter): Promise<unknown> {
  const page = await collection.find(f, { limit: 100, sort: { _id: 1 } });
  return { ids: page.items.map((doc) => doc._id), count: await collection.count(f), one: (await collection.findOne(f)) !== null };
}

async function run(store: ReadStore, steps: Step[], inTransaction: boolean): Promise<unknown[]> {
  const seen: unknown[] = [];
  const apply = async (collection: Collection<Doc>) => {
    for (const s of steps) {
      if (s.kind === 'put') await collection.put(s.doc);
      else if (s.kind === 'delete') await collection.delete(s.id);
      else if (s.kind === 'set') seen.push(await collection.updateMany(s.filter, { $set: { a: s.value } }));
      else seen.push(await answers(collection, s.filter));
    }
  };
  if (inTransaction) await store.transaction((tx) => apply(tx.collection('docs')));
  else await apply(store.collection('docs'));
  return seen;
}

describe('equality lookups in the memory read store', () => {
  it.each([false, true])('answer every read as a scan does (inside a transaction: %s)', async (inTransaction) => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 30 }), fc.array(step, { maxLength: 15 }), async (before, steps) => {
        const indexed = new MemoryReadStore();
        const scanned = new MemoryReadStore();
        await indexed.ensureIndex('docs', { fields: { a: 1, b: 1 } });
        await indexed.ensureIndex('docs', { fields: { 'c.d': 1 } });
        try {
          // Committed state first (lookups built on the first read and kept by later commits), then the steps.
          const expected = [...(await run(scanned, before, false)), ...(await run(scanned, steps, inTransaction))];
          const actual = [...(await run(indexed, before, false)), ...(await run(indexed, steps, inTransaction))];
          expect(actual).toEqual(expected);
          const all = { a: { $exists: true } };
          expect(await answers(indexed.collection('docs'), all)).toEqual(await answers(scanned.collection('docs'), all));
        } finally {
          await indexed.close();
          await scanned.close();
        }
      }),
      { numRuns: 300 },
    );
  });

  it('finds by the leading fields of a compound index', async () => {
    const store = new MemoryReadStore();
    await store.ensureIndex('memberships', { fields: { organizationId: 1, userId: 1, title: 1 } });
    const memberships = store.collection('memberships');
    for (let i = 0; i < 50; i++) await memberships.put({ _id: `m${i}`, organizationId: `o${i % 5}`, userId: `u${i % 7}` });
    const found = await memberships.find({ organizationId: 'o1', userId: 'u1' }, { limit: 100 });
    expect(found.items.map((doc) => doc._id)).toEqual(['m1', 'm36']);
    await store.close();
  });
});
