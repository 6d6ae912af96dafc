import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Caller } from '#platform/http/auth';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import { ID_SHAPES } from '#platform/ids';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { CONTENT_SPACES, type ContentSpaces } from './content.needs';
import { ContentAccess } from './content.access';
import { CONTENT_REVISIONS, type RevisionDoc } from './content.projections';
import { pageOf, SITE_PERMISSIONS, type Paging } from './content.reads';
import { ContentSearch, type SpaceSearchResult } from './content.search';
import { ContentTrees } from './content.trees';
import { mergeOrganizationHits } from './search/search-indexes';
import type { PageHit } from './search/space-search-index';

/*
 * Search (docs/content.md, Search): `/spaces/{spaceId}/search` (content.controller.ts),
 * `/orgs/{organizationId}/search` (organization-search.controller.ts), and the search of the
 * published site through content.ports.ts (content.reads.ts says how every content read resolves
 * what it reads).
 */

export type { SpaceSearchResult } from './content.search';

export interface OrganizationSearchResult {
  type: 'space';
  id: string;
  title: string;
  score: number;
  pages: SpaceSearchResult[];
}

/** Spaces searched by one organization search, at most. */
const ORGANIZATION_SEARCH_SPACES = 200;

/** Search in a revision of the space (no caller check: the published site); no hits when the revision is not the space's. */
export class SearchRevision extends Query<PageHit[]> {
  constructor(
    readonly spaceId: string,
    readonly revisionId: string,
    readonly query: string,
  ) {
    super();
  }
}

@QueryHandler(SearchRevision)
export class SearchRevisionHandler implements IQueryHandler<SearchRevision> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CONTENT_SPACES) private readonly spaces: ContentSpaces,
    private readonly trees: ContentTrees,
    private readonly search: ContentSearch,
  ) {}

  async execute({ spaceId, revisionId, query }: SearchRevision): Promise<PageHit[]> {
    const space = await this.spaces.spaceById(spaceId);
    const revision = await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(revisionId);
    if (!space || !revision || revision.spaceId !== spaceId) return [];
    return this.search.hits(
      { space: { ...space, permissions: SITE_PERMISSIONS }, revision, tree: await this.trees.tree(revision.tree) },
      query,
    );
  }
}

/** `GET /spaces/{spaceId}/search`: pages of the space's primary content, best first. */
export class SearchSpace extends Query<ListEnvelope<SpaceSearchResult>> {
  constructor(
    readonly spaceId: string,
    readonly query: string,
    readonly caller: Caller,
    readonly paging: Paging,
  ) {
    super();
  }
}

@QueryHandler(SearchSpace)
export class SearchSpaceHandler implements IQueryHandler<SearchSpace> {
  constructor(
    private readonly access: ContentAccess,
    private readonly search: ContentSearch,
  ) {}

  async execute({ spaceId, query, caller, paging }: SearchSpace): Promise<ListEnvelope<SpaceSearchResult>> {
    const resolved = await this.access.resolve(spaceId, caller);
    const hits = await this.search.hits(resolved, query);
    const { items, next } = pageOf(hits, paging, (hit) => String(hit.rank).padStart(8, '0'), /^\d{8}$/);
    return listEnvelope({ items: items.map((hit) => this.search.result(resolved, hit)), count: hits.length, next });
  }
}

/** `GET /orgs/{organizationId}/search`: pages of the spaces the caller may read, grouped by space. */
export class SearchOrganization extends Query<ListEnvelope<OrganizationSearchResult>> {
  constructor(
    readonly organizationId: string,
    readonly query: string,
    readonly caller: Caller,
    readonly paging: Paging,
  ) {
    super();
  }
}

@QueryHandler(SearchOrganization)
export class SearchOrganizationHandler implements IQueryHandler<SearchOrganization> {
  constructor(
    @Inject(CONTENT_SPACES) private readonly spaces: ContentSpaces,
    private readonly access: ContentAccess,
    private readonly search: ContentSearch,
  ) {}

  async execute({ organizationId, query, caller, paging }: SearchOrganization): Promise<ListEnvelope<OrganizationSearchResult>> {
    const readable = (await this.spaces.readableSpaces(organizationId, caller)).slice(0, ORGANIZATION_SEARCH_SPACES);
    const perSpace = await Promise.all(
      readable.map(async ({ id }) => {
        const space = await this.spaces.spaceFor(id, caller);
        const resolved = await this.access.resolveIn(space);
        return { id, title: space.title, resolved, hits: await this.search.hits(resolved, query) };
      }),
    );
    const ranked = mergeOrganizationHits(
      perSpace.filter((entry) => entry.hits.length > 0),
      Number.MAX_SAFE_INTEGER,
    );
    const bySpace = new Map(perSpace.map((entry) => [entry.id, entry.resolved]));
    const all = ranked.map((entry): OrganizationSearchResult => ({
      type: 'space',
      id: entry.id,
      title: entry.title,
      score: entry.score,
      pages: entry.hits.map((hit) => this.search.result(bySpace.get(entry.id)!, hit)),
    }));
    const { items, next } = pageOf(all, paging, (entry) => entry.id, ID_SHAPES.entity, false);
    return listEnvelope({ items, count: all.length, next });
  }
}

export const searchQueryHandlers = [SearchRevisionHandler, SearchSpaceHandler, SearchOrganizationHandler];
