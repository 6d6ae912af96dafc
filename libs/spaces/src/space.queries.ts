import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { DomainError } from '#platform/errors';
import { userOf, type Caller } from '#platform/http/auth';
import type { OrganizationRole } from '#platform/permissions';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import { readAll } from '#read-store/read-all';
import { DEFAULT_PAGE_LIMIT, READ_STORE, type Filter, type ReadStore } from '#read-store/read-store.port';
import {
  grantedTeams,
  seesMembers,
  SpaceAccess,
  SpacePresenter,
  type CollectionObject,
  type ShareLinkObject,
  type SpaceObject,
} from './space.access';
import { SpaceFactsReader } from './space-facts';
import { collectionPermissions, collectionRole, grantedTo, type SpacePermissions } from './space.permissions';
import {
  COLLECTIONS,
  LIVE_COLLECTION,
  LIVE_SPACE,
  SPACE_SHARE_LINKS,
  SPACES,
  type CollectionDoc,
  type ShareLinkDoc,
  type SpaceDoc,
} from './space.projections';

/* The read side of spaces and collections, with per-caller permissions. */

/** An item of `GET /spaces/{spaceId}/teams` (extension). */
export interface SpaceTeamItem {
  team: string;
  role: Exclude<OrganizationRole, null>;
}

export interface Paging {
  page?: string;
  limit?: number;
}

/** `GET /spaces/{spaceId}`, with `shareKey` granting read access to a share-link space: the Space object and its ETag source (the stream revision). */
export class GetSpace extends Query<{ space: SpaceObject; revision: number }> {
  constructor(
    readonly spaceId: string,
    readonly caller: Caller,
    readonly shareKey?: string,
  ) {
    super();
  }
}

@QueryHandler(GetSpace)
export class GetSpaceHandler implements IQueryHandler<GetSpace> {
  constructor(
    private readonly access: SpaceAccess,
    private readonly presenter: SpacePresenter,
    private readonly counters: SpaceFactsReader,
  ) {}

  async execute({ spaceId, caller, shareKey }: GetSpace) {
    const { space, permissions, standing } = await this.access.space(spaceId, caller, shareKey);
    const counts = await this.counters.forSpaces([spaceId]);
    return { space: this.presenter.space(space, permissions, counts.get(spaceId), seesMembers(standing)), revision: space.revision };
  }
}

/**
 * `GET /orgs/{organizationId}/spaces`: live spaces, top level first and then by collection, each
 * group in its sibling order. Members with a role see every space; guests only public ones.
 */
export class ListOrganizationSpaces extends Query<ListEnvelope<SpaceObject>> {
  constructor(
    readonly organizationId: string,
    readonly caller: Caller,
    readonly paging: Paging,
  ) {
    super();
  }
}

@QueryHandler(ListOrganizationSpaces)
export class ListOrganizationSpacesHandler implements IQueryHandler<ListOrganizationSpaces> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: SpaceAccess,
    private readonly presenter: SpacePresenter,
    private readonly counters: SpaceFactsReader,
  ) {}

  async execute({ organizationId, caller, paging }: ListOrganizationSpaces): Promise<ListEnvelope<SpaceObject>> {
    const member = await this.access.requireMember(organizationId, caller, []);
    const filter: Filter = { organizationId, ...LIVE_SPACE, ...(member.role === null ? { visibility: 'public' } : {}) };
    const page = await this.reads
      .collection<SpaceDoc>(SPACES)
      .find(filter, { sort: { parentKey: 1, position: 1 }, limit: paging.limit, after: paging.page });
    const [standing, collections, counts] = await Promise.all([
      this.access.withTeamsOn(organizationId, userOf(caller).userId, member, page.items),
      this.access.collectionsAbove(
        organizationId,
        page.items.map((space) => space.parent),
      ),
      this.counters.forSpaces(page.items.map((space) => space._id)),
    ]);
    const items = page.items.map((space) => {
      const { permissions } = SpaceAccess.spaceAccess(standing, space, SpaceAccess.chainFrom(collections, space.parent), false);
      return this.presenter.space(space, permissions, counts.get(space._id), seesMembers(standing));
    });
    return listEnvelope({ items, count: page.count, next: page.next });
  }
}

/** `GET /collections/{collectionId}/spaces`: its live spaces in sibling order. */
export class ListCollectionSpaces extends Query<ListEnvelope<SpaceObject>> {
  constructor(
    readonly collectionId: string,
    readonly caller: Caller,
    readonly paging: Paging,
  ) {
    super();
  }
}

@QueryHandler(ListCollectionSpaces)
export class ListCollectionSpacesHandler implements IQueryHandler<ListCollectionSpaces> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: SpaceAccess,
    private readonly presenter: SpacePresenter,
    private readonly counters: SpaceFactsReader,
  ) {}

  async execute({ collectionId, caller, paging }: ListCollectionSpaces): Promise<ListEnvelope<SpaceObject>> {
    const { collection, standing: withoutTeams, chain } = await this.access.collection(collectionId, caller);
    const page = await this.reads
      .collection<SpaceDoc>(SPACES)
      .find({ parent: collectionId, ...LIVE_SPACE }, { sort: { position: 1 }, limit: paging.limit, after: paging.page });
    const [standing, counts] = await Promise.all([
      this.access.withTeamsOn(collection.organizationId, userOf(caller).userId, withoutTeams, page.items),
      this.counters.forSpaces(page.items.map((space) => space._id)),
    ]);
    const items = page.items.map((space) =>
      this.presenter.space(
        space,
        SpaceAccess.spaceAccess(standing, space, chain, false).permissions,
        counts.get(space._id),
        seesMembers(standing),
      ),
    );
    return listEnvelope({ items, count: page.count, next: page.next });
  }
}

/** `GET /collections/{collectionId}`: the Collection object and its ETag source (the stream revision). */
export class GetCollection extends Query<{ collection: CollectionObject; revision: number }> {
  constructor(
    readonly collectionId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetCollection)
export class GetCollectionHandler implements IQueryHandler<GetCollection> {
  constructor(
    private readonly access: SpaceAccess,
    private readonly presenter: SpacePresenter,
  ) {}

  async execute({ collectionId, caller }: GetCollection) {
    const { collection, permissions } = await this.access.collection(collectionId, caller);
    return { collection: this.presenter.collection(collection, permissions), revision: collection.revision };
  }
}

/**
 * `GET /orgs/{organizationId}/collections`: `nested` true (default) lists every live collection,
 * top level first and then by parent, each group in sibling order; false only the top level.
 * Guests have no role on collections and see none.
 */
export class ListOrganizationCollections extends Query<ListEnvelope<CollectionObject>> {
  constructor(
    readonly organizationId: string,
    readonly caller: Caller,
    readonly options: Paging & { nested: boolean },
  ) {
    super();
  }
}

@QueryHandler(ListOrganizationCollections)
export class ListOrganizationCollectionsHandler implements IQueryHandler<ListOrganizationCollections> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: SpaceAccess,
    private readonly presenter: SpacePresenter,
  ) {}

  async execute({ organizationId, caller, options }: ListOrganizationCollections): Promise<ListEnvelope<CollectionObject>> {
    // Collections take no team grants: the caller's teams change no role here.
    const standing = await this.access.requireMember(organizationId, caller, []);
    if (standing.role === null) return listEnvelope<CollectionObject>({ items: [], count: 0 });
    const filter: Filter = { organizationId, ...LIVE_COLLECTION, ...(options.nested ? {} : { parentKey: '' }) };
    const page = await this.reads
      .collection<CollectionDoc>(COLLECTIONS)
      .find(filter, { sort: { parentKey: 1, position: 1 }, limit: options.limit, after: options.page });
    const collections = await this.access.collectionsAbove(
      organizationId,
      page.items.map((collection) => collection._id),
    );
    const items = page.items.map((collection) =>
      this.presenter.collection(
        collection,
        collectionPermissions(collectionRole(standing, SpaceAccess.chainFrom(collections, collection._id))),
      ),
    );
    return listEnvelope({ items, count: page.count, next: page.next });
  }
}

/** `GET /spaces/{spaceId}/share-links` (extension): admins of the space only (403 for others who see it). */
export class ListShareLinks extends Query<ListEnvelope<ShareLinkObject>> {
  constructor(
    readonly spaceId: string,
    readonly caller: Caller,
    readonly paging: Paging,
  ) {
    super();
  }
}

@QueryHandler(ListShareLinks)
export class ListShareLinksHandler implements IQueryHandler<ListShareLinks> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: SpaceAccess,
    private readonly presenter: SpacePresenter,
  ) {}

  async execute({ spaceId, caller, paging }: ListShareLinks): Promise<ListEnvelope<ShareLinkObject>> {
    const { permissions } = await this.access.space(spaceId, caller);
    if (!permissions.viewInviteLinks) throw DomainError.forbidden(`only admins of space ${spaceId} may see its share links`);
    const page = await this.reads
      .collection<ShareLinkDoc>(SPACE_SHARE_LINKS)
      .find({ spaceId }, { sort: { createdRevision: 1 }, limit: paging.limit, after: paging.page });
    return listEnvelope({ items: page.items.map((link) => this.presenter.shareLink(link)), count: page.count, next: page.next });
  }
}

/** The share link `shareKey` of the space (the answer of `POST /spaces/{spaceId}/share-links`, which checked the caller); 404 when it has no such link. */
export class GetShareLink extends Query<ShareLinkObject> {
  constructor(
    readonly spaceId: string,
    readonly shareKey: string,
  ) {
    super();
  }
}

@QueryHandler(GetShareLink)
export class GetShareLinkHandler implements IQueryHandler<GetShareLink> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly presenter: SpacePresenter,
  ) {}

  async execute({ spaceId, shareKey }: GetShareLink): Promise<ShareLinkObject> {
    const link = await this.reads.collection<ShareLinkDoc>(SPACE_SHARE_LINKS).get(shareKey);
    if (!link || link.spaceId !== spaceId) throw DomainError.notFound(`no share link ${shareKey} on space ${spaceId}`);
    return this.presenter.shareLink(link);
  }
}

/**
 * `GET /spaces/{spaceId}/teams` (extension): the roles the space grants to teams, by team id, in
 * the list envelope. Members of its organization who may see the space read them (403 for others
 * who see it). The grants live on the space document, so a page is a slice of its sorted team
 * ids and the cursor the last id of the previous page.
 */
export class ListSpaceTeamAccess extends Query<ListEnvelope<SpaceTeamItem>> {
  constructor(
    readonly spaceId: string,
    readonly caller: Caller,
    readonly paging: Paging = {},
  ) {
    super();
  }
}

@QueryHandler(ListSpaceTeamAccess)
export class ListSpaceTeamAccessHandler implements IQueryHandler<ListSpaceTeamAccess> {
  constructor(private readonly access: SpaceAccess) {}

  async execute({ spaceId, caller, paging }: ListSpaceTeamAccess): Promise<ListEnvelope<SpaceTeamItem>> {
    const { space, standing } = await this.access.space(spaceId, caller);
    if (!standing.member)
      throw DomainError.forbidden(`only members of organization ${space.organizationId} may see the teams of space ${spaceId}`);
    const teamRoles = space.teamRoles ?? {};
    const all = Object.keys(teamRoles)
      .sort()
      .flatMap((team): SpaceTeamItem[] => {
        const role = grantedTo(teamRoles, team);
        return role === null ? [] : [{ team, role }];
      });
    const after = paging.page === undefined ? null : decodeTeamCursor(paging.page);
    const start = after === null ? 0 : all.findIndex((item) => item.team > after);
    const limit = paging.limit ?? DEFAULT_PAGE_LIMIT;
    const items = start < 0 ? [] : all.slice(start, start + limit);
    const more = start >= 0 && start + limit < all.length;
    return listEnvelope({ items, count: all.length, next: more ? encodeTeamCursor(items[items.length - 1].team) : undefined });
  }
}

const TEAM_CURSOR = /^team:[A-Za-z0-9_-]{1,64}$/;

function encodeTeamCursor(teamId: string): string {
  return Buffer.from(`team:${teamId}`, 'utf8').toString('base64url');
}

/** The team id a cursor of `GET /spaces/{spaceId}/teams` resumes after; anything else is a 400. */
function decodeTeamCursor(cursor: string): string {
  const text = /^[A-Za-z0-9_-]{1,128}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (!TEAM_CURSOR.test(text)) throw DomainError.invalid('invalid page cursor: use the `next.page` value of a previous page');
  return text.slice('team:'.length);
}

/*
 * The reads other contexts make through the ports this context implements (spaces.provides.ts), with
 * the spaces context's own access rules.
 */

/** A space as other contexts see it (their ports' space, matched structurally). */
export interface SpaceSummary {
  id: string;
  organizationId: string;
  title: string;
  editMode: 'live' | 'locked';
  visibility: string;
  deleted: boolean;
  createdAt: string;
}

function summaryOf(space: SpaceDoc): SpaceSummary {
  return {
    id: space._id,
    organizationId: space.organizationId,
    title: space.title,
    editMode: space.editMode,
    visibility: space.visibility,
    deleted: space.deletedAt !== undefined,
    createdAt: space.createdAt,
  };
}

/** A space the caller may see (404 otherwise, as `GET /spaces/{spaceId}`), with what they may do with it; `shareKey` as for `GetSpace`. */
export class GetSpaceAccess extends Query<{ space: SpaceSummary; permissions: SpacePermissions }> {
  constructor(
    readonly spaceId: string,
    readonly caller: Caller,
    readonly shareKey?: string,
  ) {
    super();
  }
}

@QueryHandler(GetSpaceAccess)
export class GetSpaceAccessHandler implements IQueryHandler<GetSpaceAccess> {
  constructor(private readonly access: SpaceAccess) {}

  async execute({ spaceId, caller, shareKey }: GetSpaceAccess) {
    const { space, permissions } = await this.access.space(spaceId, caller, shareKey);
    return { space: summaryOf(space), permissions };
  }
}

/** A space by id, deleted ones included, whoever asks (no access check: the asking context checked its own); null once purged or when there is none. */
export class FindSpace extends Query<SpaceSummary | null> {
  constructor(readonly spaceId: string) {
    super();
  }
}

@QueryHandler(FindSpace)
export class FindSpaceHandler implements IQueryHandler<FindSpace> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async execute({ spaceId }: FindSpace): Promise<SpaceSummary | null> {
    const space = await this.reads.collection<SpaceDoc>(SPACES).get(spaceId);
    return space && space.purgedAt === undefined ? summaryOf(space) : null;
  }
}

/** The organization's live spaces the caller may read (404 for people outside it). */
export class ListReadableSpaces extends Query<Array<{ id: string; title: string }>> {
  constructor(
    readonly organizationId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(ListReadableSpaces)
export class ListReadableSpacesHandler implements IQueryHandler<ListReadableSpaces> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: SpaceAccess,
  ) {}

  async execute({ organizationId, caller }: ListReadableSpaces): Promise<Array<{ id: string; title: string }>> {
    const standing = await this.access.requireMember(organizationId, caller);
    const [spaces, collections] = await Promise.all([
      readAll<SpaceDoc>(this.reads, SPACES, { organizationId, ...LIVE_SPACE }),
      this.access.collectionsOf(organizationId),
    ]);
    return spaces
      .filter((space) => SpaceAccess.spaceAccess(standing, space, SpaceAccess.chainFrom(collections, space.parent), false).permissions.view)
      .map((space) => ({ id: space._id, title: space.title }));
  }
}

/** Whether the caller reads every space of the organization: a role on the organization is a role on every space (`spaceRole`: a default level only ever raises it). 404 for people outside it. */
export class ReadsEverySpace extends Query<boolean> {
  constructor(
    readonly organizationId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(ReadsEverySpace)
export class ReadsEverySpaceHandler implements IQueryHandler<ReadsEverySpace> {
  constructor(private readonly access: SpaceAccess) {}

  async execute({ organizationId, caller }: ReadsEverySpace): Promise<boolean> {
    return (await this.access.requireMember(organizationId, caller, [])).role !== null;
  }
}

/**
 * The Space object a docs site of `organizationId` shows, for one of its readers (null: a reader
 * outside the organization): with the reader's own permissions on it, whatever its visibility,
 * since the site publishes its content to them. Null when it is not a live space of that organization.
 */
export class PresentSpaceOnSite extends Query<SpaceObject | null> {
  constructor(
    readonly spaceId: string,
    readonly organizationId: string,
    readonly caller: Caller | null,
  ) {
    super();
  }
}

@QueryHandler(PresentSpaceOnSite)
export class PresentSpaceOnSiteHandler implements IQueryHandler<PresentSpaceOnSite> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: SpaceAccess,
    private readonly presenter: SpacePresenter,
    private readonly facts: SpaceFactsReader,
  ) {}

  async execute({ spaceId, organizationId, caller }: PresentSpaceOnSite): Promise<SpaceObject | null> {
    const space = await this.reads.collection<SpaceDoc>(SPACES).get(spaceId);
    if (!space || space.organizationId !== organizationId || space.deletedAt !== undefined || space.purgedAt !== undefined) return null;
    const outside = { member: false, role: null, teams: [] };
    const [standing, parents, counts] = await Promise.all([
      caller ? this.access.standing(organizationId, caller, grantedTeams([space])) : outside,
      this.access.chain(space.parent),
      this.facts.forSpaces([spaceId]),
    ]);
    return this.presenter.space(
      space,
      SpaceAccess.spaceAccess(standing, space, parents, false).permissions,
      counts.get(spaceId),
      seesMembers(standing),
    );
  }
}

export const spaceQueryHandlers = [
  GetSpaceHandler,
  ListOrganizationSpacesHandler,
  ListCollectionSpacesHandler,
  GetCollectionHandler,
  ListOrganizationCollectionsHandler,
  ListShareLinksHandler,
  GetShareLinkHandler,
  ListSpaceTeamAccessHandler,
  GetSpaceAccessHandler,
  FindSpaceHandler,
  ListReadableSpacesHandler,
  ReadsEverySpaceHandler,
  PresentSpaceOnSiteHandler,
];
