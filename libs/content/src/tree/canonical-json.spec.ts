import { canonicalJson, jsonEqual } from './canonical-json';

describe('canonical JSON', () => {
  it('sorts keys at every depth, whatever order they were set in', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: 2 } })).toBe('{"a":{"c":2,"d":[{"y":2,"z":1}]},"b":1}');
  });

  it('sorts integer-like keys as strings too (JavaScript enumerates them first)', () => {
    expect(canonicalJson({ b: 1, 10: 'x', 9: 'y' })).toBe('{"10":"x","9":"y","b":1}');
  });

  it('leaves out undefined members, so an absent and an undefined attribute hash the same', () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
  });

  it('refuses numbers JSON cannot carry', () => {
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(TypeError);
  });

  it('compares values by content', () => {
    expect(jsonEqual({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 2 })).toBe(false);
    expect(jsonEqual(undefined, null)).toBe(false);
  });
});
