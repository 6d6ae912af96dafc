import { mergeOrganizationHits, SearchIndexCache, searchIndexKey } from './search-indexes';
import type { PageHit, SearchablePage } from './space-search-index';

function page(id: string, title: string): SearchablePage {
  return { id, title, path: id, sections: [{ id: 'body', title: 'Body', body: `About ${title}.` }] };
}

/** A load whose promise the test settles, counting its calls. */
function controlledLoad(pages: SearchablePage[]) {
  let release!: () => void;
  let fail!: (error: Error) => void;
  const gate = new Promise<void>((resolve, reject) => {
    release = resolve;
    fail = reject;
  });
  const load = jest.fn(async () => {
    await gate;
    return pages;
  });
  return { load, release: () => release(), fail: (error: Error) => fail(error) };
}

function hit(id: string, score: number): PageHit {
  return { id, title: id, path: id, score, rank: 1, sections: [] };
}

describe('SearchIndexCache', () => {
  it('keys an index by space and revision', () => {
    expect(searchIndexKey('space1', 'rev2')).toBe('space1@rev2');
  });

  it('builds an index once and answers later calls from the cache', async () => {
    const cache = new SearchIndexCache();
    const load = jest.fn(async () => [page('p', 'Quotas')]);

    const first = await cache.getOrBuild('s@1', load);
    const second = await cache.getOrBuild('s@1', load);

    expect(second).toBe(first);
    expect(load).toHaveBeenCalledTimes(1);
    expect(first.search('quotas').map((h) => h.id)).toEqual(['p']);
  });

  it('coalesces concurrent builds of the same key into one', async () => {
    const cache = new SearchIndexCache();
    const { load, release } = controlledLoad([page('p', 'Quotas')]);

    const pending = [cache.getOrBuild('s@1', load), cache.getOrBuild('s@1', load), cache.getOrBuild('s@1', load)];
    release();
    const [a, b, c] = await Promise.all(pending);

    expect(load).toHaveBeenCalledTimes(1);
    expect(b).toBe(a);
    expect(c).toBe(a);
  });

  it('builds different keys separately', async () => {
    const cache = new SearchIndexCache();

    const a = await cache.getOrBuild('s@1', async () => [page('p', 'One')]);
    const b = await cache.getOrBuild('s@2', async () => [page('p', 'Two')]);

    expect(b).not.toBe(a);
    expect(b.search('two').map((h) => h.id)).toEqual(['p']);
  });

  it('does not cache a failed build: the next call loads again', async () => {
    const cache = new SearchIndexCache();
    const { load, fail } = controlledLoad([]);

    const failing = cache.getOrBuild('s@1', load);
    fail(new Error('tree unavailable'));
    await expect(failing).rejects.toThrow('tree unavailable');
    const index = await cache.getOrBuild('s@1', async () => [page('p', 'Recovered')]);

    expect(cache.has('s@1')).toBe(true);
    expect(index.search('recovered').map((h) => h.id)).toEqual(['p']);
  });

  it('derives a revision from its cached parent in place, dropping the parent', async () => {
    const cache = new SearchIndexCache();
    const parent = await cache.getOrBuild('s@1', async () => [page('a', 'Alerts'), page('b', 'Billing')]);

    const derived = cache.derive('s@1', 's@2', { upserts: [page('c', 'Changelog'), page('a', 'Alarms')], removes: ['b'] });
    const load = jest.fn(async () => [] as SearchablePage[]);
    const child = await cache.getOrBuild('s@2', load);

    expect(derived).toBe(true);
    expect(child).toBe(parent);
    expect(load).not.toHaveBeenCalled();
    expect(cache.has('s@1')).toBe(false);
    expect(child.search('changelog').map((h) => h.id)).toEqual(['c']);
    expect(child.search('alarms').map((h) => h.id)).toEqual(['a']);
    expect(child.search('billing')).toEqual([]);
  });

  it('does not derive when the parent is not cached', () => {
    const cache = new SearchIndexCache();

    expect(cache.derive('s@1', 's@2', { upserts: [page('a', 'Alerts')], removes: [] })).toBe(false);
    expect(cache.has('s@2')).toBe(false);
  });

  it('does not derive over an index already cached for the revision', async () => {
    const cache = new SearchIndexCache();
    const parent = await cache.getOrBuild('s@1', async () => [page('a', 'Alerts')]);
    const existing = await cache.getOrBuild('s@2', async () => [page('a', 'Alarms')]);

    expect(cache.derive('s@1', 's@2', { upserts: [page('z', 'Zones')], removes: [] })).toBe(false);
    expect(await cache.getOrBuild('s@2', async () => [])).toBe(existing);
    expect(parent.search('zones')).toEqual([]);
  });

  it('does not derive while the revision is being built', async () => {
    const cache = new SearchIndexCache();
    await cache.getOrBuild('s@1', async () => [page('a', 'Alerts')]);
    const { load, release } = controlledLoad([page('a', 'Alarms')]);

    const building = cache.getOrBuild('s@2', load);
    const derived = cache.derive('s@1', 's@2', { upserts: [], removes: [] });
    release();

    expect(derived).toBe(false);
    expect(cache.has('s@1')).toBe(true);
    expect((await building).search('alarms').map((h) => h.id)).toEqual(['a']);
  });

  it('evicts the least recently used indexes past the section budget', async () => {
    const cache = new SearchIndexCache({ maxSections: 2 });
    await cache.getOrBuild('s@1', async () => [page('a', 'One')]);
    await cache.getOrBuild('s@2', async () => [page('b', 'Two')]);
    await cache.getOrBuild('s@1', async () => []); // s@1 used again: s@2 is now the least recent

    await cache.getOrBuild('s@3', async () => [page('c', 'Three')]);

    expect(cache.has('s@1')).toBe(true);
    expect(cache.has('s@2')).toBe(false);
    expect(cache.has('s@3')).toBe(true);
    expect(cache.sections).toBe(2);
  });

  it('weighs an index by its sections after a derive', async () => {
    const cache = new SearchIndexCache();
    await cache.getOrBuild('s@1', async () => [page('a', 'One')]);

    cache.derive('s@1', 's@2', { upserts: [page('b', 'Two'), page('c', 'Three')], removes: [] });

    expect(cache.sections).toBe(3);
  });
});

describe('mergeOrganizationHits', () => {
  it('ranks spaces by their best page score', () => {
    const merged = mergeOrganizationHits(
      [
        { id: 'low', title: 'Low', hits: [hit('x', 1), hit('y', 0.5)] },
        { id: 'high', title: 'High', hits: [hit('z', 3)] },
        { id: 'mid', title: 'Mid', hits: [hit('w', 0.2), hit('v', 2)] },
      ],
      10,
    );

    expect(merged.map((space) => [space.id, space.score])).toEqual([
      ['high', 3],
      ['mid', 2],
      ['low', 1],
    ]);
  });

  it('keeps each space’s pages in their own order', () => {
    const [space] = mergeOrganizationHits([{ id: 's', title: 'S', hits: [hit('a', 2), hit('b', 1)] }], 10);

    expect(space.hits.map((h) => h.id)).toEqual(['a', 'b']);
  });

  it('leaves out spaces without hits', () => {
    const merged = mergeOrganizationHits(
      [
        { id: 'empty', title: 'Empty', hits: [] },
        { id: 'found', title: 'Found', hits: [hit('a', 1)] },
      ],
      10,
    );

    expect(merged.map((space) => space.id)).toEqual(['found']);
  });

  it('returns at most `limit` spaces', () => {
    const spaces = Array.from({ length: 5 }, (_, i) => ({ id: `s${i}`, title: `S${i}`, hits: [hit('a', i + 1)] }));

    expect(mergeOrganizationHits(spaces, 2).map((space) => space.id)).toEqual(['s4', 's3']);
  });

  it('keeps the caller’s own fields on each space', () => {
    const [space] = mergeOrganizationHits([{ id: 's', title: 'S', hits: [hit('a', 1)], extra: 42 }], 1);

    expect(space.extra).toBe(42);
  });
});
