import { Inject, Injectable } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { DomainError } from '#platform/errors';
import { userOf, type Caller } from '#platform/http/auth';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import { organizationPermissions, type OrganizationPermissions, type OrganizationRole } from '#platform/permissions';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { NO_MERGE_RULES, withApprovalRule, withoutNamedUsers, type MergeRules } from '#platform/merge-rules';
import type { DefaultContent } from './organization.events';
import { MEMBERS, memberId, ORGANIZATIONS, type MemberDoc, type OrganizationDoc } from './organization.projections';
import { byIds } from '#platform/by-ids';
import { ORGANIZATION_USERS, type OrganizationUsers, type PresentedUser } from './organizations.needs';
import { organizationDecider, organizationStream } from './organization.decider';
import { COMMAND_RUNNER, type CommandRunner } from '#runtime/command-runner';

/** The Organization resource. */
export interface OrganizationObject {
  object: 'organization';
  id: string;
  title: string;
  createdAt: string;
  emailDomains: string[];
  hostname?: string;
  type: 'business';
  defaultRole: OrganizationRole;
  /** Absent when there is none (the platform's member is an object, never null). */
  defaultContent?: NonNullable<DefaultContent>;
  sso: boolean;
  ai: boolean;
  inviteLinks: boolean;
  changeRequestsRequireApproval: boolean;
  mergeRules: MergeRules;
  plan: 'free';
  urls: { location: string; app: string; logo?: string };
  /** The service has no billing: no trial can be started (`notapplicable`), none was used. */
  trial: { status: 'notapplicable'; count: 0 };
  internal_isOnNewTrial: true;
  permissions: OrganizationPermissions;
}

/** The organization's merge rules; documents projected before they existed hold only the approval setting. */
export function mergeRulesOfOrganization(organization: Pick<OrganizationDoc, 'mergeRules' | 'changeRequestsRequireApproval'>): MergeRules {
  return organization.mergeRules ?? withApprovalRule(NO_MERGE_RULES, organization.changeRequestsRequireApproval === true);
}

/** Membership facts: the organizations context's own checks, and what the queries its adapters dispatch answer other contexts' ports with (organizations.provides.ts). */
@Injectable()
export class OrganizationMembership {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  /** null: no such organization. `member: false`: it exists but the user does not belong to it. */
  async roleOf(organizationId: string, userId: string): Promise<{ member: boolean; role: OrganizationRole } | null> {
    const [organization, member] = await Promise.all([
      this.reads.collection(ORGANIZATIONS).get(organizationId),
      this.reads.collection<MemberDoc>(MEMBERS).get(memberId(organizationId, userId)),
    ]);
    if (!organization) return null;
    return member && !member.disabled ? { member: true, role: member.role } : { member: false, role: null };
  }

  /** The member's role, or 404 for callers outside the organization (it must not leak that it exists). */
  async requireMember(organizationId: string, caller: Caller): Promise<OrganizationRole> {
    const access = caller.kind === 'user' ? await this.roleOf(organizationId, caller.userId) : null;
    if (!access?.member) throw DomainError.notFound(`no organization ${organizationId}`);
    return access.role;
  }

  /**
   * For admin-only reads and writes: 404 for callers outside the organization (it must not leak
   * that it exists), 403 for members below admin. `may` completes "only admins … may …".
   */
  async requireAdmin(organizationId: string, caller: Caller, may: string): Promise<void> {
    const role = await this.requireMember(organizationId, caller);
    if (role !== 'admin') throw DomainError.forbidden(`only admins of organization ${organizationId} may ${may}`);
  }

  /**
   * Those of `userIds` who are members of the organization (enabled memberships, guests included), in
   * one read: the rule for naming people inside an organization (requested reviewers, mentions), so
   * that nobody learns the name or address of a user they share no organization with.
   */
  async membersAmong(organizationId: string, userIds: readonly string[]): Promise<Set<string>> {
    const asked = new Set(userIds);
    const members = await byIds(
      this.reads.collection<MemberDoc>(MEMBERS),
      [...asked].map((userId) => memberId(organizationId, userId)),
    );
    return new Set(
      members
        .filter((member) => member.organizationId === organizationId && asked.has(member.userId) && !member.disabled)
        .map((member) => member.userId),
    );
  }

  /** The organizations the user belongs to (enabled memberships), at most 1,000. */
  async organizationsOf(userId: string): Promise<string[]> {
    const mine = await this.reads.collection<MemberDoc>(MEMBERS).find({ userId }, { limit: 1000, count: false });
    return mine.items.filter((member) => !member.disabled).map((member) => member.organizationId);
  }

  /** The organization's document, or null. */
  organization(organizationId: string): Promise<OrganizationDoc | null> {
    return this.reads.collection<OrganizationDoc>(ORGANIZATIONS).get(organizationId);
  }

  async shareAnOrganization(userId: string, otherUserId: string): Promise<boolean> {
    const mine = await this.reads.collection<MemberDoc>(MEMBERS).find({ userId }, { limit: 1000, count: false });
    const ids = mine.items.map((m) => memberId(m.organizationId, otherUserId));
    return ids.length > 0 && (await this.reads.collection(MEMBERS).count({ _id: { $in: ids }, disabled: false })) > 0;
  }
}

@Injectable()
export class OrganizationPresenter {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /**
   * `member` false: as people outside it see it (they cannot open it in the application). Those who
   * may not list its members (guests, people outside) see its merge rules without the user ids they name.
   */
  present(organization: OrganizationDoc, role: OrganizationRole, member = true): OrganizationObject {
    const base = this.config.publicUrl;
    // Built member by member, in the same order: on Node 20 a literal with conditional spreads followed by members takes V8's slow path.
    const object = {
      object: 'organization',
      id: organization._id,
      title: organization.title,
      createdAt: organization.createdAt,
      emailDomains: organization.emailDomains,
    } as OrganizationObject;
    if (organization.hostname) object.hostname = organization.hostname;
    object.type = 'business';
    object.defaultRole = organization.defaultRole;
    if (organization.defaultContent) object.defaultContent = organization.defaultContent;
    object.sso = organization.sso;
    object.ai = organization.ai;
    object.inviteLinks = organization.inviteLinks;
    object.changeRequestsRequireApproval = organization.changeRequestsRequireApproval ?? false;
    const mergeRules = mergeRulesOfOrganization(organization);
    object.mergeRules = member && organizationPermissions(role).listMembers ? mergeRules : withoutNamedUsers(mergeRules);
    object.plan = 'free';
    const urls: OrganizationObject['urls'] = { location: `${base}/v1/orgs/${organization._id}`, app: `${base}/o/${organization._id}` };
    if (organization.logo) urls.logo = organization.logo;
    object.urls = urls;
    object.trial = { status: 'notapplicable', count: 0 };
    object.internal_isOnNewTrial = true;
    const permissions = organizationPermissions(role);
    if (!member) permissions.access = false;
    object.permissions = permissions;
    return object;
  }
}

/* The read side of organizations, with the caller's permissions. */

/** `GET /v1/orgs/{organizationId}`: members only (404 for everyone else). Answers the organization and its stream revision (the ETag). */
export class GetOrganization extends Query<{ organization: OrganizationObject; revision: number }> {
  constructor(
    readonly organizationId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetOrganization)
export class GetOrganizationHandler implements IQueryHandler<GetOrganization> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly presenter: OrganizationPresenter,
  ) {}

  async execute({ organizationId, caller }: GetOrganization): Promise<{ organization: OrganizationObject; revision: number }> {
    const [organization, member] = await Promise.all([
      this.reads.collection<OrganizationDoc>(ORGANIZATIONS).get(organizationId),
      caller.kind === 'user' ? this.reads.collection<MemberDoc>(MEMBERS).get(memberId(organizationId, caller.userId)) : null,
    ]);
    if (!organization || !member || member.disabled) throw DomainError.notFound(`no organization ${organizationId}`);
    return { organization: this.presenter.present(organization, member.role), revision: organization.revision };
  }
}

/** `GET /v1/orgs`: the caller's organizations, most recently joined first; the cursor runs over their memberships. */
export class ListOrganizations extends Query<ListEnvelope<OrganizationObject>> {
  constructor(
    readonly caller: Caller,
    readonly paging: { page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListOrganizations)
export class ListOrganizationsHandler implements IQueryHandler<ListOrganizations> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly presenter: OrganizationPresenter,
  ) {}

  async execute({ caller, paging }: ListOrganizations): Promise<ListEnvelope<OrganizationObject>> {
    const userId = userOf(caller).userId;
    const memberships = await this.reads
      .collection<MemberDoc>(MEMBERS)
      .find({ userId, disabled: false }, { sort: { joinedAt: -1 }, limit: paging.limit, after: paging.page });
    const organizations = await this.reads
      .collection<OrganizationDoc>(ORGANIZATIONS)
      .find({ _id: { $in: memberships.items.map((m) => m.organizationId) } }, { limit: 1000, count: false });
    const byId = new Map(organizations.items.map((o) => [o._id, o]));
    const items = memberships.items.flatMap((m) => {
      const organization = byId.get(m.organizationId);
      return organization ? [this.presenter.present(organization, m.role)] : [];
    });
    return listEnvelope({ items, count: memberships.count, next: memberships.next });
  }
}

/**
 * `GET /v1/email-domains/{emailDomain}/orgs`: organizations that list an e-mail domain. A caller
 * sees those they belong to, and all of them when the domain is their own e-mail's (so people can
 * find their company's organization); others get an empty list, which reveals nothing.
 */
export class ListOrganizationsByEmailDomain extends Query<{ organizations: OrganizationObject[] }> {
  constructor(
    readonly emailDomain: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(ListOrganizationsByEmailDomain)
export class ListOrganizationsByEmailDomainHandler implements IQueryHandler<ListOrganizationsByEmailDomain> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly presenter: OrganizationPresenter,
  ) {}

  async execute({ emailDomain, caller }: ListOrganizationsByEmailDomain): Promise<{ organizations: OrganizationObject[] }> {
    if (caller.kind !== 'user') return { organizations: [] };
    const domain = emailDomain.toLowerCase();
    const ownDomain = caller.user.email.split('@')[1]?.toLowerCase() === domain;
    const found = await this.reads
      .collection<OrganizationDoc>(ORGANIZATIONS)
      .find({ emailDomains: domain }, { limit: 1000, sort: { createdAt: 1 } });
    const roles = await this.reads
      .collection<MemberDoc>(MEMBERS)
      .find({ _id: { $in: found.items.map((o) => memberId(o._id, caller.userId)) } }, { limit: 1000, count: false });
    const roleByOrganization = new Map(roles.items.map((m) => [m.organizationId, m.role]));
    const visible = found.items.filter((o) => ownDomain || roleByOrganization.has(o._id));
    return {
      organizations: visible.map((o) => this.presenter.present(o, roleByOrganization.get(o._id) ?? null, roleByOrganization.has(o._id))),
    };
  }
}

/** `GET /v1/users/{userId}`: yourself, or someone you share an organization with; 404 otherwise. */
export class GetUserProfile extends Query<PresentedUser> {
  constructor(
    readonly userId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetUserProfile)
export class GetUserProfileHandler implements IQueryHandler<GetUserProfile> {
  constructor(
    @Inject(ORGANIZATION_USERS) private readonly users: OrganizationUsers,
    private readonly membership: OrganizationMembership,
  ) {}

  async execute({ userId, caller }: GetUserProfile): Promise<PresentedUser> {
    const visible =
      caller.kind === 'user' && (caller.userId === userId || (await this.membership.shareAnOrganization(caller.userId, userId)));
    const user = visible ? await this.users.byId(userId) : null;
    if (!user) throw DomainError.notFound(`no user ${userId}`);
    return this.users.present(user);
  }
}

/** For change requests: whether the organization's merges need an approval. From the organization's stream, so a merge right after the setting changed obeys it. */
export class IsApprovalRequired extends Query<boolean> {
  constructor(readonly organizationId: string) {
    super();
  }
}

@QueryHandler(IsApprovalRequired)
export class IsApprovalRequiredHandler implements IQueryHandler<IsApprovalRequired> {
  constructor(@Inject(COMMAND_RUNNER) private readonly commands: CommandRunner) {}

  async execute({ organizationId }: IsApprovalRequired): Promise<boolean> {
    const { state } = await this.commands.load(organizationStream(organizationId), organizationDecider);
    return state.fields.changeRequestsRequireApproval === true;
  }
}

/* For other contexts' ports: the adapters in organizations.provides.ts dispatch these (one call each, no read added). */

/** The user's access to the organization: null when there is no such organization, `member: false` when the user does not belong to it. */
export class GetOrganizationRole extends Query<{ member: boolean; role: OrganizationRole } | null> {
  constructor(
    readonly organizationId: string,
    readonly userId: string,
  ) {
    super();
  }
}

@QueryHandler(GetOrganizationRole)
export class GetOrganizationRoleHandler implements IQueryHandler<GetOrganizationRole> {
  constructor(private readonly membership: OrganizationMembership) {}

  execute({ organizationId, userId }: GetOrganizationRole): Promise<{ member: boolean; role: OrganizationRole } | null> {
    return this.membership.roleOf(organizationId, userId);
  }
}

/** The caller's role in the organization, or 404 for callers outside it (it must not leak that it exists). */
export class RequireOrganizationMember extends Query<OrganizationRole> {
  constructor(
    readonly organizationId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(RequireOrganizationMember)
export class RequireOrganizationMemberHandler implements IQueryHandler<RequireOrganizationMember> {
  constructor(private readonly membership: OrganizationMembership) {}

  execute({ organizationId, caller }: RequireOrganizationMember): Promise<OrganizationRole> {
    return this.membership.requireMember(organizationId, caller);
  }
}

/** Admins pass; 404 for callers outside the organization, 403 for members below admin. `may` completes "only admins … may …". */
export class RequireOrganizationAdmin extends Query<void> {
  constructor(
    readonly organizationId: string,
    readonly caller: Caller,
    readonly may: string,
  ) {
    super();
  }
}

@QueryHandler(RequireOrganizationAdmin)
export class RequireOrganizationAdminHandler implements IQueryHandler<RequireOrganizationAdmin> {
  constructor(private readonly membership: OrganizationMembership) {}

  execute({ organizationId, caller, may }: RequireOrganizationAdmin): Promise<void> {
    return this.membership.requireAdmin(organizationId, caller, may);
  }
}

/** Those of `userIds` who are enabled members of the organization (guests included), in one read: who may be named as a reviewer or mentioned. */
export class FindMembersAmong extends Query<Set<string>> {
  constructor(
    readonly organizationId: string,
    readonly userIds: readonly string[],
  ) {
    super();
  }
}

@QueryHandler(FindMembersAmong)
export class FindMembersAmongHandler implements IQueryHandler<FindMembersAmong> {
  constructor(private readonly membership: OrganizationMembership) {}

  execute({ organizationId, userIds }: FindMembersAmong): Promise<Set<string>> {
    return this.membership.membersAmong(organizationId, userIds);
  }
}

/** The organizations the user belongs to (enabled memberships), at most 1,000. */
export class ListUserOrganizationIds extends Query<string[]> {
  constructor(readonly userId: string) {
    super();
  }
}

@QueryHandler(ListUserOrganizationIds)
export class ListUserOrganizationIdsHandler implements IQueryHandler<ListUserOrganizationIds> {
  constructor(private readonly membership: OrganizationMembership) {}

  execute({ userId }: ListUserOrganizationIds): Promise<string[]> {
    return this.membership.organizationsOf(userId);
  }
}

/**
 * The Organization object as someone with `role` sees it (`member` false: as people outside it see
 * it), or null when there is no such organization. For integrations, whose reads know the caller's role.
 */
export class PresentOrganization extends Query<OrganizationObject | null> {
  constructor(
    readonly organizationId: string,
    readonly role: OrganizationRole,
    readonly member: boolean,
  ) {
    super();
  }
}

@QueryHandler(PresentOrganization)
export class PresentOrganizationHandler implements IQueryHandler<PresentOrganization> {
  constructor(
    private readonly membership: OrganizationMembership,
    private readonly presenter: OrganizationPresenter,
  ) {}

  async execute({ organizationId, role, member }: PresentOrganization): Promise<OrganizationObject | null> {
    const organization = await this.membership.organization(organizationId);
    return organization ? this.presenter.present(organization, role, member) : null;
  }
}

export const organizationQueryHandlers = [
  GetOrganizationHandler,
  ListOrganizationsHandler,
  ListOrganizationsByEmailDomainHandler,
  GetUserProfileHandler,
  IsApprovalRequiredHandler,
  GetOrganizationRoleHandler,
  RequireOrganizationMemberHandler,
  RequireOrganizationAdminHandler,
  FindMembersAmongHandler,
  ListUserOrganizationIdsHandler,
  PresentOrganizationHandler,
];
