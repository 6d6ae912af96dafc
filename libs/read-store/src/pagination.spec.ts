import { Query } from 'mingo';
import { ReadStoreInputError } from './errors';
import {
  afterCursorFilter,
  checkLimit,
  decodeCursor,
  encodeCursor,
  filterAfter,
  normalizeSort,
  readCursor,
  type SortSpec,
} from './pagination';
import type { Doc } from './read-store.port';

describe('pagination', () => {
  describe('normalizeSort', () => {
    it('given no sort, then _id ascending', () => {
      expect(normalizeSort()).toEqual([['_id', 1]]);
      expect(normalizeSort({})).toEqual([['_id', 1]]);
    });

    it('given fields, then they keep their order and _id is appended', () => {
      expect(normalizeSort({ b: -1, 'a.c': 1 })).toEqual([
        ['b', -1],
        ['a.c', 1],
        ['_id', 1],
      ]);
    });

    it('given _id among the fields, then it keeps its direction and later keys are dropped', () => {
      expect(normalizeSort({ x: 1, _id: -1, y: 1 })).toEqual([
        ['x', 1],
        ['_id', -1],
      ]);
    });

    it('given a direction other than 1 or -1, or a bad field, then ReadStoreInputError', () => {
      for (const sort of [{ x: 0 }, { x: '1' }, { x: 2 }, { '': 1 }, { $x: 1 }, { 'a..b': 1 }]) {
        expect(() => normalizeSort(sort as never)).toThrow(ReadStoreInputError);
      }
    });
  });

  describe('checkLimit', () => {
    it('given nothing, then the default; given 1..1000, then itself', () => {
      expect(checkLimit()).toBe(50);
      expect(checkLimit(1)).toBe(1);
      expect(checkLimit(1000)).toBe(1000);
    });

    it('given 0, 1001, 2.5, NaN or a string, then ReadStoreInputError', () => {
      for (const limit of [0, 1001, 2.5, NaN, -1, '10']) {
        expect(() => checkLimit(limit as number)).toThrow(ReadStoreInputError);
      }
    });
  });

  describe('cursors', () => {
    const sort: SortSpec = [
      ['title', 1],
      ['meta.rank', -1],
      ['_id', 1],
    ];

    it('given a document, when encoding then decoding, then its sort values come back (missing as null)', () => {
      const doc: Doc = { _id: 'a', title: 'T', meta: { rank: 3 } };
      const cursor = encodeCursor(doc, sort);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeCursor(cursor, sort)).toEqual(['T', 3, 'a']);
      expect(decodeCursor(encodeCursor({ _id: 'b' }, sort), sort)).toEqual([null, null, 'b']);
    });

    it('given a cursor for another sort, garbage or a wrong shape, then ReadStoreInputError', () => {
      const cursor = encodeCursor({ _id: 'a', title: 'T' }, sort);
      const other: SortSpec = [
        ['title', -1],
        ['meta.rank', -1],
        ['_id', 1],
      ];
      const bad = [
        '',
        'not base64!',
        'abc',
        Buffer.from('{"a":1}').toString('base64url'),
        Buffer.from('["x","T",1]').toString('base64url'),
        cursor.slice(0, -2),
        'A'.repeat(20_000),
      ];
      for (const value of bad) expect(() => decodeCursor(value, sort)).toThrow(ReadStoreInputError);
      expect(() => decodeCursor(cursor, other)).toThrow(ReadStoreInputError);
      expect(() => decodeCursor(cursor, [['_id', 1]])).toThrow(ReadStoreInputError);
      expect(() => decodeCursor(42 as unknown as string, sort)).toThrow(ReadStoreInputError);
    });

    it('given a count carried by a cursor, then it is read back only for the filter it counted', () => {
      const cursor = encodeCursor({ _id: 'a', title: 'T' }, sort, { filter: { org: 'o' }, count: 42 });
      expect(readCursor(cursor, sort, { org: 'o' })).toEqual({ values: ['T', null, 'a'], count: 42 });
      expect(readCursor(cursor, sort, { org: 'p' })).toEqual({ values: ['T', null, 'a'] });
      expect(decodeCursor(cursor, sort)).toEqual(['T', null, 'a']);
      const forged = Buffer.from(
        JSON.stringify([JSON.parse(Buffer.from(cursor, 'base64url').toString())[0], 'T', null, 'a', ['x', -1]]),
      ).toString('base64url');
      expect(() => readCursor(forged, sort, {})).toThrow(ReadStoreInputError);
    });
  });

  describe('afterCursorFilter', () => {
    it('given ascending after null, then any non-null value, or null with a greater _id', () => {
      expect(
        afterCursorFilter(
          [
            ['f', 1],
            ['_id', 1],
          ],
          [null, 'k'],
        ),
      ).toEqual({
        $or: [{ f: { $ne: null } }, { f: { $eq: null }, _id: { $gt: 'k' } }],
      });
    });

    it('given descending after null, then only null with a greater _id', () => {
      expect(
        afterCursorFilter(
          [
            ['f', -1],
            ['_id', 1],
          ],
          [null, 'k'],
        ),
      ).toEqual({ f: { $eq: null }, _id: { $gt: 'k' } });
    });

    it('given descending after a number, then smaller numbers or null, as flat top-level branches', () => {
      expect(
        afterCursorFilter(
          [
            ['f', -1],
            ['_id', 1],
          ],
          [5, 'k'],
        ),
      ).toEqual({
        $or: [{ f: { $lt: 5 } }, { f: { $eq: null } }, { f: { $eq: 5 }, _id: { $gt: 'k' } }],
      });
    });

    it('given ascending after a string, then greater strings or one branch per later type (never arrays)', () => {
      expect(
        afterCursorFilter(
          [
            ['f', 1],
            ['_id', -1],
          ],
          ['m', 'k'],
        ),
      ).toEqual({
        $or: [{ f: { $gt: 'm' } }, { f: { $type: 'object' } }, { f: { $type: 'bool' } }, { f: { $eq: 'm' }, _id: { $lt: 'k' } }],
      });
    });

    it('given a filter, then filterAfter copies it into every branch and keeps the $or at the top level', () => {
      const sort: SortSpec = [
        ['f', 1],
        ['_id', 1],
      ];
      expect(filterAfter({ org: 'o' }, sort, [3, 'k'])).toEqual({
        $or: [
          { org: 'o', f: { $gt: 3 } },
          { org: 'o', f: { $type: 'string' } },
          { org: 'o', f: { $type: 'object' } },
          { org: 'o', f: { $type: 'bool' } },
          { org: 'o', f: { $eq: 3 }, _id: { $gt: 'k' } },
        ],
      });
      // A branch naming a field the filter constrains keeps both conditions.
      expect(
        filterAfter(
          { f: { $lt: 10 } },
          [
            ['f', -1],
            ['_id', 1],
          ],
          [null, 'k'],
        ),
      ).toEqual({ $and: [{ f: { $lt: 10 } }, { f: { $eq: null }, _id: { $gt: 'k' } }] });
    });

    it('given a wrong number of values, then ReadStoreInputError', () => {
      expect(() => afterCursorFilter([['_id', 1]], [])).toThrow(ReadStoreInputError);
    });

    it('given every pair of values, when tested with mingo, then the filter agrees with MongoDB order', () => {
      const values: unknown[] = [undefined, null, -1, 0, 2.5, '', 'a', 'b', { a: 1 }, { b: 1 }, false, true];
      const rank = (v: unknown): number =>
        v === null || v === undefined ? 0 : typeof v === 'number' ? 1 : typeof v === 'string' ? 2 : typeof v === 'boolean' ? 5 : 3;
      const order = (a: unknown, b: unknown): number => {
        if (rank(a) !== rank(b)) return rank(a) - rank(b);
        if (rank(a) === 0) return 0;
        if (rank(a) === 3) return JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0;
        return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
      };
      for (const direction of [1, -1] as const) {
        const sort: SortSpec = [
          ['f', direction],
          ['_id', 1],
        ];
        values.forEach((cursorValue, i) => {
          const query = new Query(afterCursorFilter(sort, [cursorValue === undefined ? null : cursorValue, `d${i}`]), {});
          values.forEach((value, j) => {
            const doc: Doc = { _id: `d${j}` };
            if (value !== undefined) doc.f = value;
            const byValue = order(value, cursorValue) * direction;
            const expected = byValue > 0 || (byValue === 0 && `d${j}` > `d${i}`);
            expect({ cursor: cursorValue, value, direction, after: query.test(doc) }).toEqual({
              cursor: cursorValue,
              value,
              direction,
              after: expected,
            });
          });
        });
      }
    });
  });
});
