/*
 * What the integrations context needs of other contexts: every port it consumes (the interfaces, the
 * types they speak in and their `Symbol` tokens), each bound at the composition root to an adapter
 * the provider lists in its manifest's `provides`. The types are as narrow as integrations need
 * them, so the context imports nothing of its providers.
 */
import type { Caller } from '#platform/http/auth';

/* Of organizations (INTEGRATION_ORGANIZATIONS, bound to OrganizationsForIntegrations). */

/**
 * What integrations need of organizations: roles (who publishes, who installs), memberships
 * (private integrations) and the owner's Organization object as the caller sees it: `role` and
 * `member` are the caller's in it (null and false for someone outside it).
 */
export interface IntegrationOrganizations {
  roleOf(organizationId: string, userId: string): Promise<{ member: boolean; role: string | null } | null>;
  memberOrganizations(userId: string): Promise<string[]>;
  present(organizationId: string, role: string | null, member: boolean): Promise<{ object: 'organization'; id: string } | null>;
}

export const INTEGRATION_ORGANIZATIONS = Symbol('INTEGRATION_ORGANIZATIONS');

/* Of spaces (INTEGRATION_SPACES, bound to SpacesForIntegrations). */

/** What integrations need of spaces: a space's organization (installing on it) and its Space object (`extended` lists). */
export interface IntegrationSpaces {
  spaceById(spaceId: string): Promise<{ id: string; organizationId: string; deleted: boolean } | null>;
  present(spaceId: string, caller: Caller): Promise<{ object: 'space'; id: string } | null>;
}

export const INTEGRATION_SPACES = Symbol('INTEGRATION_SPACES');

/* Of sites (INTEGRATION_SITES, bound to SitesForIntegrations). */

/** What integrations need of sites: a site's organization (installing on it) and its Site object (`extended` lists). */
export interface IntegrationSites {
  siteById(siteId: string): Promise<{ id: string; organizationId: string; deleted: boolean } | null>;
  present(siteId: string, caller: Caller): Promise<{ object: 'site'; id: string } | null>;
}

export const INTEGRATION_SITES = Symbol('INTEGRATION_SITES');

/* Of identity (INTEGRATION_USERS, bound to UsersForIntegrations). */

/** What integrations need of identity: the users events name (`space_content_updated.updatedBy`), looked up in one batch and presented. */
export interface IntegrationUsers {
  byIds(userIds: readonly string[]): Promise<ReadonlyMap<string, { _id: string }>>;
  present(user: { _id: string }): { id: string; displayName: string; photoURL?: string; urls: { location: string } };
}

export const INTEGRATION_USERS = Symbol('INTEGRATION_USERS');
