import { createHash } from 'node:crypto';

/**
 * Canonical JSON for content-addressed blobs: object keys sorted (by UTF-16 code units, at every
 * depth), members whose value is `undefined` left out, no whitespace. Equal content therefore gives
 * equal bytes and equal hashes, whatever order the keys were set in.
 *
 * Written by hand rather than with a `JSON.stringify` replacer: JavaScript enumerates integer-like
 * keys ("2", "10") before the others whatever the insertion order, so re-building sorted objects
 * would not sort them.
 */
export function canonicalJson(value: unknown): string {
  const out = serialize(value, new Set());
  if (out === undefined) throw new TypeError('canonical JSON: the value itself is undefined or not serializable');
  return out;
}

/** Lower-case hex SHA-256 of bytes, as the blob store names them. */
export function sha256Hex(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Whether two JSON values are equal as canonical JSON (key order and undefined members ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  return canonicalJson(a) === canonicalJson(b);
}

function serialize(value: unknown, ancestors: Set<object>): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      // JSON has no NaN or Infinity: refuse them rather than silently store null.
      if (!Number.isFinite(value)) throw new TypeError(`canonical JSON: ${value} is not a JSON number`);
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'bigint':
      throw new TypeError('canonical JSON: bigint is not a JSON value');
  }
  if (value === null) return 'null';
  const object = value as Record<string, unknown> & { toJSON?: () => unknown };
  if (typeof object.toJSON === 'function') return serialize(object.toJSON(), ancestors);
  if (ancestors.has(object)) throw new TypeError('canonical JSON: the value contains a cycle');
  ancestors.add(object);
  let out: string;
  if (Array.isArray(object)) {
    // As JSON.stringify does: an array slot that cannot be serialized becomes null.
    out = '[' + object.map((item) => serialize(item, ancestors) ?? 'null').join(',') + ']';
  } else {
    const members: string[] = [];
    for (const key of Object.keys(object).sort()) {
      const member = serialize(object[key], ancestors);
      if (member !== undefined) members.push(JSON.stringify(key) + ':' + member);
    }
    out = '{' + members.join(',') + '}';
  }
  ancestors.delete(object);
  return out;
}
