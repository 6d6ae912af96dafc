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
