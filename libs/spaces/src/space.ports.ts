import { Inject, Injectable } from '@nestjs/common';
import { SpaceCommands } from './space.commands';
import { SpaceQueries } from './space.queries';
import type { Caller } from '../../platform/src/http/auth';
import { READ_STORE, type ReadStore } from '../../read-store/src/read-store.port';
import { readAll } from '../../read-store/src/read-all';
import { grantedTeams, seesMembers, SpaceAccess, SpacePresenter } from './space.access';
import { SpaceFactsReader } from './space-facts';
import { LIVE_SPACE, SPACES, type SpaceDoc } from './space.projections';

/** A space as the content context sees it (its CONTENT_SPACES port, matched structurally). */
interface SpaceForContent {
  id: string;
  organizationId: string;
  title: string;
  editMode: 'live' | 'locked';
  visibility: string;
  deleted: boolean;
  createdAt: string;
}

const forContent = (space: SpaceDoc): SpaceForContent => ({
  id: space._id,
  organizationId: space.organizationId,
  title: space.title,
  editMode: space.editMode,
  visibility: space.visibility,
  deleted: space.deletedAt !== undefined,
  createdAt: space.createdAt,
});

/** Implements content's CONTENT_SPACES port with the spaces context's own access rules. */
@Injectable()
export class SpacesForContent {
  constructor(
    private readonly access: SpaceAccess,
    @Inject(READ_STORE) private readonly reads: ReadStore,
  ) {}

  async spaceFor(spaceId: string, caller: Caller, shareKey?: string) {
    const { space, permissions } = await this.access.space(spaceId, caller, shareKey);
    return { ...forContent(space), permissions: { view: permissions.view, edit: permissions.edit, comment: permissions.comment, admin: permissions.admin } };
  }

  async spaceById(spaceId: string): Promise<SpaceForContent | null> {
    const space = await this.reads.collection<SpaceDoc>(SPACES).get(spaceId);
    return space && space.purgedAt === undefined ? forContent(space) : null;
  }

  async readableSpaces(organizationId: string, caller: Caller): Promise<Array<{ id: string; title: string }>> {
    const standing = await this.access.requireMember(organizationId, caller);
    const [spaces, collections] = await Promise.all([readAll<SpaceDoc>(this.reads, SPACES, { organizationId, ...LIVE_SPACE }), this.access.collectionsOf(organizationId)]);
    return spaces
      .filter((space) => SpaceAccess.spaceAccess(standing, space, SpaceAccess.chainFrom(collections, space.parent), false).permissions.view)
      .map((space) => ({ id: space._id, title: space.title }));
  }
}

/** Implements change requests' CHANGE_REQUEST_SPACES port: the space with the review and merge permissions too. */
@Injectable()
export class SpacesForChangeRequests {
  constructor(
    private readonly access: SpaceAccess,
    private readonly content: SpacesForContent,
  ) {}

  async spaceFor(spaceId: string, caller: Caller) {
    const { space, permissions } = await this.access.space(spaceId, caller);
    const { view, edit, comment, admin, review, merge } = permissions;
    return { ...forContent(space), permissions: { view, edit, comment, admin, review, merge } };
  }

  readableSpaces(organizationId: string, caller: Caller): Promise<Array<{ id: string; title: string }>> {
    return this.content.readableSpaces(organizationId, caller);
  }

  /** A role on the organization is a role on every space (`spaceRole`: a default level only ever raises it). */
  async readsEverySpace(organizationId: string, caller: Caller): Promise<boolean> {
    return (await this.access.requireMember(organizationId, caller, [])).role !== null;
  }
}

/** Implements comments' COMMENT_SPACES port: the space with what the caller may do with comments. */
@Injectable()
export class SpacesForComments {
  constructor(private readonly access: SpaceAccess) {}

  async spaceFor(spaceId: string, caller: Caller) {
    const { space, permissions } = await this.access.space(spaceId, caller);
    return { id: space._id, organizationId: space.organizationId, deleted: space.deletedAt !== undefined, permissions: { view: permissions.view, comment: permissions.comment, admin: permissions.admin } };
  }
}

/** Implements integrations' INTEGRATION_SPACES port: a space's organization, and its Space object for `extended` lists. */
@Injectable()
export class SpacesForIntegrations {
  constructor(
    private readonly content: SpacesForContent,
    private readonly queries: SpaceQueries,
  ) {}

  async spaceById(spaceId: string) {
    const space = await this.content.spaceById(spaceId);
    return space ? { id: space.id, organizationId: space.organizationId, deleted: space.deleted } : null;
  }

  /** The Space object as the caller may see it; null when they may not. */
  async present(spaceId: string, caller: Caller) {
    try {
      return (await this.queries.space(spaceId, caller)).space;
    } catch {
      return null;
    }
  }
}

/** Implements sites' SITE_SPACES port: a space's organization and title, and its Space object as the caller may see it. */
@Injectable()
export class SpacesForSites {
  constructor(
    private readonly content: SpacesForContent,
    private readonly integrations: SpacesForIntegrations,
    private readonly commands: SpaceCommands,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: SpaceAccess,
    private readonly presenter: SpacePresenter,
    private readonly facts: SpaceFactsReader,
  ) {}

  /**
   * The Space object a docs site of `organizationId` shows, for one of its readers (null: a reader
   * outside the organization): with the reader's own permissions on it, whatever its visibility,
   * since the site publishes its content to them. Null when it is not a live space of that organization.
   */
  async presentOnSite(spaceId: string, organizationId: string, caller: Caller | null) {
    const space = await this.reads.collection<SpaceDoc>(SPACES).get(spaceId);
    if (!space || space.organizationId !== organizationId || space.deletedAt !== undefined || space.purgedAt !== undefined) return null;
    const outside = { member: false, role: null, teams: [] };
    const [standing, parents, counts] = await Promise.all([caller ? this.access.standing(organizationId, caller, grantedTeams([space])) : outside, this.access.chain(space.parent), this.facts.forSpaces([spaceId])]);
    return this.presenter.space(space, SpaceAccess.spaceAccess(standing, space, parents, false).permissions, counts.get(spaceId), seesMembers(standing));
  }

  createSpace(organizationId: string, title: string, caller: Caller): Promise<string> {
    return this.commands.create(organizationId, { title }, caller);
  }

  async spaceById(spaceId: string) {
    const space = await this.content.spaceById(spaceId);
    return space ? { id: space.id, organizationId: space.organizationId, title: space.title, deleted: space.deleted } : null;
  }

  present(spaceId: string, caller: Caller) {
    return this.integrations.present(spaceId, caller);
  }
}
