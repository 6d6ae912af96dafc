import type { Caller } from '../../platform/src/http/auth';
import type { OrganizationRole } from '../../platform/src/permissions';

/** What sites need of organizations: the caller's role (who reads, creates and administers sites). */
export interface SiteOrganizations {
  roleOf(organizationId: string, userId: string): Promise<{ member: boolean; role: OrganizationRole } | null>;
}

export const SITE_ORGANIZATIONS = Symbol('SITE_ORGANIZATIONS');

/** What sites need of spaces: a space's organization and title (adding it), its Space object (embedded in site spaces), and a new space. */
export interface SiteSpaces {
  spaceById(spaceId: string): Promise<{ id: string; organizationId: string; title: string; deleted: boolean } | null>;
  /**
   * The Space object a site of `organizationId` shows, for one of its readers (null: a reader
   * outside the organization), with that reader's own permissions on the space; null when it is
   * not a live space of that organization.
   */
  presentOnSite(spaceId: string, organizationId: string, caller: Caller | null): Promise<{ object: 'space'; id: string; title: string } | null>;
  /** Creates a space for a new site (`spaces: 'new'`), as the caller; its id. */
  createSpace(organizationId: string, title: string, caller: Caller): Promise<string>;
}

export const SITE_SPACES = Symbol('SITE_SPACES');

/** What sites need of single sign-on's verified domains: the domains an organization proved it controls (a site's custom hostname must be one of them or under one). */
export interface SiteDomains {
  verifiedDomains(organizationId: string): Promise<readonly string[]>;
}

export const SITE_DOMAINS = Symbol('SITE_DOMAINS');
