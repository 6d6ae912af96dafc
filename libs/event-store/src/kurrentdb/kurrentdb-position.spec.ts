import { hasLogPosition, packPosition, unpackPosition, type KurrentDbPosition } from './kurrentdb-position';

const MAX_UINT64 = (1n << 64n) - 1n;

function compare(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareKurrent(a: KurrentDbPosition, b: KurrentDbPosition): number {
  return compare(a.commit, b.commit) || compare(a.prepare, b.prepare);
}

describe('KurrentDB position packing', () => {
  const samples: KurrentDbPosition[] = [
    { commit: 0n, prepare: 0n },
    { commit: 0n, prepare: 1n },
    { commit: 1n, prepare: 0n },
    { commit: 1n, prepare: 1n },
    { commit: 1_234n, prepare: 1_234n },
    { commit: 1_234n, prepare: 1_100n },
    { commit: 1_235n, prepare: 0n },
    { commit: 2n ** 40n, prepare: 2n ** 40n - 7n },
    { commit: 2n ** 63n, prepare: MAX_UINT64 - 1n },
    { commit: MAX_UINT64 - 1n, prepare: MAX_UINT64 - 1n },
  ];

  it('packs as (commit << 64) | prepare', () => {
    expect(packPosition({ commit: 0n, prepare: 0n })).toBe(0n);
    expect(packPosition({ commit: 0n, prepare: 42n })).toBe(42n);
    expect(packPosition({ commit: 1n, prepare: 0n })).toBe(1n << 64n);
    expect(packPosition({ commit: 3n, prepare: 5n })).toBe((3n << 64n) + 5n);
  });

  it('round-trips', () => {
    for (const position of samples) {
      expect(unpackPosition(packPosition(position))).toEqual(position);
    }
    for (const packed of [0n, 1n, MAX_UINT64, 1n << 64n, (123n << 64n) | 456n, (MAX_UINT64 << 64n) | MAX_UINT64]) {
      expect(packPosition(unpackPosition(packed))).toBe(packed);
    }
  });

  it('preserves KurrentDB ordering (commit, then prepare)', () => {
    for (const a of samples) {
      for (const b of samples) {
        expect(compare(packPosition(a), packPosition(b))).toBe(compareKurrent(a, b));
      }
    }
  });

  it('sorts a shuffled log into the same order as KurrentDB', () => {
    const sorted = [...samples].sort(compareKurrent);
    const shuffled = [...samples].reverse();
    const byPacked = shuffled.map(packPosition).sort(compare).map(unpackPosition);
    expect(byPacked).toEqual(sorted);
  });

  it('refuses values that are not unsigned 64-bit positions', () => {
    expect(() => packPosition({ commit: -1n, prepare: 0n })).toThrow(RangeError);
    expect(() => packPosition({ commit: 0n, prepare: 1n << 64n })).toThrow(RangeError);
    expect(() => packPosition({ commit: 1 as unknown as bigint, prepare: 0n })).toThrow(RangeError);
    expect(() => unpackPosition(-1n)).toThrow(RangeError);
    expect(() => unpackPosition(1n << 128n)).toThrow(RangeError);
  });

  it('recognizes a missing position', () => {
    expect(hasLogPosition(undefined)).toBe(false);
    expect(hasLogPosition(null)).toBe(false);
    expect(hasLogPosition({ commit: MAX_UINT64, prepare: MAX_UINT64 })).toBe(false);
    expect(hasLogPosition({ commit: -1n, prepare: -1n })).toBe(false);
    expect(hasLogPosition({ commit: 0n, prepare: 0n })).toBe(true);
    expect(hasLogPosition({ commit: 10n, prepare: 8n })).toBe(true);
  });
});
