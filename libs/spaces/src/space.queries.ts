import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../../platform/src/errors';
import { userOf, type Caller } from '../../platform/src/http/auth';
import type { OrganizationRole } from '../../platform/src/permissions';
import { listEnvelope, type ListEnvelope } from '../../platform/src/http/list';
import { DEFAULT_PAGE_LIMIT, READ_STORE, type Filter, type ReadStore } from '../../read-store/src/read-store.port';
import { seesMembers, SpaceAccess, SpacePresenter, type CollectionObject, type ShareLinkObject, type SpaceObject } from './space.access';
import { SpaceFactsReader } from './space-facts';
import { collectionPermissions, collectionRole, grantedTo } from './space.permissions';
import { COLLECTIONS, LIVE_COLLECTION, LIVE_SPACE, SPACE_SHARE_LINKS, SPACES, type CollectionDoc, type ShareLinkDoc, type SpaceDoc } from './space.projections';

/** An item of `GET /spaces/{spaceId}/teams` (extension). */
export interface SpaceTeamItem {
  team: string;
  role: Exclude<OrganizationRole, null>;
}

export interface Paging {
  page?: string;
  limit?: number;
}

/** The read side of spaces and collections, with per-caller permissions. */
@Injectable()
export class SpaceQueries {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: SpaceAccess,
    private readonly presenter: SpacePresenter,
    private readonly counters: SpaceFactsReader,
  ) {}

  /** `GET /spaces/{spaceId}`, with `shareKey` granting read access to a share-link space. */
  async space(spaceId: string, caller: Caller, shareKey?: string): Promise<{ space: SpaceObject; revision: number }> {
    const { space, permissions, standing } = await this.access.space(spaceId, caller, shareKey);
    const counts = await this.counters.forSpaces([spaceId]);
    return { space: this.presenter.space(space, permissions, counts.get(spaceId), seesMembers(standing)), revision: space.revision };
  }

  /**
   * `GET /orgs/{organizationId}/spaces`: live spaces, top level first and then by collection, each
   * group in its sibling order. Members with a role see every space; guests only public ones.
   */
  async organizationSpaces(organizationId: string, caller: Caller, paging: Paging): Promise<ListEnvelope<SpaceObject>> {
    const member = await this.access.requireMember(organizationId, caller, []);
    const filter: Filter = { organizationId, ...LIVE_SPACE, ...(member.role === null ? { visibility: 'public' } : {}) };
    const page = await this.reads.collection<SpaceDoc>(SPACES).find(filter, { sort: { parentKey: 1, position: 1 }, limit: paging.limit, after: paging.page });
    const [standing, collections, counts] = await Promise.all([
      this.access.withTeamsOn(organizationId, userOf(caller).userId, member, page.items),
      this.access.collectionsAbove(organizationId, page.items.map((space) => space.parent)),
      this.counters.forSpaces(page.items.map((space) => space._id)),
    ]);
    const items = page.items.map((space) => {
      const { permissions } = SpaceAccess.spaceAccess(standing, space, SpaceAccess.chainFrom(collections, space.parent), false);
      return this.presenter.space(space, permissions, counts.get(space._id), seesMembers(standing));
    });
    return listEnvelope({ items, count: page.count, next: page.next });
  }

  /** `GET /collections/{collectionId}/spaces`: its live spaces in sibling order. */
  async collectionSpaces(collectionId: string, caller: Caller, paging: Paging): Promise<ListEnvelope<SpaceObject>> {
    const { collection, standing: withoutTeams, chain } = await this.access.collection(collectionId, caller);
    const page = await this.reads.collection<SpaceDoc>(SPACES).find({ parent: collectionId, ...LIVE_SPACE }, { sort: { position: 1 }, limit: paging.limit, after: paging.page });
    const [standing, counts] = await Promise.all([
      this.access.withTeamsOn(collection.organizationId, userOf(caller).userId, withoutTeams, page.items),
      this.counters.forSpaces(page.items.map((space) => space._id)),
    ]);
    const items = page.items.map((space) => this.presenter.space(space, SpaceAccess.spaceAccess(standing, space, chain, false).permissions, counts.get(space._id), seesMembers(standing)));
    return listEnvelope({ items, count: page.count, next: page.next });
  }

  async collection(collectionId: string, caller: Caller): Promise<{ collection: CollectionObject; revision: number }> {
    const { collection, permissions } = await this.access.collection(collectionId, caller);
    return { collection: this.presenter.collection(collection, permissions), revision: collection.revision };
  }

  /**
   * `GET /orgs/{organizationId}/collections`: `nested` true (default) lists every live collection,
   * top level first and then by parent, each group in sibling order; false only the top level.
   * Guests have no role on collections and see none.
   */
  async organizationCollections(organizationId: string, caller: Caller, options: Paging & { nested: boolean }): Promise<ListEnvelope<CollectionObject>> {
    // Collections take no team grants: the caller's teams change no role here.
    const standing = await this.access.requireMember(organizationId, caller, []);
    if (standing.role === null) return listEnvelope<CollectionObject>({ items: [], count: 0 });
    const filter: Filter = { organizationId, ...LIVE_COLLECTION, ...(options.nested ? {} : { parentKey: '' }) };
    const page = await this.reads.collection<CollectionDoc>(COLLECTIONS).find(filter, { sort: { parentKey: 1, position: 1 }, limit: options.limit, after: options.page });
    const collections = await this.access.collectionsAbove(organizationId, page.items.map((collection) => collection._id));
    const items = page.items.map((collection) =>
      this.presenter.collection(collection, collectionPermissions(collectionRole(standing, SpaceAccess.chainFrom(collections, collection._id)))),
    );
    return listEnvelope({ items, count: page.count, next: page.next });
  }

  /** `GET /spaces/{spaceId}/share-links`: admins of the space only (403 for others who see it). */
  async shareLinks(spaceId: string, caller: Caller, paging: Paging): Promise<ListEnvelope<ShareLinkObject>> {
    const { permissions } = await this.access.space(spaceId, caller);
    if (!permissions.viewInviteLinks) throw DomainError.forbidden(`only admins of space ${spaceId} may see its share links`);
    const page = await this.reads.collection<ShareLinkDoc>(SPACE_SHARE_LINKS).find({ spaceId }, { sort: { createdRevision: 1 }, limit: paging.limit, after: paging.page });
    return listEnvelope({ items: page.items.map((link) => this.presenter.shareLink(link)), count: page.count, next: page.next });
  }

  async shareLink(spaceId: string, shareKey: string): Promise<ShareLinkObject> {
    const link = await this.reads.collection<ShareLinkDoc>(SPACE_SHARE_LINKS).get(shareKey);
    if (!link || link.spaceId !== spaceId) throw DomainError.notFound(`no share link ${shareKey} on space ${spaceId}`);
    return this.presenter.shareLink(link);
  }

  /**
   * `GET /spaces/{spaceId}/teams` (extension): the roles the space grants to teams, by team id, in
   * the list envelope. Members of its organization who may see the space read them (403 for others
   * who see it). The grants live on the space document, so a page is a slice of its sorted team
   * ids and the cursor the last id of the previous page.
   */
  async teamAccess(spaceId: string, caller: Caller, paging: Paging = {}): Promise<ListEnvelope<SpaceTeamItem>> {
    const { space, standing } = await this.access.space(spaceId, caller);
    if (!standing.member) throw DomainError.forbidden(`only members of organization ${space.organizationId} may see the teams of space ${spaceId}`);
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
