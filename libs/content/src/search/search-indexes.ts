import { LRUCache } from 'lru-cache';
import { SpaceSearchIndex, type PageHit, type SearchablePage } from './space-search-index';

/**
 * The search indexes kept in memory: one per space revision, keyed `${spaceId}@${revisionId}`,
 * least recently used dropped first once the indexed sections of all of them pass `maxSections`
 * (sections, not indexes, because one large space weighs as much as hundreds of small ones).
 *
 * A revision's index is built once however many requests ask for it at the same time, and a new
 * revision's index is derived from its parent's when that one is cached: a revision usually changes
 * a few pages of thousands, and updating costs a fraction of building.
 */

export const DEFAULT_MAX_SECTIONS = 500_000;

export interface SearchIndexCacheOptions {
  /** Indexed sections kept in memory, all indexes together. */
  maxSections?: number;
}

export interface PageChanges {
  upserts: SearchablePage[];
  removes: string[];
}

export function searchIndexKey(spaceId: string, revisionId: string): string {
  return `${spaceId}@${revisionId}`;
}

export class SearchIndexCache {
  private readonly indexes: LRUCache<string, SpaceSearchIndex>;
  private readonly building = new Map<string, Promise<SpaceSearchIndex>>();

  constructor(options: SearchIndexCacheOptions = {}) {
    this.indexes = new LRUCache<string, SpaceSearchIndex>({
      maxSize: options.maxSections ?? DEFAULT_MAX_SECTIONS,
      // An empty space still takes a slot: lru-cache wants positive sizes.
      sizeCalculation: (index) => Math.max(1, index.sectionCount),
    });
  }

  has(key: string): boolean {
    return this.indexes.has(key);
  }

  get(key: string): SpaceSearchIndex | undefined {
    return this.indexes.get(key);
  }

  /**
   * The cached index of `key`, else the one being built for it, else a new one built from `load`.
   * A failed build is not cached: the next call tries again. An index larger than the whole cache
   * is returned without being kept.
   */
  getOrBuild(key: string, load: () => Promise<Iterable<SearchablePage>>): Promise<SpaceSearchIndex> {
    const cached = this.indexes.get(key);
    if (cached !== undefined) return Promise.resolve(cached);
    const inFlight = this.building.get(key);
    if (inFlight !== undefined) return inFlight;
    const build = (async () => {
      try {
        const index = SpaceSearchIndex.build(await load());
        this.indexes.set(key, index);
        return index;
      } finally {
        this.building.delete(key);
      }
    })();
    this.building.set(key, build);
    return build;
  }

  /**
   * Moves the cached index of `fromKey` to `toKey`, updated in place with `changes` (upserts first,
   * then removals), and drops `fromKey`. True when done; false when there was nothing to derive from
   * (`fromKey` not cached) or nothing to do (`toKey` already cached or being built), in which case
   * `toKey` is built from scratch when asked for.
   *
   * In place, not copied: copying would cost what building costs. A caller still holding the old
   * revision's index sees the new revision from then on; searches are synchronous, so none sees
   * half of the changes.
   */
  derive(fromKey: string, toKey: string, changes: PageChanges): boolean {
    if (fromKey === toKey || this.indexes.has(toKey) || this.building.has(toKey)) return false;
    const index = this.indexes.get(fromKey);
    if (index === undefined) return false;
    this.indexes.delete(fromKey);
    for (const page of changes.upserts) index.upsert(page);
    for (const pageId of changes.removes) index.remove(pageId);
    // Set again, not renamed: the size is computed on set, and the index's size has changed.
    this.indexes.set(toKey, index);
    return true;
  }

  delete(key: string): void {
    this.indexes.delete(key);
  }

  /** Indexed sections currently cached, all indexes together. */
  get sections(): number {
    return this.indexes.calculatedSize;
  }
}

export interface SpaceHits {
  id: string;
  title: string;
  hits: PageHit[];
}

/**
 * An organization search's spaces, best first: ranked by their best page's score, spaces without
 * hits left out, at most `limit`. Each space keeps its own page ranking. Scores of different spaces
 * compare only roughly (each index weighs terms by its own space's statistics), which is enough to
 * put the space holding the obvious answer first.
 */
export function mergeOrganizationHits<Space extends SpaceHits>(spaces: readonly Space[], limit: number): Array<Space & { score: number }> {
  return spaces
    .filter((space) => space.hits.length > 0)
    .map((space) => ({ ...space, score: Math.max(...space.hits.map((hit) => hit.score)) }))
    .sort((a, b) => b.score - a.score || compareText(a.title, b.title) || compareText(a.id, b.id))
    .slice(0, Math.max(0, limit));
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
