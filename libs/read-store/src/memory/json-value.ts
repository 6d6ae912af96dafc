/**
 * Cloning of JSON values for the memory read store. Everything that enters the store is copied
 * with `cloneIn`, which also refuses what JSON cannot represent; everything that leaves it is copied
 * with the faster, trusting `cloneOut`. Both are several times faster than `structuredClone` on
 * read-model sized documents.
 */
import { isPlainObject } from '#platform/plain-object';
import { ReadStoreInputError } from '../errors';

/** Deepest nesting accepted (MongoDB's own limit); also stops cyclic structures. */
export const MAX_DEPTH = 100;

class JsonValueError extends Error {
  readonly segments: string[] = [];
  constructor(readonly reason: string) {
    super(reason);
  }
}

/**
 * A deep copy of `value` made only of strings, finite numbers, booleans, null, arrays and plain
 * objects. Object members whose value is `undefined` are dropped (as `JSON.stringify` does);
 * anything else that is not JSON (functions, symbols, bigints, NaN/±Infinity, `undefined` or holes
 * in arrays, class instances such as `Date`, `__proto__` keys, cycles) is a `ReadStoreInputError`
 * naming the offending path.
 */
export function cloneIn<T>(value: T, what = 'value'): T {
  try {
    return copyIn(value, 0) as T;
  } catch (error) {
    if (error instanceof JsonValueError) {
      const path = error.segments.length > 0 ? `${what}.${error.segments.join('.')}` : what;
      throw new ReadStoreInputError(`${path} is not a JSON value: ${error.reason}`);
    }
    throw error;
  }
}

function copyIn(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (Number.isFinite(value)) return value;
      throw new JsonValueError(`${String(value)} is not a finite number`);
    case 'object': {
      if (value === null) return null;
      if (depth >= MAX_DEPTH) throw new JsonValueError(`nested deeper than ${MAX_DEPTH} levels (or cyclic)`);
      if (Array.isArray(value)) {
        const length = value.length;
        const out = new Array<unknown>(length);
        for (let i = 0; i < length; i++) {
          const element: unknown = value[i];
          if (element === undefined) throw atSegment(new JsonValueError('undefined in an array'), String(i));
          try {
            out[i] = copyIn(element, depth + 1);
          } catch (error) {
            throw atSegment(error, String(i));
          }
        }
        return out;
      }
      if (!isPlainObject(value)) {
        const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
        throw new JsonValueError(`${typeof name === 'string' && name ? name : 'class'} instance is not a plain object`);
      }
      const out: Record<string, unknown> = {};
      const source = value as Record<string, unknown>;
      for (const key in source) {
        const member = source[key];
        if (member === undefined) continue;
        if (key === '__proto__') throw atSegment(new JsonValueError('`__proto__` is not allowed as a key'), key);
        try {
          out[key] = copyIn(member, depth + 1);
        } catch (error) {
          throw atSegment(error, key);
        }
      }
      return out;
    }
    case 'undefined':
      throw new JsonValueError('undefined');
    default:
      throw new JsonValueError(`a ${typeof value}`);
  }
}

function atSegment(error: unknown, segment: string): unknown {
  if (error instanceof JsonValueError) error.segments.unshift(segment);
  return error;
}

/**
 * A deep copy of a value already known to be JSON (stored state). Object spread copies a plain
 * object about twice as fast as assigning its members one by one; nested values are then replaced.
 */
export function cloneOut<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const length = value.length;
    const out = new Array<unknown>(length);
    for (let i = 0; i < length; i++) out[i] = cloneOut(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const key in out) {
    const member = out[key];
    if (typeof member === 'object' && member !== null) out[key] = cloneOut(member);
  }
  return out as T;
}

/** Deep equality of JSON values, member order included (MongoDB's `$addToSet` semantics). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (let i = 0; i < keysA.length; i++) {
    if (keysA[i] !== keysB[i]) return false;
    if (!jsonEqual((a as Record<string, unknown>)[keysA[i]], (b as Record<string, unknown>)[keysB[i]])) return false;
  }
  return true;
}
