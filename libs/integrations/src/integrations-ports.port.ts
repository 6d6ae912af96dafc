import type { Caller } from '../../platform/src/http/auth';

/** What integrations need of organizations: roles (who publishes, who installs), memberships (private integrations) and the owner's Organization object. */
export interface IntegrationOrganizations {
  roleOf(organizationId: string, userId: string): Promise<{ member: boolean; role: string | null } | null>;
  memberOrganizations(userId: string): Promise<string[]>;
  present(organizationId: string): Promise<{ object: 'organization'; id: string } | null>;
}

export const INTEGRATION_ORGANIZATIONS = Symbol('INTEGRATION_ORGANIZATIONS');

/** What integrations need of spaces: a space's organization (installing on it) and its Space object (`extended` lists). */
export interface IntegrationSpaces {
  spaceById(spaceId: string): Promise<{ id: string; organizationId: string; deleted: boolean } | null>;
  present(spaceId: string, caller: Caller): Promise<{ object: 'space'; id: string } | null>;
}

export const INTEGRATION_SPACES = Symbol('INTEGRATION_SPACES');

/** What integrations need of sites: a site's organization (installing on it) and its Site object (`extended` lists). */
export interface IntegrationSites {
  siteById(siteId: string): Promise<{ id: string; organizationId: string; deleted: boolean } | null>;
  present(siteId: string, caller: Caller): Promise<{ object: 'site'; id: string } | null>;
}

export const INTEGRATION_SITES = Symbol('INTEGRATION_SITES');
