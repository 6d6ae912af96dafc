import { ORGANIZATION_ROLES } from '#platform/permissions';

/**
 * Docs sites. One stream per site, `site-<siteId>`: the site's settings and its whole structure
 * (sections, section groups, site spaces and their order), so that rules over the structure
 * ("exactly one default section, one default site space per scope") are decided against one
 * consistent state.
 */
export const SITE_VISIBILITIES = ['public', 'unlisted', 'share-link', 'visitor-auth'] as const;
export type SiteVisibility = (typeof SITE_VISIBILITIES)[number];
/** The `spaces` value of a new site that asks for a new space rather than listing existing ones. */
export const NEW_SPACE = 'new';
/** The platform's site types. The service offers every feature on every type, so the type is kept and shown, never enforced. */
export const SITE_TYPES = ['basic', 'premium', 'ultimate', 'sponsored', 'legacy-basic', 'legacy-premium'] as const;
export type SiteType = (typeof SITE_TYPES)[number];
/** A site's default role for the organization's members: a role, null (no default role), or `inherit` (their organization role). */
export const SITE_DEFAULT_LEVELS = ['inherit', ...ORGANIZATION_ROLES] as const;
export type SiteDefaultLevel = (typeof SITE_DEFAULT_LEVELS)[number] | null;

/** What PATCH /sites/{siteId} may change; absent members are unchanged. */
export interface SiteChanges {
  title?: string;
  visibility?: SiteVisibility;
  basename?: string | null;
  adaptiveContent?: { enabled: boolean };
  agentsContext?: 'excluded' | 'included';
  proxy?: string | null;
  /** A custom hostname, unique across the service (claimed on its own stream first). */
  hostname?: string | null;
  icon?: SiteIcon | null;
  defaultLevel?: SiteDefaultLevel;
  /** The space holding the site's writing style guide (a live space of its organization); null detaches it. */
  styleguide?: string | null;
}

/** A site's icon: an image for light and for dark themes. */
export interface SiteIcon {
  icon: { light: string; dark: string };
}

/** What PATCH …/sections/{siteSectionId} may change (besides the default site space and the group). */
export interface SiteSectionChanges {
  title?: string;
  path?: string;
  icon?: string | null;
  description?: string | null;
  condition?: string | null;
  draft?: boolean;
}

/** What PATCH …/site-spaces/{siteSpaceId} may change. `hidden`: left out of the site's navigation, still served at its URL. */
export interface SiteSpaceChanges {
  path?: string;
  condition?: string | null;
  spaceId?: string;
  pageId?: string | null;
  hidden?: boolean;
  draft?: boolean;
}

/** What PATCH …/share-links/{shareLinkId} may change. */
export interface SiteShareLinkChanges {
  name?: string;
  active?: boolean;
}

interface About {
  siteId: string;
  organizationId: string;
}

export type SiteEvent =
  | {
      type: 'SiteCreated';
      data: About & { type: SiteType; title: string; visibility: SiteVisibility; createdBy: string; createdAt: string };
    }
  | { type: 'SiteUpdated'; data: About & { changes: SiteChanges; updatedAt: string } }
  | { type: 'SitePublished'; data: About & { publishedAt: string } }
  | { type: 'SiteUnpublished'; data: About & { unpublishedAt: string } }
  | { type: 'SiteDeleted'; data: About & { deletedAt: string } }
  /** `draft`: not live, left out of the published site (absent: live). */
  | {
      type: 'SiteSectionAdded';
      data: About & {
        sectionId: string;
        title: string;
        icon: string | null;
        path: string;
        default: boolean;
        draft?: boolean;
        addedAt: string;
      };
    }
  | { type: 'SiteSectionUpdated'; data: About & { sectionId: string; changes: SiteSectionChanges; updatedAt: string } }
  | { type: 'SiteSectionRemoved'; data: About & { sectionId: string; removedAt: string } }
  | { type: 'SiteDefaultSectionSet'; data: About & { sectionId: string } }
  /** `title`: the site's own title for the variant (absent: the space's); `pageId`: the page shown at the site space's root (absent: its first page). */
  | {
      type: 'SiteSpaceAdded';
      data: About & {
        siteSpaceId: string;
        spaceId: string;
        sectionId: string | null;
        path: string;
        default: boolean;
        draft?: boolean;
        title?: string;
        pageId?: string;
        addedAt: string;
      };
    }
  | { type: 'SiteSpaceUpdated'; data: About & { siteSpaceId: string; changes: SiteSpaceChanges; updatedAt: string } }
  /** A site's first section takes the site spaces it had at its root, in their order and with their default: what it published stays where it was. */
  | { type: 'SiteRootSpacesSectioned'; data: About & { sectionId: string } }
  | { type: 'SiteSpaceRemoved'; data: About & { siteSpaceId: string; removedAt: string } }
  /** The default site space of a scope (a section, or the root when `sectionId` is null). */
  | { type: 'SiteDefaultSiteSpaceSet'; data: About & { siteSpaceId: string; sectionId: string | null } }
  | {
      type: 'SiteSectionGroupAdded';
      data: About & { groupId: string; title: string; icon: string | null; sections: string[]; draft?: boolean; addedAt: string };
    }
  | {
      type: 'SiteSectionGroupUpdated';
      data: About & { groupId: string; changes: { title?: string; icon?: string | null; draft?: boolean }; updatedAt: string };
    }
  | { type: 'SiteSectionGroupRemoved'; data: About & { groupId: string; removedAt: string } }
  /** A section joins a group (leaving the one it was in, if any). */
  | { type: 'SiteSectionGrouped'; data: About & { groupId: string; sectionId: string } }
  | { type: 'SiteSectionUngrouped'; data: About & { groupId: string; sectionId: string } }
  | { type: 'SiteAdaptiveSchemaSet'; data: About & { jsonSchema: Record<string, unknown>; updatedAt: string } }
  /** The order of sections, and of the site spaces within each scope. */
  | { type: 'SiteStructureSorted'; data: About & { sections: string[]; siteSpaces: Record<string, string[]> } }
  /** A share link: `key` is the secret a reader of a `share-link` site presents (`shareKey`). */
  | { type: 'SiteShareLinkCreated'; data: About & { shareLinkId: string; key: string; name: string; createdBy: string; createdAt: string } }
  | { type: 'SiteShareLinkUpdated'; data: About & { shareLinkId: string; changes: SiteShareLinkChanges; updatedAt: string } }
  | { type: 'SiteShareLinkDeleted'; data: About & { shareLinkId: string; deletedAt: string } }
  /**
   * Visitor authentication: tokens are checked with the site's own HS256 key (derived from the
   * service's secrets key and `keyGeneration`, so no secret is stored), or with the keys of
   * `jwksUrl` (RS256) when one is set, which must then name the site as their audience and, when
   * `issuer` is set (absent: any), carry it as their `iss`.
   */
  | { type: 'SiteVisitorAuthConfigured'; data: About & { jwksUrl: string | null; issuer?: string; updatedAt: string } }
  | { type: 'SiteVisitorKeyRotated'; data: About & { keyGeneration: number; rotatedAt: string } };

/** A custom hostname's claim: stream `sitehostname-<hostname>`, so one hostname names one site at a time. */
export type SiteHostnameEvent =
  | { type: 'SiteHostnameClaimed'; data: { hostname: string; siteId: string } }
  | { type: 'SiteHostnameReleased'; data: { hostname: string; siteId: string } };
