import { DomainError } from '../../platform/src/errors';

/**
 * Sibling order: every space and collection carries a `position`, a fractional sort key (digits
 * 0-9A-Za-z, compared as strings, never ending in '0'). A key strictly between any two keys always
 * exists, so moving one item never renumbers its siblings.
 */
const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A key strictly between `a` and `b` (`''` is before everything, null after everything). Requires a < b. */
export function keyBetween(a: string, b: string | null): string {
  if (b !== null && a >= b) throw new Error(`keyBetween: ${a} is not before ${b}`);
  return midpoint(a, b);
}

function midpoint(a: string, b: string | null): string {
  if (b !== null) {
    let n = 0;
    while ((a[n] ?? '0') === b[n]) n++;
    if (n > 0) return b.slice(0, n) + midpoint(a.slice(n), b.slice(n));
  }
  const digitA = a ? DIGITS.indexOf(a[0]) : 0;
  const digitB = b !== null ? DIGITS.indexOf(b[0]) : DIGITS.length;
  if (digitB - digitA > 1) return DIGITS[Math.round((digitA + digitB) / 2)];
  if (b !== null && b.length > 1) return b.slice(0, 1);
  return DIGITS[digitA] + midpoint(a.slice(1), null);
}

/** `position` of a move request: place the item just before and/or just after a sibling. */
export interface PositionRequest {
  before?: string;
  after?: string;
}

/**
 * The key for an item placed among `siblings` (sorted by position, the item itself left out):
 * at the end without a request; just before `before`; just after `after`; between both when both
 * are given (they must then be neighbours in that order). 400 when a named sibling is not there.
 */
export function positionAmong(siblings: ReadonlyArray<{ id: string; position: string }>, request: PositionRequest | undefined, kind: string): string {
  const indexOf = (id: string) => {
    const index = siblings.findIndex((sibling) => sibling.id === id);
    if (index < 0) throw DomainError.invalid(`position names ${kind} ${id}, which is not a sibling at the destination`);
    return index;
  };
  const last = siblings.at(-1)?.position ?? '';
  if (!request || (request.before === undefined && request.after === undefined)) return keyBetween(last, null);
  if (request.before !== undefined && request.after !== undefined) {
    const after = indexOf(request.after);
    const before = indexOf(request.before);
    if (before !== after + 1) throw DomainError.invalid(`position.after (${request.after}) and position.before (${request.before}) must be neighbours in that order`);
    return keyBetween(siblings[after].position, siblings[before].position);
  }
  if (request.before !== undefined) {
    const before = indexOf(request.before);
    return keyBetween(before > 0 ? siblings[before - 1].position : '', siblings[before].position);
  }
  const after = indexOf(request.after!);
  return keyBetween(siblings[after].position, after + 1 < siblings.length ? siblings[after + 1].position : null);
}
