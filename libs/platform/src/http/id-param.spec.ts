import { newId } from '../ids';
import { PathId, pathId } from './id-param';

const statusOf = (value: unknown, kind: Parameters<typeof pathId>[2]) => {
  try {
    pathId(value, 'thing', kind);
    return 'accepted';
  } catch (error) {
    return (error as { status: number }).status;
  }
};

describe('path ids', () => {
  it('accepts ids as the service generates them', () => {
    expect(statusOf(newId(), 'entity')).toBe('accepted');
    expect(statusOf(newId(32), 'shareKey')).toBe('accepted');
    expect(statusOf('0b7f3a52-1c6e-4d0a-9f55-2f9a4c1e8b11', 'event')).toBe('accepted');
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])('answers %s with 404 for every kind', (name) => {
    for (const kind of ['entity', 'shareKey', 'event'] as const) expect(statusOf(name, kind)).toBe(404);
  });

  it.each([
    ['too short', 'abc'],
    ['too long', `${newId()}x`],
    ['with a dash', `${newId().slice(1)}-`],
    ['with an underscore', `_${newId().slice(1)}`],
    ['not a string', 42],
  ])('answers an entity id %s with 404', (_label, value) => {
    expect(statusOf(value, 'entity')).toBe(404);
  });

  it('keeps the kinds apart: an entity id is no share key or event id, and the other way round', () => {
    expect(statusOf(newId(), 'shareKey')).toBe(404);
    expect(statusOf(newId(32), 'entity')).toBe(404);
    expect(statusOf(newId(), 'event')).toBe(404);
    expect(statusOf('0b7f3a52-1c6e-4d0a-9f55-2f9a4c1e8b11', 'entity')).toBe(404);
  });

  it('refuses a path id whose kind is unknown when the controller is declared', () => {
    expect(() => PathId('somethingId', 'something')).toThrow(/unknown id kind/);
    expect(() => PathId('constructor', 'something')).toThrow(/unknown id kind/);
    expect(() => PathId('somethingId', 'something', 'entity')).not.toThrow();
  });
});
