/**
 * Docs sites. One stream per site, `site-<siteId>`: the site's settings and its whole structure
 * (sections, section groups, site spaces and their order), so that rules over the structure
 * ("exactly one default section, one default site space per scope") are decided against one
 * consistent state.
 */
export const SITE_VISIBILITIES = ['public', 'unlisted', 'share-link', 'visitor-auth'] as const;
export type SiteVisibility = (typeof SITE_VISIBILITIES)[number];
export const SITE_TYPES = ['basic', 'ultimate'] as const;
export type SiteType = (typeof SITE_TYPES)[number];

/** What PATCH /sites/{siteId} may change; absent members are unchanged. */
export interface SiteChanges {
  title?: string;
  visibility?: SiteVisibility;
  basename?: string | null;
  adaptiveContent?: { enabled: boolean };
  agentsContext?: 'excluded' | 'included';
  proxy?: string | null;
}

interface About {
  siteId: string;
  organizationId: string;
}

export type SiteEvent =
  | { type: 'SiteCreated'; data: About & { type: SiteType; title: string; visibility: SiteVisibility; createdBy: string; createdAt: string } }
  | { type: 'SiteUpdated'; data: About & { changes: SiteChanges; updatedAt: string } }
  | { type: 'SitePublished'; data: About & { publishedAt: string } }
  | { type: 'SiteUnpublished'; data: About & { unpublishedAt: string } }
  | { type: 'SiteDeleted'; data: About & { deletedAt: string } }
  | { type: 'SiteSectionAdded'; data: About & { sectionId: string; title: string; icon: string | null; path: string; default: boolean; addedAt: string } }
  | { type: 'SiteSectionUpdated'; data: About & { sectionId: string; changes: { title?: string; path?: string; icon?: string | null; description?: string | null; condition?: string | null }; updatedAt: string } }
  | { type: 'SiteSectionRemoved'; data: About & { sectionId: string; removedAt: string } }
  | { type: 'SiteDefaultSectionSet'; data: About & { sectionId: string } }
  | { type: 'SiteSpaceAdded'; data: About & { siteSpaceId: string; spaceId: string; sectionId: string | null; path: string; default: boolean; addedAt: string } }
  | { type: 'SiteSpaceUpdated'; data: About & { siteSpaceId: string; changes: { path?: string; condition?: string | null; spaceId?: string }; updatedAt: string } }
  | { type: 'SiteSpaceRemoved'; data: About & { siteSpaceId: string; removedAt: string } }
  /** The default site space of a scope (a section, or the root when `sectionId` is null). */
  | { type: 'SiteDefaultSiteSpaceSet'; data: About & { siteSpaceId: string; sectionId: string | null } }
  | { type: 'SiteSectionGroupAdded'; data: About & { groupId: string; title: string; icon: string | null; sections: string[]; addedAt: string } }
  | { type: 'SiteSectionGroupUpdated'; data: About & { groupId: string; changes: { title?: string; icon?: string | null }; updatedAt: string } }
  | { type: 'SiteSectionGroupRemoved'; data: About & { groupId: string; removedAt: string } }
  /** A section joins a group (leaving the one it was in, if any). */
  | { type: 'SiteSectionGrouped'; data: About & { groupId: string; sectionId: string } }
  | { type: 'SiteSectionUngrouped'; data: About & { groupId: string; sectionId: string } }
  | { type: 'SiteAdaptiveSchemaSet'; data: About & { jsonSchema: Record<string, unknown>; updatedAt: string } }
  /** The order of sections, and of the site spaces within each scope. */
  | { type: 'SiteStructureSorted'; data: About & { sections: string[]; siteSpaces: Record<string, string[]> } };
