import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { DocumentNode } from '#document/document.model';
import { byIds } from '#platform/by-ids';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { CONTENT_CHANGE_REQUESTS, type ContentChangeRequests } from './content.needs';
import { CONTENT_OPENAPI, type ContentOpenapi } from './content.needs';
import { CONTENT_SPACES, type ContentSpaces } from './content.needs';
import { ContentAccess, type ResolvedContent } from './content.access';
import { ContentBodies } from './content.bodies';
import { computedDocument, resolveOpenapiBlocks } from './content.openapi';
import { ContentPresenter, type PageObject, type RevisionObject, type RevisionSummary } from './content.presenter';
import { CONTENT_HEADS, CONTENT_REVISIONS, type ContentHeadDoc, type RevisionDoc } from './content.projections';
import { SITE_PERMISSIONS, type ContentReadOptions, type Paging, type Versioned } from './content.reads';
import { ContentTrees } from './content.trees';
import { diffTrees, type SemanticChange } from './tree/tree-diff';

/*
 * The reads of revisions, their pages and page bodies (docs/content.md, Reads): the routes of
 * revision.controller.ts, the revision and page routes of content.controller.ts, a change request's
 * content (read in its head revision through ContentForChangeRequests), and the heads, primary
 * content and documents that other contexts and the published site read through content.provides.ts
 * (content.reads.ts says how).
 */

// ---- the published site's reads (SITE_CONTENT; no caller check) and other contexts' -----------

/** The head revision ids of spaces (the Space object's `revision`; change requests' `outdated`; comments' anchors). */
export class GetContentHeads extends Query<Map<string, string>> {
  constructor(readonly spaceIds: readonly string[]) {
    super();
  }
}

@QueryHandler(GetContentHeads)
export class GetContentHeadsHandler implements IQueryHandler<GetContentHeads> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async execute({ spaceIds }: GetContentHeads): Promise<Map<string, string>> {
    const heads = await byIds(this.reads.collection<ContentHeadDoc>(CONTENT_HEADS), spaceIds);
    return new Map(heads.map((head) => [head._id, head.revisionId]));
  }
}

/**
 * A space's primary content without a caller check, for the published site (whose visibility
 * rules decide who reads it): null when the space does not exist, is deleted or has no content.
 */
export class GetPrimaryContent extends Query<ResolvedContent | null> {
  constructor(readonly spaceId: string) {
    super();
  }
}

@QueryHandler(GetPrimaryContent)
export class GetPrimaryContentHandler implements IQueryHandler<GetPrimaryContent> {
  constructor(
    @Inject(CONTENT_SPACES) private readonly spaces: ContentSpaces,
    private readonly access: ContentAccess,
    private readonly trees: ContentTrees,
  ) {}

  async execute({ spaceId }: GetPrimaryContent): Promise<ResolvedContent | null> {
    const space = await this.spaces.spaceById(spaceId);
    if (!space || space.deleted) return null;
    const revision = await this.access.headRevision(spaceId);
    if (!revision) return null;
    return { space: { ...space, permissions: SITE_PERMISSIONS }, revision, tree: await this.trees.tree(revision.tree) };
  }
}

/** A document page's body in a revision of the space, its expressions evaluated (no caller check: the published site); null when absent. */
export class GetRevisionDocument extends Query<DocumentNode | null> {
  constructor(
    readonly spaceId: string,
    readonly revisionId: string,
    readonly pageId: string,
  ) {
    super();
  }
}

@QueryHandler(GetRevisionDocument)
export class GetRevisionDocumentHandler implements IQueryHandler<GetRevisionDocument> {
  constructor(
    @Inject(CONTENT_SPACES) private readonly spaces: ContentSpaces,
    @Inject(CONTENT_OPENAPI) private readonly openapi: ContentOpenapi,
    private readonly access: ContentAccess,
    private readonly bodies: ContentBodies,
  ) {}

  async execute({ spaceId, revisionId, pageId }: GetRevisionDocument): Promise<DocumentNode | null> {
    const tree = await this.access.revisionTree(spaceId, revisionId);
    const page = tree?.page(pageId);
    if (!tree || !page || page.type !== 'document') return null;
    // As the API reads a page by default: computed (a computed page generated, operation blocks resolved).
    const organizationId = (await this.spaces.spaceById(spaceId))?.organizationId;
    const generated =
      organizationId !== undefined && page.computed !== undefined
        ? await computedDocument(page.computed, organizationId, this.openapi)
        : null;
    if (generated) return generated;
    const evaluated = await this.bodies.evaluatedDocument(revisionId, tree, page);
    return organizationId === undefined ? evaluated : resolveOpenapiBlocks(evaluated, organizationId, this.openapi);
  }
}

// ---- revisions and pages -------------------------------------------------------------------------

/**
 * `GET /spaces/{spaceId}/content` and `GET /spaces/{spaceId}/revisions/{revisionId}` (`options.revision`),
 * and a change request's content (its head as `options.revision`): the revision with its pages and files.
 */
export class GetRevision extends Query<RevisionObject> {
  constructor(
    readonly spaceId: string,
    readonly caller: Caller,
    readonly options: ContentReadOptions,
  ) {
    super();
  }
}

@QueryHandler(GetRevision)
export class GetRevisionHandler implements IQueryHandler<GetRevision> {
  constructor(
    @Inject(CONTENT_CHANGE_REQUESTS) private readonly changeRequests: ContentChangeRequests,
    private readonly access: ContentAccess,
    private readonly bodies: ContentBodies,
    private readonly presenter: ContentPresenter,
  ) {}

  async execute({ spaceId, caller, options }: GetRevision): Promise<RevisionObject> {
    const resolved = await this.access.resolve(spaceId, caller, options);
    const { space, revision, tree } = resolved;
    const [pages, mergedFrom] = await Promise.all([
      this.bodies.pageTree(resolved, options),
      revision.mergedFrom === undefined ? undefined : this.changeRequests.presented(space.id, revision.mergedFrom, caller),
    ]);
    return this.presenter.revision(space, revision, tree, pages, mergedFrom);
  }
}

/** `GET /spaces/{spaceId}/content/pages` (and a revision's, a change request's): the page tree with the bodies. */
export class GetRevisionPages extends Query<{ pages: PageObject[] }> {
  constructor(
    readonly spaceId: string,
    readonly caller: Caller,
    readonly options: ContentReadOptions,
  ) {
    super();
  }
}

@QueryHandler(GetRevisionPages)
export class GetRevisionPagesHandler implements IQueryHandler<GetRevisionPages> {
  constructor(
    private readonly access: ContentAccess,
    private readonly bodies: ContentBodies,
  ) {}

  async execute({ spaceId, caller, options }: GetRevisionPages): Promise<{ pages: PageObject[] }> {
    const resolved = await this.access.resolve(spaceId, caller, options);
    return { pages: await this.bodies.pageTree(resolved, options) };
  }
}

/** `GET /spaces/{spaceId}/content/page/{pageId}` (and a revision's, a change request's): the page, with the revision it was read in (its ETag). */
export class GetPage extends Query<Versioned<PageObject>> {
  constructor(
    readonly spaceId: string,
    readonly pageId: string,
    readonly caller: Caller,
    readonly options: ContentReadOptions,
  ) {
    super();
  }
}

@QueryHandler(GetPage)
export class GetPageHandler implements IQueryHandler<GetPage> {
  constructor(
    private readonly access: ContentAccess,
    private readonly bodies: ContentBodies,
  ) {}

  async execute({ spaceId, pageId, caller, options }: GetPage): Promise<Versioned<PageObject>> {
    const resolved = await this.access.resolve(spaceId, caller, options);
    const page = resolved.tree.page(pageId);
    if (!page) throw DomainError.notFound(`no page ${pageId} in revision ${resolved.revision._id}`);
    return { object: await this.bodies.page(resolved, page, options), revisionId: resolved.revision._id };
  }
}

/** `GET /spaces/{spaceId}/content/path/{pagePath}` (and a revision's, a change request's): the page at a path of slugs, with the revision it was read in (its ETag). */
export class GetPageByPath extends Query<Versioned<PageObject>> {
  constructor(
    readonly spaceId: string,
    readonly path: string,
    readonly caller: Caller,
    readonly options: ContentReadOptions,
  ) {
    super();
  }
}

@QueryHandler(GetPageByPath)
export class GetPageByPathHandler implements IQueryHandler<GetPageByPath> {
  constructor(
    private readonly access: ContentAccess,
    private readonly bodies: ContentBodies,
  ) {}

  async execute({ spaceId, path, caller, options }: GetPageByPath): Promise<Versioned<PageObject>> {
    const resolved = await this.access.resolve(spaceId, caller, options);
    const page = resolved.tree.pageByPath(normalizePagePath(path));
    if (!page) throw DomainError.notFound(`no page at path ${JSON.stringify(path.slice(0, 200))} in revision ${resolved.revision._id}`);
    return { object: await this.bodies.page(resolved, page, options), revisionId: resolved.revision._id };
  }
}

/** `GET /spaces/{spaceId}/revisions`: the space's revisions, newest first. */
export class ListRevisions extends Query<ListEnvelope<RevisionSummary>> {
  constructor(
    readonly spaceId: string,
    readonly caller: Caller,
    readonly paging: Paging,
  ) {
    super();
  }
}

@QueryHandler(ListRevisions)
export class ListRevisionsHandler implements IQueryHandler<ListRevisions> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CONTENT_SPACES) private readonly spaces: ContentSpaces,
    private readonly presenter: ContentPresenter,
  ) {}

  async execute({ spaceId, caller, paging }: ListRevisions): Promise<ListEnvelope<RevisionSummary>> {
    const space = await this.spaces.spaceFor(spaceId, caller);
    const page = await this.reads
      .collection<RevisionDoc>(CONTENT_REVISIONS)
      .find({ spaceId, sequence: { $gte: 0 } }, { sort: { sequence: -1 }, limit: paging.limit, after: paging.page });
    return listEnvelope({
      items: page.items.map((revision) => this.presenter.revisionSummary(space, revision)),
      count: page.count,
      next: page.next,
    });
  }
}

/** `GET /spaces/{spaceId}/revisions/{revisionId}/changes`: what a revision changed against its first parent (docs/content.md, Semantic changes). */
export class GetRevisionChanges extends Query<{ revision: string; parent: string | null; changes: SemanticChange[] }> {
  constructor(
    readonly spaceId: string,
    readonly revisionId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetRevisionChanges)
export class GetRevisionChangesHandler implements IQueryHandler<GetRevisionChanges> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: ContentAccess,
    private readonly trees: ContentTrees,
  ) {}

  async execute({
    spaceId,
    revisionId,
    caller,
  }: GetRevisionChanges): Promise<{ revision: string; parent: string | null; changes: SemanticChange[] }> {
    const { revision, tree } = await this.access.resolve(spaceId, caller, { revision: revisionId });
    const parentId = revision.parents[0];
    const parent = parentId === undefined ? null : await this.reads.collection<RevisionDoc>(CONTENT_REVISIONS).get(parentId);
    const before = parent ? await this.trees.tree(parent.tree) : null;
    return { revision: revision._id, parent: parent?._id ?? null, changes: diffTrees(before, tree) };
  }
}

export const revisionQueryHandlers = [
  GetContentHeadsHandler,
  GetPrimaryContentHandler,
  GetRevisionDocumentHandler,
  GetRevisionHandler,
  GetRevisionPagesHandler,
  GetPageHandler,
  GetPageByPathHandler,
  ListRevisionsHandler,
  GetRevisionChangesHandler,
];

/** A page path as written in a URL: percent-escapes decoded (once), surrounding slashes dropped. */
export function normalizePagePath(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    throw DomainError.invalid('pagePath is not a valid URL-encoded path');
  }
  return decoded.replace(/^\/+|\/+$/g, '');
}
