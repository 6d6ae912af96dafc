import { ManualClock } from '#platform/clock';
import { KeySetCache } from './site.jwks';

const LIMITS = { cacheMs: 300_000, failureMs: 30_000, maxUrls: 2 };

function server() {
  const calls: string[] = [];
  const pending: Array<{ resolve: (keys: string) => void; reject: (error: Error) => void }> = [];
  const fetch = (url: string) => {
    calls.push(url);
    return new Promise<string>((resolve, reject) => pending.push({ resolve, reject }));
  };
  return { calls, pending, fetch };
}

describe('key sets of JWKS URLs', () => {
  it('fetches once for readers arriving while the fetch is in flight, and gives each the same keys', async () => {
    const { calls, pending, fetch } = server();
    const cache = new KeySetCache(fetch, LIMITS, new ManualClock());
    const readers = [cache.get('https://a/jwks'), cache.get('https://a/jwks'), cache.get('https://a/jwks')];
    await Promise.resolve();
    pending[0].resolve('keys');
    expect(await Promise.all(readers)).toEqual(['keys', 'keys', 'keys']);
    expect(calls).toEqual(['https://a/jwks']);
  });

  it('keeps a fetched set for cacheMs, then fetches again', async () => {
    const { calls, pending, fetch } = server();
    const clock = new ManualClock();
    const cache = new KeySetCache(fetch, LIMITS, clock);
    const first = cache.get('https://a/jwks');
    await Promise.resolve();
    pending[0].resolve('keys');
    await first;
    clock.advance(LIMITS.cacheMs - 1);
    await cache.get('https://a/jwks');
    expect(calls).toHaveLength(1);
    clock.advance(1);
    void cache.get('https://a/jwks');
    await Promise.resolve();
    expect(calls).toHaveLength(2);
  });

  it('remembers a failure for failureMs: readers meanwhile are refused without a fetch', async () => {
    const { calls, pending, fetch } = server();
    const clock = new ManualClock();
    const cache = new KeySetCache(fetch, LIMITS, clock);
    const first = cache.get('https://down/jwks');
    await Promise.resolve();
    pending[0].reject(new Error('500'));
    await expect(first).rejects.toThrow('500');
    clock.advance(LIMITS.failureMs - 1);
    await expect(cache.get('https://down/jwks')).rejects.toThrow('500');
    expect(calls).toHaveLength(1);
    clock.advance(1);
    void cache.get('https://down/jwks').catch(() => undefined);
    await Promise.resolve();
    expect(calls).toHaveLength(2);
  });

  it('keeps at most maxUrls key sets, forgetting the oldest', async () => {
    const { calls, pending, fetch } = server();
    const cache = new KeySetCache(fetch, LIMITS, new ManualClock());
    for (const url of ['https://a', 'https://b', 'https://c']) void cache.get(url);
    await Promise.resolve();
    for (const each of pending) each.resolve('keys');
    await cache.get('https://c');
    void cache.get('https://a');
    await Promise.resolve();
    expect(calls).toEqual(['https://a', 'https://b', 'https://c', 'https://a']);
  });
});
