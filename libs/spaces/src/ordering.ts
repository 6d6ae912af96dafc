import { DomainError } from '#platform/errors';

/**
 * Sibling order: every space and collection carries a `position`, a fractional sort key (digits
 * 0-9A-Za-z, compared as strings, never ending in '0'). The spaces and collections under one
 * parent are siblings of one order (a space moves before a collection, a collection after a
 * space), and each kind's list shows its items in that order. Siblings are ordered by (position, id):
 * concurrent creates or moves can compute the same key, and the id then decides, the same way in
 * every list (the read store breaks sort ties by `_id`). A key strictly between two different keys
 * always exists, so a move renumbers nothing unless it lands between two siblings that share a key.
 */
const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * A key strictly between `a` and `b` (`''` is before everything, null after everything). When
 * there is none (`a >= b`, which ties under concurrency produce) it never throws: it answers a key
 * just after `a`, and callers that need a strict order renumber (`placeAmong` does).
 */
export function keyBetween(a: string, b: string | null): string {
  return midpoint(a, b !== null && a >= b ? null : b);
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

/** Spaces and collections under one parent are siblings of one order. */
export type SiblingKind = 'space' | 'collection';

/** A sibling named in a move request: `{ type: 'space', space }` or `{ type: 'collection', collection }`. */
export interface SiblingRef {
  kind: SiblingKind;
  id: string;
}

/** `position` of a move request: place the item just before and/or just after a sibling. */
export interface PositionRequest {
  before?: SiblingRef;
  after?: SiblingRef;
}

export interface Sibling extends SiblingRef {
  position: string;
}

/**
 * Where an item goes: its `position`, and the siblings that need a new key for it to fit (only when
 * it lands between two siblings that share a key; each keeps its place relative to the others).
 */
export interface Placement {
  position: string;
  renumber: Array<{ kind: SiblingKind; id: string; from: string; position: string }>;
}

/** The (position, id) order of siblings (the kind last: a space and a collection never share an id in practice). */
export function compareSiblings(a: Sibling, b: Sibling): number {
  if (a.position !== b.position) return a.position < b.position ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0;
}

/**
 * The place of an item among `siblings` (the item itself left out): at the end without a request;
 * just before `before`; just after `after`; between both when both are given (they must then be
 * neighbours in that order). 400 when a named sibling is not there.
 */
export function placeAmong(siblings: readonly Sibling[], request: PositionRequest | undefined): Placement {
  const sorted = [...siblings].sort(compareSiblings);
  const indexOf = (ref: SiblingRef) => {
    const index = sorted.findIndex((sibling) => sibling.kind === ref.kind && sibling.id === ref.id);
    if (index < 0) throw DomainError.invalid(`position names ${ref.kind} ${ref.id}, which is not a sibling at the destination`);
    return index;
  };
  let at = sorted.length;
  if (request?.before !== undefined && request.after !== undefined) {
    const after = indexOf(request.after);
    at = indexOf(request.before);
    if (at !== after + 1)
      throw DomainError.invalid(
        `position.after (${request.after.kind} ${request.after.id}) and position.before (${request.before.kind} ${request.before.id}) must be neighbours in that order`,
      );
  } else if (request?.before !== undefined) {
    at = indexOf(request.before);
  } else if (request?.after !== undefined) {
    at = indexOf(request.after) + 1;
  }
  const low = at > 0 ? sorted[at - 1].position : '';
  const high = at < sorted.length ? sorted[at].position : null;
  if (high === null || low < high) return { position: keyBetween(low, high), renumber: [] };
  // Between two siblings that share a key: the item takes a key after it, and the siblings after
  // the gap that share it take keys after the item's, in their order, below the next different key.
  let end = at;
  while (end < sorted.length && sorted[end].position === high) end++;
  const upper = end < sorted.length ? sorted[end].position : null;
  const position = keyBetween(high, upper);
  const renumber: Placement['renumber'] = [];
  let last = position;
  for (const sibling of sorted.slice(at, end)) {
    last = keyBetween(last, upper);
    renumber.push({ kind: sibling.kind, id: sibling.id, from: sibling.position, position: last });
  }
  return { position, renumber };
}

/** The key of an item placed after every sibling: never needs a renumbering. */
export function positionAtEnd(siblings: ReadonlyArray<{ position: string }>): string {
  const last = siblings.reduce((highest, sibling) => (sibling.position > highest ? sibling.position : highest), '');
  return keyBetween(last, null);
}
