import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { ContentRef } from '#document/document.model';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import { READ_STORE, type Filter, type ReadStore } from '#read-store/read-store.port';
import type { ContentSpace } from './content.needs';
import { ContentAccess } from './content.access';
import { CONTENT_LINKS, type LinkDoc, type RevisionDoc } from './content.projections';
import type { Paging } from './content.reads';

/*
 * The reads of the links index (docs/content.md, Reads): `/spaces/{spaceId}/links`, a page's
 * `…/links` and the `…/backlinks` of a page or a file, on main and in a change request
 * (content.reads.ts says how every content read resolves what it reads).
 */

export type LinkStatus = 'ok' | 'broken' | 'in-app';

export interface ContentReference {
  kind: string;
  organization: string;
  space: string;
  versionContext: { type: 'revision'; revision: string };
  [member: string]: unknown;
}

export interface LinkItem {
  status: LinkStatus;
  relation: 'link';
  targetReference: ContentReference | (ContentRef & { organization?: string; space?: string });
  locationReferences: ContentReference[];
}

export interface LinksEnvelope extends ListEnvelope<LinkItem> {
  stats: { total: number; broken: { total: number; changeRequest: number } };
}

/** `GET /spaces/{spaceId}/links`: the links of the space's primary content. */
export class ListSpaceLinks extends Query<LinksEnvelope> {
  constructor(
    readonly spaceId: string,
    readonly caller: Caller,
    readonly status: LinkStatus | undefined,
    readonly paging: Paging,
  ) {
    super();
  }
}

@QueryHandler(ListSpaceLinks)
export class ListSpaceLinksHandler implements IQueryHandler<ListSpaceLinks> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: ContentAccess,
  ) {}

  async execute({ spaceId, caller, status, paging }: ListSpaceLinks): Promise<LinksEnvelope> {
    const { space, revision } = await this.access.resolve(spaceId, caller);
    return listLinks(this.reads, this.config.publicUrl, space, revision, { spaceId }, status, paging);
  }
}

/** `GET /spaces/{spaceId}/content/page/{pageId}/links`: a page's outgoing links. With `revisionId` (a change request's head), the links are main's, judged and named in that revision. */
export class ListPageLinks extends Query<LinksEnvelope> {
  constructor(
    readonly spaceId: string,
    readonly pageId: string,
    readonly caller: Caller,
    readonly status: LinkStatus | undefined,
    readonly paging: Paging,
    readonly revisionId?: string,
  ) {
    super();
  }
}

@QueryHandler(ListPageLinks)
export class ListPageLinksHandler implements IQueryHandler<ListPageLinks> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: ContentAccess,
  ) {}

  async execute({ spaceId, pageId, caller, status, paging, revisionId }: ListPageLinks): Promise<LinksEnvelope> {
    const { space, revision, tree } = await this.access.resolve(spaceId, caller, revisionId === undefined ? {} : { revision: revisionId });
    if (!tree.page(pageId)) throw DomainError.notFound(`no page ${pageId} in space ${spaceId}`);
    return listLinks(this.reads, this.config.publicUrl, space, revision, { spaceId, sourcePage: pageId }, status, paging);
  }
}

/** `GET .../content/page/{pageId}/backlinks` and `.../content/files/{fileId}/backlinks`: pages of the primary content that link to a page or a file of it. */
export class ListBacklinks extends Query<ListEnvelope<ContentReference>> {
  constructor(
    readonly spaceId: string,
    readonly target: { page: string } | { file: string },
    readonly caller: Caller,
    readonly paging: Paging,
    readonly revisionId?: string,
  ) {
    super();
  }
}

@QueryHandler(ListBacklinks)
export class ListBacklinksHandler implements IQueryHandler<ListBacklinks> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: ContentAccess,
  ) {}

  async execute({ spaceId, target, caller, paging, revisionId }: ListBacklinks): Promise<ListEnvelope<ContentReference>> {
    const { space, revision, tree } = await this.access.resolve(spaceId, caller, revisionId === undefined ? {} : { revision: revisionId });
    const targetKey = 'page' in target ? `page:${target.page}` : `file:${target.file}`;
    if ('page' in target ? !tree.page(target.page) : !tree.file(target.file))
      throw DomainError.notFound(`no ${'page' in target ? `page ${target.page}` : `file ${target.file}`} in space ${spaceId}`);
    const page = await this.reads
      .collection<LinkDoc>(CONTENT_LINKS)
      .find({ spaceId, targetKey }, { sort: { sourcePage: 1 }, limit: paging.limit, after: paging.page });
    return listEnvelope({ items: page.items.map((link) => locationOf(space, revision, link)), count: page.count, next: page.next });
  }
}

export const linkQueryHandlers = [ListSpaceLinksHandler, ListPageLinksHandler, ListBacklinksHandler];

async function listLinks(
  reads: ReadStore,
  publicUrl: string,
  space: ContentSpace,
  revision: RevisionDoc,
  scope: Filter,
  status: LinkStatus | undefined,
  paging: Paging,
): Promise<LinksEnvelope> {
  const links = reads.collection<LinkDoc>(CONTENT_LINKS);
  const inApp: Filter = { status: 'url', targetKey: { $gte: `url:${publicUrl}/`, $lt: `url:${publicUrl}0` } };
  const byStatus: Record<LinkStatus, Filter> = {
    broken: { status: 'broken' },
    'in-app': inApp,
    ok: {
      $or: [
        { status: 'ok' },
        { status: 'url', targetKey: { $lt: `url:${publicUrl}/` } },
        { status: 'url', targetKey: { $gte: `url:${publicUrl}0` } },
      ],
    },
  };
  const filter = status === undefined ? scope : { ...scope, ...byStatus[status] };
  const [page, total, broken] = await Promise.all([
    links.find(filter, { sort: { sourcePage: 1 }, limit: paging.limit, after: paging.page }),
    links.count(scope),
    links.count({ ...scope, status: 'broken' }),
  ]);
  const items = page.items.map((link): LinkItem => ({
    status: linkStatus(link, publicUrl),
    relation: 'link',
    targetReference: targetReference(space, revision, link.target),
    locationReferences: [locationOf(space, revision, link)],
  }));
  return { ...listEnvelope({ items, count: page.count, next: page.next }), stats: { total, broken: { total: broken, changeRequest: 0 } } };
}

function linkStatus(link: LinkDoc, publicUrl: string): LinkStatus {
  if (link.status !== 'url') return link.status;
  return link.target.kind === 'url' && link.target.url.startsWith(`${publicUrl}/`) ? 'in-app' : 'ok';
}

function locationOf(space: ContentSpace, revision: RevisionDoc, link: LinkDoc): ContentReference {
  return {
    kind: 'page',
    page: link.sourcePage,
    ...(link.key !== undefined ? { node: link.key } : {}),
    organization: space.organizationId,
    space: space.id,
    versionContext: { type: 'revision', revision: revision._id },
  };
}

function targetReference(space: ContentSpace, revision: RevisionDoc, target: ContentRef): LinkItem['targetReference'] {
  if (target.kind === 'page' || target.kind === 'file' || target.kind === 'anchor') {
    return {
      ...target,
      organization: space.organizationId,
      space: target.space ?? space.id,
      versionContext: { type: 'revision', revision: revision._id },
    } as ContentReference;
  }
  return target;
}
