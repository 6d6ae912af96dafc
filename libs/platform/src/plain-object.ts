/**
 * A plain object: `{}` literals, parsed JSON, `Object.create(null)`. Class instances, arrays,
 * dates, buffers and maps are not.
 *
 * The test is by shape, not by identity with this realm's `Object.prototype`: an object made in
 * another realm (a decoder loaded once per process, while each Jest test file has its own realm)
 * is just as plain, and refusing it made stored events unreadable to the second test file run in a
 * worker.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as object | null;
  if (proto === null) return true;
  // Some realm's Object.prototype: its own prototype is null and it is the `[object Object]` kind.
  return (
    Object.getPrototypeOf(proto) === null &&
    Object.prototype.toString.call(value) === '[object Object]' &&
    typeof (proto as { hasOwnProperty?: unknown }).hasOwnProperty === 'function'
  );
}

/**
 * Freezes a JSON value (or any tree of plain objects and arrays) and everything in it, once: a
 * frozen value is answered as it is (its parts were frozen before it). Values shared between
 * readers (stored read-model documents, cached content blobs) are frozen so that a reader that
 * tries to change one fails loudly instead of changing it for everyone.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
  } else {
    for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return Object.freeze(value);
}
