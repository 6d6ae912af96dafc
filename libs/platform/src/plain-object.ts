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
  return Object.getPrototypeOf(proto) === null && Object.prototype.toString.call(value) === '[object Object]' && typeof (proto as { hasOwnProperty?: unknown }).hasOwnProperty === 'function';
}
