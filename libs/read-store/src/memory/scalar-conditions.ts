/**
 * A shortcut in front of mingo for the filters reads test most often: conditions on fields that
 * hold scalars. Walking an index, the memory read store tests each document it passes against what
 * the index does not decide (`{ status: { $in: ['open', 'resolved'] } }` along a comment list's
 * index); mingo answers each such test through its generic operator machinery, about a microsecond
 * a document, where comparing a field's value with a constant takes a few nanoseconds.
 *
 * A filter qualifies when each of its top-level members is a dotted field path (no `$and`, `$or`,
 * …) whose condition is one of:
 * - a scalar or null (`{ f: 'x' }`, `{ f: null }`),
 * - `{ $eq: v }`, `{ $ne: v }` or `{ $in: [v, …] }` with scalars or null,
 * - `{ $exists: true | false }`.
 *
 * The shortcut answers only for documents whose tested paths lead through plain objects to a
 * scalar, null or nothing. Anywhere else (an array on the way or at the end, an object at the end),
 * MongoDB's rules (multikey matching, equality of documents) are mingo's to apply, so the test
 * answers `undefined` and the caller asks mingo. Within that domain the rules are MongoDB's:
 * equality is by type and value (`1` is not `'1'`), null equals null and missing, `$ne` is the
 * negation of equality, `$exists` asks whether the path holds anything, null included.
 */
import type { Doc, Filter } from '../read-store.port';

type Scalar = string | number | boolean | null;

/** Whether the document matches, or undefined when the shortcut cannot tell (mingo decides). */
export type ScalarTest = (doc: Doc) => boolean | undefined;

/** What `scalarAt` answers for a path through an array, or leading to an array or an object: mingo decides. */
const DEFER = Symbol('defer to the query engine');

interface Condition {
  path: readonly string[];
  /** Whether a scalar value (undefined for missing) satisfies the condition. */
  holds: (value: Scalar | undefined) => boolean;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** The shortcut's test for `filter`, or null when the filter has a member it does not cover. */
export function scalarConditions(filter: Filter): ScalarTest | null {
  const conditions: Condition[] = [];
  for (const field of Object.keys(filter)) {
    if (field.startsWith('$')) return null;
    const path = field.split('.');
    // mingo refuses `__proto__` in a selector (an invalid filter): left to it, so that it still does.
    if (path.includes('__proto__')) return null;
    const holds = conditionOf((filter as Record<string, unknown>)[field]);
    if (holds === null) return null;
    conditions.push({ path, holds });
  }
  return (doc) => {
    for (const { path, holds } of conditions) {
      const value = scalarAt(doc, path);
      if (value === DEFER) return undefined;
      if (!holds(value)) return false;
    }
    return true;
  };
}

function conditionOf(condition: unknown): Condition['holds'] | null {
  if (isScalar(condition)) return equals(condition);
  if (typeof condition !== 'object' || Array.isArray(condition)) return null;
  const operators = Object.keys(condition as object);
  if (operators.length !== 1) return null;
  const [operator] = operators;
  const operand = (condition as Record<string, unknown>)[operator];
  switch (operator) {
    case '$eq':
      return isScalar(operand) ? equals(operand) : null;
    case '$ne': {
      if (!isScalar(operand)) return null;
      const equal = equals(operand);
      return (value) => !equal(value);
    }
    case '$in': {
      if (!Array.isArray(operand) || !operand.every(isScalar)) return null;
      const tests = (operand as Scalar[]).map(equals);
      return (value) => tests.some((test) => test(value));
    }
    case '$exists':
      if (typeof operand !== 'boolean') return null;
      return (value) => (value !== undefined) === operand;
    default:
      return null;
  }
}

/** MongoDB's equality with a scalar: null equals null and missing; other values by type and value. */
function equals(expected: Scalar): Condition['holds'] {
  return expected === null ? (value) => value === null || value === undefined : (value) => value === expected;
}

function isScalar(value: unknown): value is Scalar {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

/** The value at a path that passes only through plain objects: a scalar, null, undefined (missing), or DEFER. */
function scalarAt(doc: Doc, path: readonly string[]): Scalar | undefined | typeof DEFER {
  let current: unknown = doc;
  for (const segment of path) {
    if (current === null || current === undefined) return undefined;
    if (typeof current !== 'object') return undefined;
    if (Array.isArray(current)) return DEFER;
    current = hasOwn.call(current, segment) ? (current as Record<string, unknown>)[segment] : undefined;
  }
  if (current === undefined || current === null || typeof current === 'string' || typeof current === 'boolean') return current;
  if (typeof current === 'number') return current;
  return DEFER;
}
