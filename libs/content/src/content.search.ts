import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import type { ResolvedContent } from './content.access';
import { CONTENT_REVISIONS, type RevisionDoc } from './content.projections';
import { ContentTrees } from './content.trees';
import { documentSections } from '#document';
import { SearchIndexCache } from './search/search-indexes';
import type { PageHit, SearchablePage } from './search/space-search-index';
import { changedPages } from './tree/tree-diff';
import type { PageView } from './tree/tree.model';

export interface SpaceSearchResult extends Omit<PageHit, 'sections' | 'description'> {
  /** The page's description; '' when it has none (the platform requires the member). */
  description: string;
  /** Titles of the page's ancestors, from the top level down to its parent. */
  ancestors: Array<{ title: string }>;
  sections: Array<PageHit['sections'][number] & { urls: { app: string } }>;
  urls: { app: string };
}

/**
 * Search in a revision of a space, for every search (a space's, an organization's, the published
 * site's): one index per revision, kept in the process's memory (search/search-indexes.ts).
 */
@Injectable()
export class ContentSearch {
  private readonly indexes = new SearchIndexCache();

  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly trees: ContentTrees,
  ) {}

  /** The revision's index: derived from its parent's when that is cached (a few pages changed), else built from the tree. */
  async hits({ space, revision, tree }: ResolvedContent, query: string): Promise<PageHit[]> {
    const key = `${space.id}@${revision._id}`;
    const parent = revision.parents[0];
    if (parent !== undefined && !this.indexes.has(key) && this.indexes.has(`${space.id}@${parent}`)) {
      const parentDoc = await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(parent);
      if (parentDoc) {
        const { upserts, removes } = changedPages(await this.trees.tree(parentDoc.tree), tree);
        const searchable = await Promise.all(upserts.filter((page) => page.type === 'document').map((page) => this.searchable(page)));
        const gone = [...removes, ...upserts.filter((page) => page.type !== 'document').map((page) => page.id)];
        this.indexes.derive(`${space.id}@${parent}`, key, { upserts: searchable, removes: gone });
      }
    }
    const index = await this.indexes.getOrBuild(key, async () =>
      Promise.all(
        tree
          .pages()
          .filter((page) => page.type === 'document')
          .map((page) => this.searchable(page)),
      ),
    );
    return index.search(query);
  }

  /** A hit as the platform's SearchPageResult: with the page's description ('' for none) and ancestors from the searched revision's tree. */
  result({ space, tree }: ResolvedContent, hit: PageHit): SpaceSearchResult {
    const app = `${this.config.publicUrl}/s/${space.id}`;
    const ancestors: Array<{ title: string }> = [];
    for (let parentId = tree.parentId(hit.id) ?? null; parentId !== null; parentId = tree.parentId(parentId) ?? null)
      ancestors.unshift({ title: tree.page(parentId)?.title ?? '' });
    return {
      ...hit,
      description: hit.description ?? '',
      ancestors,
      sections: hit.sections.map((section) => ({ ...section, urls: { app: `${app}/${section.path}` } })),
      urls: { app: `${app}/${hit.path}` },
    };
  }

  private async searchable(page: PageView): Promise<SearchablePage> {
    const sections = page.document === undefined ? [] : documentSections(await this.trees.document(page.document));
    return {
      id: page.id,
      title: page.title,
      path: page.path,
      ...(page.description !== undefined ? { description: page.description } : {}),
      noIndex: page.noIndex ?? false,
      sections,
    };
  }
}
