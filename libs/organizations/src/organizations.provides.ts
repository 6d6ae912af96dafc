/**
 * Everything the organizations context provides to others: its implementations of ports other
 * contexts declare (teams, spaces, change requests, comments, integrations, sites, translations,
 * OpenAPI specs, audit, sso), each matched structurally so that the consumer does not import this
 * context; the composition root binds them. Each method dispatches one of the context's queries or
 * commands, so an adapter depends on no handler and no helper.
 */
import { Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { Caller } from '#platform/http/auth';
import type { OrganizationRole } from '#platform/permissions';
import { JoinBySso } from './member.commands';
import { FindSsoMembers, IsOrganizationMember, PresentMembers, type MemberObject } from './member.queries';
import {
  FindMembersAmong,
  GetOrganizationRole,
  IsApprovalRequired,
  ListUserOrganizationIds,
  PresentOrganization,
  RequireOrganizationAdmin,
  RequireOrganizationMember,
  type OrganizationObject,
} from './organization.queries';

/** What organizations offer the teams context (its TEAM_ORGANIZATIONS port). */
@Injectable()
export class OrganizationsForTeams {
  constructor(private readonly queryBus: QueryBus) {}

  /** From the organization's stream: a replayed removal must see whether the user has rejoined since. */
  isMember(organizationId: string, userId: string): Promise<boolean> {
    return this.queryBus.execute(new IsOrganizationMember(organizationId, userId));
  }

  roleOf(organizationId: string, userId: string): Promise<{ member: boolean; role: OrganizationRole } | null> {
    return this.queryBus.execute(new GetOrganizationRole(organizationId, userId));
  }

  requireMember(organizationId: string, caller: Caller): Promise<OrganizationRole> {
    return this.queryBus.execute(new RequireOrganizationMember(organizationId, caller));
  }

  presentMembers(organizationId: string, userIds: readonly string[]): Promise<ReadonlyMap<string, MemberObject>> {
    return this.queryBus.execute(new PresentMembers(organizationId, userIds));
  }
}

/** What organizations offer the spaces context (its SPACE_ORGANIZATIONS port). */
@Injectable()
export class OrganizationsForSpaces {
  constructor(private readonly queryBus: QueryBus) {}

  roleOf(organizationId: string, userId: string): Promise<{ member: boolean; role: OrganizationRole } | null> {
    return this.queryBus.execute(new GetOrganizationRole(organizationId, userId));
  }
}

/** What organizations offer change requests (their CHANGE_REQUEST_ORGANIZATIONS port): the organization's merge rule, and who may be named as a reviewer. */
@Injectable()
export class OrganizationsForChangeRequests {
  constructor(private readonly queryBus: QueryBus) {}

  membersAmong(organizationId: string, userIds: readonly string[]): Promise<ReadonlySet<string>> {
    return this.queryBus.execute(new FindMembersAmong(organizationId, userIds));
  }

  /** From the organization's stream, so a merge right after the setting changed obeys it. */
  requiresApproval(organizationId: string): Promise<boolean> {
    return this.queryBus.execute(new IsApprovalRequired(organizationId));
  }
}

/** What organizations offer comments (their COMMENT_MEMBERS port): Member objects of the people who commented, and who may be mentioned. */
@Injectable()
export class OrganizationsForComments {
  constructor(private readonly queryBus: QueryBus) {}

  membersAmong(organizationId: string, userIds: readonly string[]): Promise<ReadonlySet<string>> {
    return this.queryBus.execute(new FindMembersAmong(organizationId, userIds));
  }

  presentMembers(organizationId: string, userIds: readonly string[]): Promise<ReadonlyMap<string, MemberObject>> {
    return this.queryBus.execute(new PresentMembers(organizationId, userIds));
  }
}

/** What organizations offer integrations (their INTEGRATION_ORGANIZATIONS port): roles, memberships, and the owner's Organization object as outsiders see it. */
@Injectable()
export class OrganizationsForIntegrations {
  constructor(private readonly queryBus: QueryBus) {}

  roleOf(organizationId: string, userId: string): Promise<{ member: boolean; role: OrganizationRole } | null> {
    return this.queryBus.execute(new GetOrganizationRole(organizationId, userId));
  }

  memberOrganizations(userId: string): Promise<string[]> {
    return this.queryBus.execute(new ListUserOrganizationIds(userId));
  }

  /** The owner of an integration as the caller sees it: `role` and `member` are the caller's in it (the integration's reads know them). */
  present(organizationId: string, role: OrganizationRole = null, member = false): Promise<OrganizationObject | null> {
    return this.queryBus.execute(new PresentOrganization(organizationId, role, member));
  }
}

/** What organizations offer sites (their SITE_ORGANIZATIONS port): the caller's role. */
@Injectable()
export class OrganizationsForSites extends OrganizationsForSpaces {}

/** What organizations offer translations (their TRANSLATION_ORGANIZATIONS port): the caller's role. */
@Injectable()
export class OrganizationsForTranslations extends OrganizationsForSpaces {}

/** What organizations offer OpenAPI specs (their OPENAPI_ORGANIZATIONS port): the caller's role. */
@Injectable()
export class OrganizationsForOpenapi extends OrganizationsForSpaces {}

/** What organizations offer the audit context (its ORGANIZATION_ACCESS port). */
@Injectable()
export class OrganizationsForAudit {
  constructor(private readonly queryBus: QueryBus) {}

  roleOf(organizationId: string, userId: string): Promise<{ member: boolean; role: OrganizationRole } | null> {
    return this.queryBus.execute(new GetOrganizationRole(organizationId, userId));
  }
}

/** What organizations offer single sign-on (the sso context's SSO_ORGANIZATIONS port). */
@Injectable()
export class OrganizationsForSso {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  roleOf(organizationId: string, userId: string): Promise<{ member: boolean; role: OrganizationRole } | null> {
    return this.queryBus.execute(new GetOrganizationRole(organizationId, userId));
  }

  requireAdmin(organizationId: string, caller: Caller, may: string): Promise<void> {
    return this.queryBus.execute(new RequireOrganizationAdmin(organizationId, caller, may));
  }

  /** From the organization's stream, not the read model: a login decides on the current membership on every replica. */
  membersAmong(organizationId: string, userIds: readonly string[]): Promise<ReadonlyMap<string, { ssoConsent: boolean }>> {
    return this.queryBus.execute(new FindSsoMembers(organizationId, userIds));
  }

  joinBySso(organizationId: string, userId: string, role: OrganizationRole, caller: Caller): Promise<void> {
    return this.commandBus.execute(new JoinBySso(organizationId, userId, role, caller));
  }
}
