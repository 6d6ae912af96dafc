import { ResponseCache } from './response-cache';

describe('ResponseCache', () => {
  let version: number | null;
  let cache: ResponseCache;
  beforeEach(() => {
    version = 1;
    cache = new ResponseCache(() => version, { entries: 3, bytes: 100, entryBytes: 40 });
  });

  it('given an answer kept at the current version, then it is served with the handler’s headers but not the per-request ones', () => {
    cache.set('k', 1, '{"a":1}', { etag: '"3"', 'content-type': 'application/json', 'x-request-id': 'r1', 'x-ratelimit-remaining': '5', 'content-length': '7' });
    expect(cache.get('k')).toEqual({ payload: '{"a":1}', headers: { etag: '"3"', 'content-type': 'application/json' } });
  });

  it('given the contents changed, then every answer is forgotten', () => {
    cache.set('k', 1, 'old', {});
    version = 2;
    expect(cache.get('k')).toBeUndefined();
    version = 1; // versions never go back in practice; even so, nothing from before comes back
    expect(cache.get('k')).toBeUndefined();
  });

  it('given an answer computed under a version that has moved on, then it is not kept', () => {
    const started = cache.currentVersion()!;
    version = 2;
    cache.set('k', started, 'computed from old contents', {});
    expect(cache.get('k')).toBeUndefined();
  });

  it('given a store that cannot tell its version, then nothing is cached', () => {
    version = null;
    expect(cache.currentVersion()).toBeNull();
    expect(cache.get('k')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('given the entry or byte limits, then answers too large are skipped and a full cache starts afresh', () => {
    cache.set('big', 1, 'x'.repeat(41), {});
    expect(cache.get('big')).toBeUndefined();
    for (const key of ['a', 'b', 'c']) cache.set(key, 1, 'x'.repeat(30), {});
    expect(cache.size).toBe(3);
    cache.set('d', 1, 'x'.repeat(30), {});
    expect(cache.size).toBe(1);
    expect(cache.get('d')).toBeDefined();
    // Replacing an entry counts its bytes once.
    for (let i = 0; i < 5; i++) cache.set('d', 1, 'x'.repeat(30), {});
    cache.set('e', 1, 'x'.repeat(30), {});
    cache.set('f', 1, 'x'.repeat(30), {});
    expect(cache.size).toBe(3);
  });
});
