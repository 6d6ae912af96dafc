import { runInNewContext } from 'node:vm';
import { deepFreeze, isPlainObject } from './plain-object';

describe('isPlainObject', () => {
  it('accepts object literals, parsed JSON and objects without a prototype', () => {
    expect([{}, { a: 1 }, JSON.parse('{"a":{}}'), Object.create(null)].every(isPlainObject)).toBe(true);
  });

  it('accepts a plain object made in another realm', () => {
    expect(isPlainObject(runInNewContext('({ kind: "batch" })'))).toBe(true);
  });

  it('refuses arrays, class instances, dates, buffers, maps and primitives', () => {
    class Page {}
    const refused = [
      [],
      new Page(),
      new Date(),
      Buffer.from('x'),
      new Map(),
      null,
      undefined,
      'x',
      1,
      runInNewContext('new Date()'),
      runInNewContext('[]'),
    ];
    expect(refused.filter(isPlainObject)).toEqual([]);
  });

  it('refuses an object whose prototype is itself a prototype-less object', () => {
    expect(isPlainObject(Object.create(Object.create(null)))).toBe(false);
  });
});

describe('deepFreeze', () => {
  it('freezes a value and everything in it, and answers the same value', () => {
    const value = { a: [{ b: 1 }], c: { d: 'x' } };
    expect(deepFreeze(value)).toBe(value);
    expect([value, value.a, value.a[0], value.c].every((part) => Object.isFrozen(part))).toBe(true);
  });
});
