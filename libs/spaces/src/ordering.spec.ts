import { compareSiblings, keyBetween, placeAmong, positionAtEnd, type PositionRequest, type Sibling, type SiblingRef } from './ordering';

const space = (id: string): SiblingRef => ({ kind: 'space', id });
const collection = (id: string): SiblingRef => ({ kind: 'collection', id });

/** A small seeded generator (mulberry32): the property runs are random but reproducible. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Siblings as concurrent creates and moves leave them: keys from keyBetween, many of them shared. */
function siblingsFrom(next: () => number): Sibling[] {
  const keys: string[] = [];
  let last = '';
  for (let i = 0, n = 1 + Math.floor(next() * 6); i < n; i++) keys.push((last = keyBetween(last, null)));
  const count = Math.floor(next() * 12);
  return Array.from({ length: count }, (_, i) => ({
    kind: next() < 0.5 ? ('space' as const) : ('collection' as const),
    id: `s${Math.floor(next() * 1e6).toString(36)}${i}`,
    position: keys[Math.floor(next() * keys.length)],
  }));
}

/** The siblings with the item placed and the renumbering applied, in (position, id) order. */
function apply(siblings: readonly Sibling[], id: string, placement: ReturnType<typeof placeAmong>): Sibling[] {
  const renumbered = new Map(placement.renumber.map((entry) => [`${entry.kind}:${entry.id}`, entry.position]));
  return [
    ...siblings.map((sibling) => ({ ...sibling, position: renumbered.get(`${sibling.kind}:${sibling.id}`) ?? sibling.position })),
    { kind: 'space' as const, id, position: placement.position },
  ].sort(compareSiblings);
}

describe('sibling ordering', () => {
  it('always finds a key strictly between two keys, however often the same gap is split', () => {
    let low = '';
    const high = keyBetween('', null);
    for (let i = 0; i < 200; i++) {
      const next = keyBetween(low, high);
      expect(next > low && next < high).toBe(true);
      expect(next.endsWith('0')).toBe(false);
      low = next;
    }
    let before = high;
    for (let i = 0; i < 200; i++) {
      const next = keyBetween('', before);
      expect(next < before).toBe(true);
      before = next;
    }
  });

  it('never throws for equal or inverted bounds: it answers a key after the lower one', () => {
    expect(keyBetween('V', 'V') > 'V').toBe(true);
    expect(keyBetween('k', 'F') > 'k').toBe(true);
  });

  it('places at the end, before, after, or between neighbours; unknown siblings are 400', () => {
    const siblings: Sibling[] = [
      { kind: 'space', id: 'a', position: 'F' },
      { kind: 'space', id: 'b', position: 'V' },
    ];
    expect(placeAmong(siblings, undefined)).toEqual({ position: expect.any(String), renumber: [] });
    expect(placeAmong(siblings, undefined).position > 'V').toBe(true);
    const first = placeAmong(siblings, { before: space('a') }).position;
    expect(first < 'F').toBe(true);
    const middle = placeAmong(siblings, { after: space('a') }).position;
    expect(middle > 'F' && middle < 'V').toBe(true);
    expect(placeAmong(siblings, { after: space('a'), before: space('b') }).position).toBe(middle);
    expect(() => placeAmong(siblings, { after: space('b'), before: space('a') })).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => placeAmong(siblings, { before: space('zz') })).toThrow(expect.objectContaining({ status: 400 }));
    expect(placeAmong([], undefined).position).toBe(keyBetween('', null));
    expect(positionAtEnd(siblings)).toBe(placeAmong(siblings, undefined).position);
  });

  it('places a space among collections and a collection among spaces: they share one order under a parent', () => {
    const siblings: Sibling[] = [
      { kind: 'space', id: 'a', position: 'F' },
      { kind: 'collection', id: 'c', position: 'V' },
    ];
    const beforeCollection = placeAmong(siblings, { before: collection('c') }).position;
    expect(beforeCollection > 'F' && beforeCollection < 'V').toBe(true);
    expect(placeAmong(siblings, { after: space('a'), before: collection('c') }).position).toBe(beforeCollection);
  });

  it('refuses a pointer of the wrong kind: a collection pointer to a space is no sibling (400)', () => {
    const siblings: Sibling[] = [{ kind: 'space', id: 'a', position: 'F' }];
    expect(() => placeAmong(siblings, { before: collection('a') })).toThrow(
      expect.objectContaining({ status: 400, message: expect.stringContaining('collection a') }),
    );
  });

  it.each(['__proto__', 'constructor', 'toString'])('refuses a position naming %s, which is no sibling (400)', (id) => {
    const siblings: Sibling[] = [{ kind: 'space', id: 'a', position: 'F' }];
    expect(() => placeAmong(siblings, { before: space(id) })).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => placeAmong(siblings, { after: collection(id) })).toThrow(expect.objectContaining({ status: 400 }));
  });

  it('orders siblings that share a key by id, whatever order they come in', () => {
    const tied: Sibling[] = [
      { kind: 'space', id: 'c', position: 'V' },
      { kind: 'collection', id: 'a', position: 'V' },
      { kind: 'space', id: 'b', position: 'F' },
    ];
    const placed = placeAmong(tied, { after: collection('a') });
    expect(apply(tied, 'x', placed).map((sibling) => sibling.id)).toEqual(['b', 'a', 'x', 'c']);
    expect(placed.renumber).toEqual([{ kind: 'space', id: 'c', from: 'V', position: expect.any(String) }]);
  });

  it('for any siblings, shared keys included, and any request, puts the item exactly where asked and keeps the others in order', () => {
    const next = random(20260101);
    for (let run = 0; run < 1000; run++) {
      const siblings = siblingsFrom(next);
      const sorted = [...siblings].sort(compareSiblings);
      const order = sorted.map((sibling) => sibling.id);
      const index = Math.floor(next() * order.length);
      const anchor: SiblingRef = { kind: sorted[index]?.kind, id: sorted[index]?.id };
      const choice = order.length === 0 ? 0 : Math.floor(next() * 4);
      const following = sorted[index + 1];
      const request: PositionRequest | undefined =
        choice === 0
          ? undefined
          : choice === 1
            ? { before: anchor }
            : choice === 2
              ? { after: anchor }
              : following
                ? { after: anchor, before: { kind: following.kind, id: following.id } }
                : { after: anchor };
      const placement = placeAmong(siblings, request);
      const expected = [...order];
      expected.splice(request?.after !== undefined ? index + 1 : request?.before !== undefined ? index : order.length, 0, 'x');
      const result = apply(siblings, 'x', placement);
      expect({ run, siblings, request, order: result.map((sibling) => sibling.id) }).toEqual({ run, siblings, request, order: expected });
      for (const sibling of result) expect(sibling.position.endsWith('0')).toBe(false);
      // Only siblings that shared a key with the gap's upper neighbour are renumbered.
      for (const entry of placement.renumber)
        expect(siblings.find((sibling) => sibling.kind === entry.kind && sibling.id === entry.id)?.position).toBe(entry.from);
    }
  });
});
