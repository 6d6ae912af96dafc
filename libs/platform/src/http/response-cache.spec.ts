import { ResponseCache, type TrackedReads, type Written, type WrittenDocument } from './response-cache';

/** A read store as the cache sees it: a version, commits reported by hand, reads recorded while tracked. */
class FakeStore implements TrackedReads {
  version = 1;
  listener: ((change: Written) => void) | undefined;
  observer: ((collection: string, id: string | null, filter?: Record<string, unknown>) => void) | undefined;
  contentVersion(): number {
    return this.version;
  }
  onChange(listener: (change: Written) => void) {
    this.listener = listener;
    return () => undefined;
  }
  observeReads(observer: ((collection: string, id: string | null, filter?: Record<string, unknown>) => void) | undefined) {
    this.observer = observer;
  }
  read(collection: string, id: string | null = null, filter?: Record<string, unknown>) {
    this.observer?.(collection, id, filter);
  }
  /** A commit writing documents given by id (no fields) or whole, or the collection as a whole (null). */
  commit(collection: string, written: Array<string | WrittenDocument> | null) {
    this.version++;
    this.listener?.(
      new Map([
        [
          collection,
          written === null
            ? null
            : written.map((each) => (typeof each === 'string' ? { id: each, before: null, after: { _id: each } } : each)),
        ],
      ]),
    );
  }
}

describe('ResponseCache', () => {
  let store: FakeStore;
  let cache: ResponseCache;
  beforeEach(() => {
    store = new FakeStore();
    cache = new ResponseCache(store, { entries: 3, bytes: 100, entryBytes: 40 });
  });

  /** Computes an answer as the front door does: reads recorded in its read set, then kept. */
  const compute = (key: string, reads: Array<[string, string | null, Record<string, unknown>?]>, payload = 'answer') => {
    const set = cache.begin();
    cache.track(set, () => reads.forEach(([collection, id, filter]) => store.read(collection, id, filter)));
    cache.keep(key, set, payload, {});
  };

  it('given an answer kept, then it is served with the handler’s headers but not the per-request ones', () => {
    const set = cache.begin();
    cache.keep('k', set, '{"a":1}', {
      etag: '"3"',
      'content-type': 'application/json',
      'x-request-id': 'r1',
      'x-ratelimit-remaining': '5',
      'content-length': '7',
    });
    const hit = cache.get('k');
    expect([hit?.payload, hit?.headers]).toEqual(['{"a":1}', { etag: '"3"', 'content-type': 'application/json' }]);
  });

  it('given reads outside `track`, then they are not recorded in any answer’s read set', () => {
    store.read('docs', 'd1');
    compute('k', []);
    store.commit('docs', ['d1']);
    expect(cache.get('k')).toBeDefined();
  });

  it('given a commit writing a document an answer read by id, then only that answer is forgotten', () => {
    compute('one', [['docs', 'd1']]);
    compute('two', [['docs', 'd2']]);
    store.commit('docs', ['d1']);
    expect(cache.get('one')).toBeUndefined();
    expect(cache.get('two')).toBeDefined();
  });

  it('given a commit writing any document of a collection an answer queried, then that answer is forgotten', () => {
    compute('list', [['docs', null]]);
    compute('other', [['teams', null]]);
    store.commit('docs', ['d9']);
    expect(cache.get('list')).toBeUndefined();
    expect(cache.get('other')).toBeDefined();
  });

  it('given a query scoped by an equality, then only a write of a document in that scope, before or after, forgets its answer', () => {
    compute('o1', [['spaces', null, { organizationId: 'o1', deletedAt: { $exists: false } }]]);
    compute('o2', [['spaces', null, { organizationId: { $eq: 'o2' } }]]);
    store.commit('spaces', [{ id: 's9', before: null, after: { _id: 's9', organizationId: 'o3' } }]);
    expect([cache.get('o1'), cache.get('o2')].map(Boolean)).toEqual([true, true]);
    // A space moving from o1 to o3 leaves o1's list.
    store.commit('spaces', [{ id: 's1', before: { _id: 's1', organizationId: 'o1' }, after: { _id: 's1', organizationId: 'o3' } }]);
    expect([cache.get('o1'), cache.get('o2')].map(Boolean)).toEqual([false, true]);
  });

  it('given a query scoped by null, then a document lacking the field is in its scope', () => {
    compute('guests', [['members', null, { role: null }]]);
    store.commit('members', [{ id: 'm1', before: null, after: { _id: 'm1' } }]);
    expect(cache.get('guests')).toBeUndefined();
  });

  it('given a query naming its ids, then only writes of those documents forget its answer', () => {
    compute('page', [['users', null, { _id: { $in: ['u1', 'u2'] } }]]);
    store.commit('users', ['u3']);
    expect(cache.get('page')).toBeDefined();
    store.commit('users', ['u2']);
    expect(cache.get('page')).toBeUndefined();
  });

  it('given a collection changed as a whole (dropped), then every answer that read it at all is forgotten', () => {
    compute('one', [['docs', 'd1']]);
    store.commit('docs', null);
    expect(cache.get('one')).toBeUndefined();
  });

  it('given a commit touching what an answer had read before it is kept, then it is not kept', () => {
    const set = cache.begin();
    cache.track(set, () => store.read('docs', 'd1'));
    store.commit('docs', ['d1']);
    cache.keep('k', set, 'computed from old contents', {});
    expect(cache.get('k')).toBeUndefined();
  });

  it('given the contents changed without a report (the version moved), then everything is forgotten, answers in flight included', () => {
    compute('k', [['docs', 'd1']]);
    const set = cache.begin();
    store.version++;
    expect(cache.get('k')).toBeUndefined();
    cache.keep('late', set, 'x', {});
    expect(cache.get('late')).toBeUndefined();
  });

  it('given a store that cannot report its changes and reads, then nothing is cached', () => {
    const blind = new ResponseCache({ contentVersion: () => 1 });
    expect(blind.enabled).toBe(false);
    expect(blind.get('k')).toBeUndefined();
    expect(new ResponseCache({ contentVersion: () => null, onChange: () => () => undefined, observeReads: () => undefined }).enabled).toBe(
      false,
    );
  });

  it('given the entry or byte limits, then answers too large are skipped and a full cache starts afresh', () => {
    compute('big', [], 'x'.repeat(41));
    expect(cache.get('big')).toBeUndefined();
    for (const key of ['a', 'b', 'c']) compute(key, [], 'x'.repeat(30));
    expect(cache.size).toBe(3);
    compute('d', [], 'x'.repeat(30));
    expect(cache.size).toBe(1);
    expect(cache.get('d')).toBeDefined();
    // Replacing an entry counts its bytes once.
    for (let i = 0; i < 5; i++) compute('d', [], 'x'.repeat(30));
    compute('e', [], 'x'.repeat(30));
    compute('f', [], 'x'.repeat(30));
    expect(cache.size).toBe(3);
  });

  it('counts hits and misses', () => {
    cache.get('k');
    compute('k', []);
    cache.get('k');
    expect(cache.stats).toEqual({ hits: 1, misses: 1 });
  });
});
