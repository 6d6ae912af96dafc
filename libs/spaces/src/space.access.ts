import { Inject, Injectable } from '@nestjs/common';
import { NO_FACTS } from './space-facts';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { CLOCK, type Clock } from '#platform/clock';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { readAll } from '#read-store/read-all';
import { byIds } from '#platform/by-ids';
import { SPACE_ORGANIZATIONS, SPACE_TEAMS, type SpaceFacts, type SpaceOrganizations, type SpaceTeams } from './spaces.needs';
import { withinRetention } from './space.decider';
import { INHERITED_MERGE_RULES, withoutNamedUsers, type SpaceMergeRules } from '#platform/merge-rules';
import type { DefaultLevel, EditMode, SpaceLanguage, SpaceVisibility } from './space.events';
import {
  collectionPermissions,
  collectionRole,
  contentRole,
  spacePermissions,
  spaceRole,
  visibilityGrantsRead,
  type CollectionPermissions,
  type ContentRole,
  type OrganizationStanding,
  type SpacePermissions,
} from './space.permissions';
import {
  COLLECTIONS,
  LIVE_COLLECTION,
  SPACE_SHARE_LINKS,
  SPACES,
  type CollectionDoc,
  type ShareLinkDoc,
  type SpaceDoc,
} from './space.projections';

/** Deepest collection nesting followed when walking up (a guard, not a product limit). */
const MAX_DEPTH = 100;

/** Whether the standing lets the caller list the organization's members (a member with a role, guests aside). */
export const seesMembers = (standing: OrganizationStanding): boolean => standing.member && standing.role !== null;

/** The teams granted a role on any of these spaces: the only teams of a caller their roles depend on. */
export function grantedTeams(spaces: ReadonlyArray<Pick<SpaceDoc, 'teamRoles'>>): string[] {
  const teams = new Set<string>();
  for (const space of spaces) for (const team of Object.keys(space.teamRoles ?? {})) teams.add(team);
  return [...teams];
}

/** The Space resource. */
export interface SpaceObject {
  object: 'space';
  id: string;
  title: string;
  /** '' when the space has none (the platform's value for no emoji; `emoji` is always there). */
  emoji: string;
  visibility: SpaceVisibility;
  createdAt: string;
  updatedAt: string;
  deletedAt?: string;
  editMode: EditMode;
  mergeRules: SpaceMergeRules;
  /** The id of the active revision: its primary content. */
  revision?: string;
  urls: { location: string; app: string; public?: string; icon?: string };
  organization: string;
  parent?: string;
  language?: SpaceLanguage;
  defaultLevel: DefaultLevel;
  comments: number;
  changeRequests: number;
  changeRequestsOpen: number;
  changeRequestsDraft: number;
  permissions: SpacePermissions;
}

/** The Collection resource. */
export interface CollectionObject {
  object: 'collection';
  id: string;
  title: string;
  description?: string;
  organization: string;
  parent?: string;
  defaultLevel: DefaultLevel;
  urls: { location: string; app: string };
  permissions: CollectionPermissions;
}

export interface ShareLinkObject {
  object: 'share-link';
  key: string;
  space: string;
  createdAt: string;
  urls: { location: string; space: string };
}

export interface SpaceView {
  space: SpaceDoc;
  standing: OrganizationStanding;
  role: ContentRole;
  permissions: SpacePermissions;
}

export interface CollectionView {
  collection: CollectionDoc;
  /** Without teams: collections take no team grants (spaces under it do; see `requireMember`'s `teamsAmong`). */
  standing: OrganizationStanding;
  role: ContentRole;
  /** The collection itself, then its parents up to the top level. */
  chain: CollectionDoc[];
  permissions: CollectionPermissions;
}

/**
 * Who may see what: the caller's standing in the content's organization, their effective role
 * through the collection tree (space.permissions.ts), and what visibility and share keys allow.
 * A resource the caller may not see is 404, as if it did not exist.
 */
@Injectable()
export class SpaceAccess {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(SPACE_ORGANIZATIONS) private readonly membership: SpaceOrganizations,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SPACE_TEAMS) private readonly teams: SpaceTeams,
  ) {}

  /**
   * The caller's standing in the organization, with the teams they are in there; with
   * `teamsAmong`, only those of these teams (the teams granted a role on the spaces at hand, which
   * are all a role needs), so that it costs the same however many teams the caller is in.
   */
  async standing(organizationId: string, caller: Caller, teamsAmong?: readonly string[]): Promise<OrganizationStanding> {
    const outside: OrganizationStanding = { member: false, role: null, teams: [] };
    if (caller.kind !== 'user') return outside;
    const found = await this.membership.roleOf(organizationId, caller.userId);
    if (!found?.member) return outside;
    const role = contentRole(found.role);
    // An organization admin is admin on every space and team grants only ever raise a role: their
    // teams (an admin who made every team is in all of them) would change nothing.
    if (role === 'admin') return { member: true, role, teams: [] };
    if (teamsAmong?.length === 0) return { member: true, role, teams: [] };
    const teams =
      teamsAmong === undefined
        ? await this.teams.teamIdsOf(organizationId, caller.userId)
        : await this.teams.teamsAmong(organizationId, caller.userId, teamsAmong);
    return { member: true, role, teams };
  }

  /**
   * `standing` (read without teams) completed with the teams of `userId` that `spaces` grant a role
   * to: all a role on those spaces depends on, looked up by membership however many teams the person
   * is in. People outside, admins and spaces granting no team need no lookup.
   */
  async withTeamsOn(
    organizationId: string,
    userId: string,
    standing: OrganizationStanding,
    spaces: ReadonlyArray<Pick<SpaceDoc, 'teamRoles'>>,
  ): Promise<OrganizationStanding> {
    const granted = grantedTeams(spaces);
    if (!standing.member || standing.role === 'admin' || granted.length === 0) return standing;
    return { ...standing, teams: await this.teams.teamsAmong(organizationId, userId, granted) };
  }

  /** The standing of a member (guests included); 404 for people outside the organization. `teamsAmong` as for `standing`. */
  async requireMember(organizationId: string, caller: Caller, teamsAmong?: readonly string[]): Promise<OrganizationStanding> {
    const standing = await this.standing(organizationId, caller, teamsAmong);
    if (!standing.member) throw DomainError.notFound(`no organization ${organizationId}`);
    return standing;
  }

  /** The live collection and its live ancestors, nearest first; empty for null. */
  async chain(collectionId: string | null): Promise<CollectionDoc[]> {
    const chain: CollectionDoc[] = [];
    let next = collectionId;
    while (next !== null && chain.length < MAX_DEPTH) {
      const collection = await this.reads.collection<CollectionDoc>(COLLECTIONS).get(next);
      if (!collection || collection.deletedAt !== undefined) break;
      chain.push(collection);
      next = collection.parent;
    }
    return chain;
  }

  /** The same walk over an organization's collections already in memory. */
  static chainFrom(collections: ReadonlyMap<string, CollectionDoc>, collectionId: string | null): CollectionDoc[] {
    const chain: CollectionDoc[] = [];
    let next = collectionId;
    while (next !== null && chain.length < MAX_DEPTH) {
      const collection = collections.get(next);
      if (!collection) break;
      chain.push(collection);
      next = collection.parent;
    }
    return chain;
  }

  async collectionsOf(organizationId: string): Promise<Map<string, CollectionDoc>> {
    const all = await readAll<CollectionDoc>(this.reads, COLLECTIONS, { organizationId, ...LIVE_COLLECTION });
    return new Map(all.map((collection) => [collection._id, collection]));
  }

  /**
   * The live collections of the organization among `collectionIds` and above them, for `chainFrom`:
   * what a page of spaces or collections needs for its roles, read level by level by id, so that a
   * page costs the same however many collections the organization has.
   */
  async collectionsAbove(organizationId: string, collectionIds: Iterable<string | null>): Promise<Map<string, CollectionDoc>> {
    const found = new Map<string, CollectionDoc>();
    const seen = new Set<string>();
    let level = [...new Set(collectionIds)].filter((id): id is string => id !== null);
    for (let depth = 0; level.length > 0 && depth < MAX_DEPTH; depth++) {
      for (const id of level) seen.add(id);
      const next: string[] = [];
      for (const collection of await byIds(this.reads.collection<CollectionDoc>(COLLECTIONS), level)) {
        if (collection.organizationId !== organizationId || collection.deletedAt !== undefined) continue;
        found.set(collection._id, collection);
        if (collection.parent !== null && !seen.has(collection.parent)) next.push(collection.parent);
      }
      level = [...new Set(next)];
    }
    return found;
  }

  /** Whether the share key is a live share link of the space. */
  async validShareKey(spaceId: string, shareKey: string | undefined): Promise<boolean> {
    if (shareKey === undefined) return false;
    const link = await this.reads.collection<ShareLinkDoc>(SPACE_SHARE_LINKS).get(shareKey);
    return link !== null && link.spaceId === spaceId;
  }

  /** Role and permissions of a standing on a space, given its parents. */
  static spaceAccess(
    standing: OrganizationStanding,
    space: SpaceDoc,
    parents: readonly CollectionDoc[],
    validShareKey: boolean,
  ): { role: ContentRole; permissions: SpacePermissions } {
    const role = spaceRole(standing, space, parents);
    const organizationRole = standing.member ? standing.role : null;
    return { role, permissions: spacePermissions(role, visibilityGrantsRead(space.visibility, validShareKey), organizationRole) };
  }

  /**
   * A space the caller may see: 404 when it does not exist, was purged or deleted more than 7
   * days ago, when it is deleted and the caller is not an admin of it (only they may restore it),
   * or when neither their role nor its visibility (with `shareKey`) lets them read it.
   */
  async space(spaceId: string, caller: Caller, shareKey?: string): Promise<SpaceView> {
    const space = await this.reads.collection<SpaceDoc>(SPACES).get(spaceId);
    // Built only when thrown: an error's stack trace costs a read that succeeds.
    const missing = () => DomainError.notFound(`no space ${spaceId}`);
    if (!space || space.purgedAt !== undefined) throw missing();
    if (space.deletedAt !== undefined && !withinRetention(space.deletedAt, this.clock.now().toISOString())) throw missing();
    const [standing, parents, validKey] = await Promise.all([
      this.standing(space.organizationId, caller, grantedTeams([space])),
      this.chain(space.parent),
      this.validShareKey(spaceId, shareKey),
    ]);
    const { role, permissions } = SpaceAccess.spaceAccess(standing, space, parents, validKey);
    if (!permissions.view) throw missing();
    if (space.deletedAt !== undefined && role !== 'admin') throw missing();
    return { space, standing, role, permissions };
  }

  /** A live collection the caller has a role on: 404 otherwise. */
  async collection(collectionId: string, caller: Caller): Promise<CollectionView> {
    const collection = await this.reads.collection<CollectionDoc>(COLLECTIONS).get(collectionId);
    if (!collection || collection.deletedAt !== undefined) throw DomainError.notFound(`no collection ${collectionId}`);
    const [standing, chain] = await Promise.all([this.standing(collection.organizationId, caller, []), this.chain(collectionId)]);
    const role = collectionRole(standing, chain);
    const permissions = collectionPermissions(role);
    if (!permissions.view) throw DomainError.notFound(`no collection ${collectionId}`);
    return { collection, standing, role, chain, permissions };
  }

  /**
   * A destination collection named in a body (`parent`): a live collection of that organization,
   * else 400 naming the field. Returns it with its ancestors, nearest first.
   */
  async destination(organizationId: string, parent: string, field = 'parent'): Promise<CollectionDoc[]> {
    const chain = await this.chain(parent);
    if (chain.length === 0 || chain[0].organizationId !== organizationId)
      throw DomainError.invalid(`${field} must be a collection of organization ${organizationId}; ${parent} is not`);
    return chain;
  }
}

@Injectable()
export class SpacePresenter {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /**
   * Built member by member, in the interface's order: on Node 20, a literal with conditional
   * spreads followed by more members (`...(x ? { y } : {})`) takes V8's slow path, and lists
   * present fifty spaces a page (1.6 µs a space that way).
   */
  /**
   * `seesMembers`: the caller may list the organization's members (a member with a role), so may
   * see the user ids the space's merge rules name; others see the rules without them.
   */
  space(space: SpaceDoc, permissions: SpacePermissions, counts: Readonly<SpaceFacts> = NO_FACTS, seesMembers = false): SpaceObject {
    const base = this.config.publicUrl;
    const listed = space.visibility === 'public' || space.visibility === 'unlisted';
    const object = { object: 'space', id: space._id, title: space.title } as SpaceObject;
    object.emoji = space.emoji ?? '';
    object.visibility = space.visibility;
    object.createdAt = space.createdAt;
    object.updatedAt = space.updatedAt;
    if (space.deletedAt !== undefined) object.deletedAt = space.deletedAt;
    object.editMode = space.editMode;
    const mergeRules = space.mergeRules ?? INHERITED_MERGE_RULES;
    object.mergeRules = seesMembers ? mergeRules : withoutNamedUsers(mergeRules);
    if (counts.revision !== undefined) object.revision = counts.revision;
    const urls: SpaceObject['urls'] = { location: `${base}/v1/spaces/${space._id}`, app: `${base}/s/${space._id}` };
    if (listed) urls.public = `${base}/public/spaces/${space._id}`;
    if (space.icon) urls.icon = space.icon;
    object.urls = urls;
    object.organization = space.organizationId;
    if (space.parent !== null) object.parent = space.parent;
    if (space.language) object.language = space.language;
    object.defaultLevel = space.defaultLevel;
    object.comments = counts.comments;
    object.changeRequests = counts.changeRequests;
    object.changeRequestsOpen = counts.changeRequestsOpen;
    object.changeRequestsDraft = counts.changeRequestsDraft;
    object.permissions = permissions;
    return object;
  }

  collection(collection: CollectionDoc, permissions: CollectionPermissions): CollectionObject {
    const base = this.config.publicUrl;
    return {
      object: 'collection',
      id: collection._id,
      title: collection.title,
      ...(collection.description !== null ? { description: collection.description } : {}),
      organization: collection.organizationId,
      ...(collection.parent !== null ? { parent: collection.parent } : {}),
      defaultLevel: collection.defaultLevel,
      urls: { location: `${base}/v1/collections/${collection._id}`, app: `${base}/o/${collection.organizationId}/c/${collection._id}` },
      permissions,
    };
  }

  shareLink(link: ShareLinkDoc): ShareLinkObject {
    const base = this.config.publicUrl;
    return {
      object: 'share-link',
      key: link._id,
      space: link.spaceId,
      createdAt: link.createdAt,
      urls: {
        location: `${base}/v1/spaces/${link.spaceId}/share-links/${link._id}`,
        space: `${base}/v1/spaces/${link.spaceId}?shareKey=${link._id}`,
      },
    };
  }
}
