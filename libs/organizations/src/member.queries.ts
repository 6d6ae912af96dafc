import { Inject, Injectable } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { DomainError } from '#platform/errors';
import { userOf, type Caller } from '#platform/http/auth';
import type { Versioned } from '#platform/http/etag';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import { organizationPermissions, type OrganizationRole } from '#platform/permissions';
import { READ_STORE, type ReadStore, type Filter, type Sort } from '#read-store/read-store.port';
import { normalizeEmail } from '#platform/email';
import {
  INVITATIONS,
  LINK_INVITES,
  MEMBERS,
  memberId,
  ORGANIZATIONS,
  type InvitationDoc,
  type LinkInviteDoc,
  type MemberDoc,
  type OrganizationDoc,
} from './organization.projections';
import { OrganizationMembership } from './organization.queries';
import { ORGANIZATION_SITES, type OrganizationSiteDoc } from './organization-sites.projection';
import {
  MEMBER_SPACES,
  MEMBER_TEAM_COUNTS,
  ORGANIZATION_USERS,
  type MemberCounts,
  type MemberSpacesSource,
  type OrganizationUsers,
  type PresentedUser,
} from './organizations.needs';
import { organizationDecider, organizationStream } from './organization.decider';
import { VisitorClaimsSigner } from './visitor-claims';
import { COMMAND_RUNNER, type CommandRunner } from '#runtime/command-runner';

/** The Member resource. */
export interface MemberObject {
  object: 'member';
  id: string;
  role: OrganizationRole;
  user: PresentedUser;
  disabled: boolean;
  joinedAt: string;
  /** Absent for a member never seen. */
  lastSeenAt?: string;
  sso: boolean;
  spaces: number;
  teams: number;
  /** The organization's live sites: every member sees them all. */
  sites: number;
}

/** Presents members (team memberships embed the Member object too, through the teams context's port). */
@Injectable()
export class MemberDirectory {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(ORGANIZATION_USERS) private readonly users: OrganizationUsers,
    @Inject(MEMBER_TEAM_COUNTS) private readonly teamCounts: MemberCounts,
    @Inject(MEMBER_SPACES) private readonly spaces: MemberSpacesSource,
  ) {}

  async present(organizationId: string, userIds: readonly string[]): Promise<Map<string, MemberObject>> {
    const docs = await this.reads
      .collection<MemberDoc>(MEMBERS)
      .find({ _id: { $in: userIds.map((id) => memberId(organizationId, id)) } }, { limit: 1000, count: false });
    return this.presentDocs(organizationId, docs.items);
  }

  async presentDocs(organizationId: string, docs: readonly MemberDoc[]): Promise<Map<string, MemberObject>> {
    const ids = docs.map((d) => d.userId);
    const [users, teams, spaces, sites] = await Promise.all([
      this.users.byIds(ids),
      this.teamCounts.teamCountsByUser(organizationId, ids),
      this.spaces.spaceCountsByUser(
        organizationId,
        docs.map((d) => ({ userId: d.userId, role: d.role })),
      ),
      docs.length > 0 ? this.reads.collection<OrganizationSiteDoc>(ORGANIZATION_SITES).count({ organizationId, deleted: false }) : 0,
    ]);
    const result = new Map<string, MemberObject>();
    for (const doc of docs) {
      const user = users.get(doc.userId);
      if (!user) continue;
      // Member by member (a conditional spread before more members takes V8's slow path on Node 20; fifty a page).
      const member = {
        object: 'member',
        id: doc.userId,
        role: doc.role,
        user: this.users.present(user),
        disabled: doc.disabled,
        joinedAt: doc.joinedAt,
      } as MemberObject;
      if (doc.lastSeenAt) member.lastSeenAt = doc.lastSeenAt;
      member.sso = doc.sso;
      member.spaces = spaces.get(doc.userId) ?? 0;
      member.teams = teams.get(doc.userId) ?? 0;
      member.sites = sites;
      result.set(doc.userId, member);
    }
    return result;
  }
}

/** Reading members needs `listMembers` (every role but guests); people outside get 404. */
async function requireListMembers(membership: OrganizationMembership, organizationId: string, caller: Caller): Promise<OrganizationRole> {
  const role = await membership.requireMember(organizationId, caller);
  if (!organizationPermissions(role).listMembers) throw DomainError.forbidden('guests may not list members');
  return role;
}

export interface MemberListOptions {
  page?: string;
  limit?: number;
  order: 'asc' | 'desc';
  role?: OrganizationRole | 'guest';
  search?: string;
  sort: 'joinedAt' | 'lastSeenAt' | 'name';
}

const SORT_FIELD = new Map<MemberListOptions['sort'], string>([
  ['joinedAt', 'joinedAt'],
  ['lastSeenAt', 'lastSeenAt'],
  ['name', 'nameLower'],
]);
const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A link invite (extension). */
export interface LinkInviteObject {
  object: 'link-invite';
  id: string;
  role: OrganizationRole;
  createdAt: string;
  urls: { location: string; join: string };
}

@Injectable()
export class LinkInvitePresenter {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  present(invite: LinkInviteDoc): LinkInviteObject {
    const base = `${this.config.publicUrl}/v1/orgs/${invite.organizationId}`;
    return {
      object: 'link-invite',
      id: invite._id,
      role: invite.role,
      createdAt: invite.createdAt,
      urls: { location: `${base}/link-invites/${invite._id}`, join: `${base}/invites/${invite._id}` },
    };
  }
}

// ---- invitations by e-mail --------------------------------------------------------------------

/** A pending invitation as its organization's admins see it. */
export interface PendingInviteObject {
  object: 'pending-invite';
  id: string;
  email: string;
  role: OrganizationRole;
  sso: boolean;
  invitedBy: string;
  invitedAt: string;
}

/** A pending invitation as the person invited sees it. */
export interface UserInviteObject {
  object: 'organization-invite';
  id: string;
  organization: { id: string; title: string };
  role: OrganizationRole;
  sso: boolean;
  invitedAt: string;
}

/**
 * Which organization an invitation of the caller's belongs to, so its answer goes to that
 * organization's stream; 404 when there is none for them (whether it is someone else's or does
 * not exist). The organization's decider checks the invitee again.
 */
@Injectable()
export class InvitationLocator {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async organizationOf(invitationId: string, caller: Caller): Promise<string> {
    const invitation = await this.reads.collection<InvitationDoc>(INVITATIONS).get(invitationId);
    if (!invitation || invitation.email !== normalizeEmail(userOf(caller).user.email))
      throw DomainError.notFound(`no invitation ${invitationId}`);
    return invitation.organizationId;
  }
}

/**
 * The revision of the organization's stream, the ETag of everything in it, read BEFORE the part
 * answered with it (a member, a link invite live in other documents): the tag is then never newer
 * than the body, so a write naming it can only be refused (412), never accepted on a body older
 * than the version it names.
 */
async function organizationRevision(reads: ReadStore, organizationId: string): Promise<number> {
  const organization = await reads.collection<OrganizationDoc>(ORGANIZATIONS).get(organizationId);
  if (!organization) throw DomainError.notFound(`no organization ${organizationId}`);
  return organization.revision;
}

/* The read side of members and invitations. */

/** `GET /v1/orgs/{organizationId}/members`: active members, filtered and sorted as asked. */
export class ListMembers extends Query<ListEnvelope<MemberObject>> {
  constructor(
    readonly organizationId: string,
    readonly caller: Caller,
    readonly options: MemberListOptions,
  ) {
    super();
  }
}

@QueryHandler(ListMembers)
export class ListMembersHandler implements IQueryHandler<ListMembers> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly membership: OrganizationMembership,
    private readonly directory: MemberDirectory,
  ) {}

  async execute({ organizationId, caller, options }: ListMembers): Promise<ListEnvelope<MemberObject>> {
    await requireListMembers(this.membership, organizationId, caller);
    const filter: Filter = { organizationId, disabled: false };
    if (options.role !== undefined) filter.role = options.role === 'guest' ? null : options.role;
    if (options.search) {
      const pattern = escapeRegex(options.search);
      filter.$or = [{ displayName: { $regex: pattern, $options: 'i' } }, { email: { $regex: pattern, $options: 'i' } }];
    }
    // Sorting by last seen lists only members who were ever seen.
    if (options.sort === 'lastSeenAt') filter.lastSeenAt = { $ne: null };
    const direction = options.order === 'asc' ? 1 : -1;
    const sort: Sort = { [SORT_FIELD.get(options.sort) ?? 'joinedAt']: direction };
    const page = await this.reads.collection<MemberDoc>(MEMBERS).find(filter, { sort, limit: options.limit, after: options.page });
    const presented = await this.directory.presentDocs(organizationId, page.items);
    const items = page.items.flatMap((doc) => presented.get(doc.userId) ?? []);
    return listEnvelope({ items, count: page.count, next: page.next });
  }
}

/** `GET /v1/orgs/{organizationId}/members/{userId}`: guests may read only themselves. Versioned by the organization's stream, where members live. */
export class GetMember extends Query<Versioned<MemberObject>> {
  constructor(
    readonly organizationId: string,
    readonly userId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetMember)
export class GetMemberHandler implements IQueryHandler<GetMember> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly membership: OrganizationMembership,
    private readonly directory: MemberDirectory,
  ) {}

  async execute({ organizationId, userId, caller }: GetMember): Promise<Versioned<MemberObject>> {
    const role = await this.membership.requireMember(organizationId, caller);
    const self = caller.kind === 'user' && caller.userId === userId;
    if (!self && !organizationPermissions(role).listMembers) throw DomainError.forbidden('guests may not list members');
    const revision = await organizationRevision(this.reads, organizationId);
    const member = (await this.directory.present(organizationId, [userId])).get(userId);
    if (!member) throw DomainError.notFound(`no member ${userId} in organization ${organizationId}`);
    return { object: member, streamRevision: revision };
  }
}

/** `GET /v1/orgs/{organizationId}/members/{userId}/spaces`: `{ permission, space }` for each space the member has a role on and the caller may see. */
export class ListMemberSpaces extends Query<ListEnvelope<unknown>> {
  constructor(
    readonly organizationId: string,
    readonly userId: string,
    readonly caller: Caller,
    readonly options: { page?: string; limit?: number; order?: 'asc' | 'desc' },
  ) {
    super();
  }
}

@QueryHandler(ListMemberSpaces)
export class ListMemberSpacesHandler implements IQueryHandler<ListMemberSpaces> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly membership: OrganizationMembership,
    @Inject(MEMBER_SPACES) private readonly memberSpaces: MemberSpacesSource,
  ) {}

  async execute({ organizationId, userId, caller, options }: ListMemberSpaces): Promise<ListEnvelope<unknown>> {
    const callerRole = await requireListMembers(this.membership, organizationId, caller);
    const member = await this.reads.collection<MemberDoc>(MEMBERS).get(memberId(organizationId, userId));
    if (!member || member.disabled) throw DomainError.notFound(`no member ${userId} in organization ${organizationId}`);
    return this.memberSpaces.list(
      organizationId,
      { userId, role: member.role },
      { userId: userOf(caller).userId, role: callerRole },
      options,
    );
  }
}

/** `GET /v1/orgs/{organizationId}/link-invites`: admins only, newest first. */
export class ListLinkInvites extends Query<ListEnvelope<LinkInviteObject>> {
  constructor(
    readonly organizationId: string,
    readonly caller: Caller,
    readonly paging: { page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListLinkInvites)
export class ListLinkInvitesHandler implements IQueryHandler<ListLinkInvites> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly membership: OrganizationMembership,
    private readonly linkInvitePresenter: LinkInvitePresenter,
  ) {}

  async execute({ organizationId, caller, paging }: ListLinkInvites): Promise<ListEnvelope<LinkInviteObject>> {
    await this.membership.requireAdmin(organizationId, caller, 'manage invites');
    const found = await this.reads
      .collection<LinkInviteDoc>(LINK_INVITES)
      .find({ organizationId }, { sort: { createdAt: -1 }, limit: paging.limit, after: paging.page });
    return listEnvelope({ items: found.items.map((i) => this.linkInvitePresenter.present(i)), count: found.count, next: found.next });
  }
}

/** `GET /v1/orgs/{organizationId}/link-invites/{inviteId}`: admins only. Versioned by the organization's stream, where link invites live. */
export class GetLinkInvite extends Query<Versioned<LinkInviteObject>> {
  constructor(
    readonly organizationId: string,
    readonly inviteId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetLinkInvite)
export class GetLinkInviteHandler implements IQueryHandler<GetLinkInvite> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly membership: OrganizationMembership,
    private readonly linkInvitePresenter: LinkInvitePresenter,
  ) {}

  async execute({ organizationId, inviteId, caller }: GetLinkInvite): Promise<Versioned<LinkInviteObject>> {
    await this.membership.requireAdmin(organizationId, caller, 'manage invites');
    const revision = await organizationRevision(this.reads, organizationId);
    const invite = await this.reads.collection<LinkInviteDoc>(LINK_INVITES).get(inviteId);
    if (!invite || invite.organizationId !== organizationId) throw DomainError.notFound(`no invite ${inviteId}`);
    return { object: this.linkInvitePresenter.present(invite), streamRevision: revision };
  }
}

/** `GET /v1/orgs/{organizationId}/pending-invites`: admins only, newest first. */
export class ListPendingInvites extends Query<ListEnvelope<PendingInviteObject>> {
  constructor(
    readonly organizationId: string,
    readonly caller: Caller,
    readonly paging: { page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListPendingInvites)
export class ListPendingInvitesHandler implements IQueryHandler<ListPendingInvites> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly membership: OrganizationMembership,
  ) {}

  async execute({ organizationId, caller, paging }: ListPendingInvites): Promise<ListEnvelope<PendingInviteObject>> {
    await this.membership.requireAdmin(organizationId, caller, 'manage invites');
    const found = await this.reads
      .collection<InvitationDoc>(INVITATIONS)
      .find({ organizationId }, { sort: { invitedAt: -1 }, limit: paging.limit, after: paging.page });
    const items = found.items.map((i): PendingInviteObject => ({
      object: 'pending-invite',
      id: i._id,
      email: i.email,
      role: i.role,
      sso: i.sso,
      invitedBy: i.invitedBy,
      invitedAt: i.invitedAt,
    }));
    return listEnvelope({ items, count: found.count, next: found.next });
  }
}

/** `GET /v1/user/invites`: the caller's pending invitations, matched by their e-mail (case-insensitively), newest first. */
export class ListUserInvites extends Query<ListEnvelope<UserInviteObject>> {
  constructor(
    readonly caller: Caller,
    readonly paging: { page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListUserInvites)
export class ListUserInvitesHandler implements IQueryHandler<ListUserInvites> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async execute({ caller, paging }: ListUserInvites): Promise<ListEnvelope<UserInviteObject>> {
    const email = normalizeEmail(userOf(caller).user.email);
    const found = await this.reads
      .collection<InvitationDoc>(INVITATIONS)
      .find({ email }, { sort: { invitedAt: -1 }, limit: paging.limit, after: paging.page });
    const organizations = await this.reads
      .collection<OrganizationDoc>(ORGANIZATIONS)
      .find({ _id: { $in: [...new Set(found.items.map((i) => i.organizationId))] } }, { limit: 1000, count: false });
    const titles = new Map(organizations.items.map((o) => [o._id, o.title]));
    const items = found.items.flatMap((i): UserInviteObject[] => {
      const title = titles.get(i.organizationId);
      if (title === undefined) return [];
      return [
        {
          object: 'organization-invite',
          id: i._id,
          organization: { id: i.organizationId, title },
          role: i.role,
          sso: i.sso,
          invitedAt: i.invitedAt,
        },
      ];
    });
    return listEnvelope({ items, count: found.count, next: found.next });
  }
}

/**
 * The `serviceVisitorClaims` `POST /v1/orgs/{organizationId}/ping` answers, signed for the caller.
 * The route asks for them after `RecordSeen` accepted the caller as a member.
 */
export class SignVisitorClaims extends Query<{ serviceVisitorClaims: string }> {
  constructor(
    readonly organizationId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(SignVisitorClaims)
export class SignVisitorClaimsHandler implements IQueryHandler<SignVisitorClaims> {
  constructor(private readonly claims: VisitorClaimsSigner) {}

  async execute({ organizationId, caller }: SignVisitorClaims): Promise<{ serviceVisitorClaims: string }> {
    const user = userOf(caller);
    return { serviceVisitorClaims: await this.claims.sign(user.userId, organizationId, user.user.email) };
  }
}

/**
 * For the teams context: whether the user is a member, from the organization's stream (not the read
 * model), so a replayed removal sees whether the user has rejoined since.
 */
export class IsOrganizationMember extends Query<boolean> {
  constructor(
    readonly organizationId: string,
    readonly userId: string,
  ) {
    super();
  }
}

@QueryHandler(IsOrganizationMember)
export class IsOrganizationMemberHandler implements IQueryHandler<IsOrganizationMember> {
  constructor(@Inject(COMMAND_RUNNER) private readonly commands: CommandRunner) {}

  async execute({ organizationId, userId }: IsOrganizationMember): Promise<boolean> {
    const { state } = await this.commands.load(organizationStream(organizationId), organizationDecider);
    return state.members.has(userId);
  }
}

/**
 * For the sso context: those of `userIds` who are members, with whether they consented to SSO. From
 * the organization's stream, not the read model: a login decides on the current membership on every replica.
 */
export class FindSsoMembers extends Query<ReadonlyMap<string, { ssoConsent: boolean }>> {
  constructor(
    readonly organizationId: string,
    readonly userIds: readonly string[],
  ) {
    super();
  }
}

@QueryHandler(FindSsoMembers)
export class FindSsoMembersHandler implements IQueryHandler<FindSsoMembers> {
  constructor(@Inject(COMMAND_RUNNER) private readonly commands: CommandRunner) {}

  async execute({ organizationId, userIds }: FindSsoMembers): Promise<ReadonlyMap<string, { ssoConsent: boolean }>> {
    const { state } = await this.commands.load(organizationStream(organizationId), organizationDecider);
    const found = new Map<string, { ssoConsent: boolean }>();
    for (const userId of userIds) {
      const member = state.members.get(userId);
      if (member) found.set(userId, { ssoConsent: member.ssoConsent === true });
    }
    return found;
  }
}

/** For other contexts' ports (teams, comments): the Member objects of those of `userIds` who are members, in one read of members. */
export class PresentMembers extends Query<Map<string, MemberObject>> {
  constructor(
    readonly organizationId: string,
    readonly userIds: readonly string[],
  ) {
    super();
  }
}

@QueryHandler(PresentMembers)
export class PresentMembersHandler implements IQueryHandler<PresentMembers> {
  constructor(private readonly directory: MemberDirectory) {}

  execute({ organizationId, userIds }: PresentMembers): Promise<Map<string, MemberObject>> {
    return this.directory.present(organizationId, userIds);
  }
}

export const memberQueryHandlers = [
  ListMembersHandler,
  GetMemberHandler,
  ListMemberSpacesHandler,
  ListLinkInvitesHandler,
  GetLinkInviteHandler,
  ListPendingInvitesHandler,
  ListUserInvitesHandler,
  SignVisitorClaimsHandler,
  IsOrganizationMemberHandler,
  FindSsoMembersHandler,
  PresentMembersHandler,
];
