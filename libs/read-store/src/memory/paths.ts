import { typeRank } from '../pagination';
/** Dotted field paths and MongoDB's value order, for the memory read store. */
import { ReadStoreInputError } from '../errors';

/** Splits and checks a dotted field path (`a.b.0.c`). */
export function splitPath(path: string, what = 'field'): string[] {
  if (typeof path !== 'string' || path.length === 0 || path.length > 1024) {
    throw new ReadStoreInputError(`invalid ${what} path ${JSON.stringify(String(path).slice(0, 100))}`);
  }
  const segments = path.split('.');
  for (const segment of segments) {
    if (segment === '' || segment === '__proto__') {
      throw new ReadStoreInputError(`invalid ${what} path ${JSON.stringify(path.slice(0, 100))}`);
    }
  }
  return segments;
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * The value at a path, `undefined` when missing. Through an array, a numeric segment selects an
 * element and any other segment collects that member of every element (MongoDB's multikey paths);
 * such collected values come back as an array.
 */
export function resolvePath(doc: unknown, segments: readonly string[]): unknown {
  let current: unknown = doc;
  for (let i = 0; i < segments.length; i++) {
    if (current === null || typeof current !== 'object') return undefined;
    const segment = segments[i];
    if (Array.isArray(current)) {
      if (isIndex(segment)) {
        current = current[Number(segment)];
        continue;
      }
      const rest = segments.slice(i);
      const collected: unknown[] = [];
      for (const element of current) {
        const value = resolvePath(element, rest);
        if (value === undefined) continue;
        if (Array.isArray(value)) collected.push(...value);
        else collected.push(value);
      }
      return collected.length > 0 ? collected : undefined;
    }
    current = hasOwn.call(current, segment) ? (current as Record<string, unknown>)[segment] : undefined;
  }
  return current;
}

export function isIndex(segment: string): boolean {
  return /^(0|[1-9]\d{0,8})$/.test(segment);
}

/**
 * Compares two JSON values in sort order. Null and missing are equal; values of different types
 * order by `typeRank`; strings compare by UTF-16 code units, like mingo's comparison operators;
 * objects compare by their sorted keys then values and arrays element-wise, again like mingo, so
 * that a page's keyset filter agrees with the sort.
 */
export function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  const rankA = typeRank(a);
  const rankB = typeRank(b);
  if (rankA !== rankB) return rankA < rankB ? -1 : 1;
  switch (rankA) {
    case 0:
      return 0;
    case 1:
    case 2:
    case 5:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 4: {
      const xs = (a as unknown[]).slice().sort(compareValues);
      const ys = (b as unknown[]).slice().sort(compareValues);
      const size = Math.min(xs.length, ys.length);
      for (let i = 0; i < size; i++) {
        const order = compareValues(xs[i], ys[i]);
        if (order !== 0) return order;
      }
      return xs.length - ys.length < 0 ? -1 : xs.length === ys.length ? 0 : 1;
    }
    default: {
      const objA = a as Record<string, unknown>;
      const objB = b as Record<string, unknown>;
      const keysA = Object.keys(objA).sort();
      const keysB = Object.keys(objB).sort();
      const order = compareValues(keysA, keysB);
      if (order !== 0) return order;
      for (const key of keysA) {
        const byValue = compareValues(objA[key], objB[key]);
        if (byValue !== 0) return byValue;
      }
      return 0;
    }
  }
}

/**
 * The value a sort key takes in a document: plain member access along the path (a numeric segment
 * indexes an array), missing as undefined. Matches how cursors record positions (`encodeCursor`).
 */
export function sortKeyValue(doc: unknown, segments: readonly string[]): unknown {
  let current: unknown = doc;
  for (let i = 0; i < segments.length; i++) {
    if (current === null || typeof current !== 'object') return undefined;
    const segment = segments[i];
    if (Array.isArray(current)) {
      if (!isIndex(segment)) return undefined;
      current = current[Number(segment)];
    } else {
      current = hasOwn.call(current, segment) ? (current as Record<string, unknown>)[segment] : undefined;
    }
  }
  return current;
}
