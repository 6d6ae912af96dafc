import fc from 'fast-check';
import { Context } from 'mingo/core';
import { Query } from 'mingo/query';
import * as queryOperators from 'mingo/operators/query';
import type { Doc, Filter } from '../read-store.port';
import { scalarConditions } from './scalar-conditions';

/** mingo as the memory read store compiles filters: the reference every shortcut answer must equal. */
const mingo = (filter: Filter) => new Query(filter, { scriptEnabled: false, context: Context.init({ query: queryOperators }) });

const scalar = fc.oneof(fc.constantFrom('a', 'b', '1', '', 'open'), fc.constantFrom(0, 1, -1, 2.5), fc.boolean(), fc.constant(null));
/** Values a document may hold: scalars, and the arrays and objects the shortcut leaves to mingo. */
const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('b', 'c'), scalar, { maxKeys: 2 }) },
);
const field = fc.constantFrom('a', 'b', 'a.b', 'a.c', 'b.c.d', '0', 'a.0');
const document = fc.record(
  { a: value, b: fc.oneof(value, fc.record({ c: fc.oneof(value, fc.record({ d: value })) })) },
  { requiredKeys: [] },
);
const condition = fc.oneof(
  scalar,
  scalar.map(($eq) => ({ $eq })),
  scalar.map(($ne) => ({ $ne })),
  fc.array(scalar, { maxLength: 3 }).map(($in) => ({ $in })),
  fc.boolean().map(($exists) => ({ $exists })),
);
const filter = fc.dictionary(field, condition, { minKeys: 1, maxKeys: 3 });

describe('scalarConditions', () => {
  it('answers every document it answers for exactly as mingo does', () => {
    fc.assert(
      fc.property(filter, fc.array(document, { maxLength: 8 }), (conditions, documents) => {
        const shortcut = scalarConditions(conditions)!;
        const reference = mingo(conditions);
        for (const doc of documents as Doc[]) {
          const answer = shortcut(doc);
          if (answer !== undefined) expect([conditions, doc, answer]).toEqual([conditions, doc, reference.test(doc)]);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('answers for documents whose tested fields hold scalars or nothing', () => {
    const test = scalarConditions({ status: { $in: ['open', 'resolved'] }, 'target.pageId': 'p1', changeRequestId: null })!;
    expect(test({ _id: '1', status: 'open', target: { pageId: 'p1' } })).toBe(true);
    expect(test({ _id: '2', status: 'deleted', target: { pageId: 'p1' }, changeRequestId: null })).toBe(false);
    expect(test({ _id: '3', status: 'open', target: { pageId: 'p1' }, changeRequestId: 'cr' })).toBe(false);
  });

  it('leaves a document with an array on a tested path to mingo', () => {
    expect(scalarConditions({ tags: 'x' })!({ _id: '1', tags: ['x', 'y'] })).toBeUndefined();
    expect(scalarConditions({ 'items.id': 'x' })!({ _id: '1', items: [{ id: 'x' }] })).toBeUndefined();
  });

  it('leaves a document with an object at a tested path to mingo', () => {
    expect(scalarConditions({ target: null })!({ _id: '1', target: { pageId: 'p' } })).toBeUndefined();
  });

  it('tells equal values of different types apart', () => {
    expect(scalarConditions({ n: 1 })!({ _id: '1', n: '1' })).toBe(false);
    expect(scalarConditions({ n: { $in: [true] } })!({ _id: '1', n: 1 })).toBe(false);
  });

  it('takes no filter naming __proto__ in a path (mingo refuses it)', () => {
    expect(scalarConditions({ '__proto__.polluted': null })).toBeNull();
    expect(scalarConditions({ 'a.__proto__': 1 })).toBeNull();
  });

  it('takes no filter with a top-level operator, an operator it does not know, or two operators on a field', () => {
    expect(scalarConditions({ $or: [{ a: 1 }, { b: 2 }] })).toBeNull();
    expect(scalarConditions({ a: { $gt: 1 } })).toBeNull();
    expect(scalarConditions({ a: { $ne: 1, $exists: true } })).toBeNull();
    expect(scalarConditions({ a: { b: 1 } })).toBeNull();
    expect(scalarConditions({ a: { $in: [{ b: 1 }] } })).toBeNull();
  });
});
