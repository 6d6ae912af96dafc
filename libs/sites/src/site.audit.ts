import { auditCatalog } from '#platform/audit-catalog';
import type { SiteEvent } from './site.events';

const target = (data: { siteId: string }) => ({ type: 'site', id: data.siteId });

/** Every site change is one audit entry on the site, in its organization. */
export const siteAuditCatalog = auditCatalog<SiteEvent>({
  SiteCreated: (data) => ({
    action: 'site.created',
    organizationId: data.organizationId,
    target: target(data),
    details: { title: data.title, visibility: data.visibility },
  }),
  SiteUpdated: (data) => ({
    action: 'site.updated',
    organizationId: data.organizationId,
    target: target(data),
    details: { changes: Object.keys(data.changes) },
  }),
  SitePublished: (data) => ({ action: 'site.published', organizationId: data.organizationId, target: target(data) }),
  SiteUnpublished: (data) => ({ action: 'site.unpublished', organizationId: data.organizationId, target: target(data) }),
  SiteDeleted: (data) => ({ action: 'site.deleted', organizationId: data.organizationId, target: target(data) }),
  SiteSectionAdded: (data) => ({
    action: 'site.section_added',
    organizationId: data.organizationId,
    target: target(data),
    details: { section: data.sectionId },
  }),
  SiteSectionUpdated: (data) => ({
    action: 'site.section_updated',
    organizationId: data.organizationId,
    target: target(data),
    details: { section: data.sectionId },
  }),
  SiteSectionRemoved: (data) => ({
    action: 'site.section_removed',
    organizationId: data.organizationId,
    target: target(data),
    details: { section: data.sectionId },
  }),
  SiteDefaultSectionSet: (data) => ({
    action: 'site.default_section_set',
    organizationId: data.organizationId,
    target: target(data),
    details: { section: data.sectionId },
  }),
  SiteSpaceAdded: (data) => ({
    action: 'site.space_added',
    organizationId: data.organizationId,
    target: target(data),
    details: { siteSpace: data.siteSpaceId, space: data.spaceId },
  }),
  SiteSpaceUpdated: (data) => ({
    action: 'site.space_updated',
    organizationId: data.organizationId,
    target: target(data),
    details: { siteSpace: data.siteSpaceId },
  }),
  SiteSpaceRemoved: (data) => ({
    action: 'site.space_removed',
    organizationId: data.organizationId,
    target: target(data),
    details: { siteSpace: data.siteSpaceId },
  }),
  SiteRootSpacesSectioned: (data) => ({
    action: 'site.root_spaces_sectioned',
    organizationId: data.organizationId,
    target: target(data),
    details: { section: data.sectionId },
  }),
  SiteDefaultSiteSpaceSet: (data) => ({
    action: 'site.default_space_set',
    organizationId: data.organizationId,
    target: target(data),
    details: { siteSpace: data.siteSpaceId },
  }),
  SiteSectionGroupAdded: (data) => ({
    action: 'site.section_group_added',
    organizationId: data.organizationId,
    target: target(data),
    details: { group: data.groupId },
  }),
  SiteSectionGroupUpdated: (data) => ({
    action: 'site.section_group_updated',
    organizationId: data.organizationId,
    target: target(data),
    details: { group: data.groupId },
  }),
  SiteSectionGroupRemoved: (data) => ({
    action: 'site.section_group_removed',
    organizationId: data.organizationId,
    target: target(data),
    details: { group: data.groupId },
  }),
  SiteSectionGrouped: (data) => ({
    action: 'site.section_grouped',
    organizationId: data.organizationId,
    target: target(data),
    details: { group: data.groupId, section: data.sectionId },
  }),
  SiteSectionUngrouped: (data) => ({
    action: 'site.section_ungrouped',
    organizationId: data.organizationId,
    target: target(data),
    details: { group: data.groupId, section: data.sectionId },
  }),
  SiteAdaptiveSchemaSet: (data) => ({ action: 'site.adaptive_schema_set', organizationId: data.organizationId, target: target(data) }),
  SiteStructureSorted: (data) => ({ action: 'site.structure_sorted', organizationId: data.organizationId, target: target(data) }),
  // The key itself never reaches the audit log: it opens the site.
  SiteShareLinkCreated: (data) => ({
    action: 'site.share_link_created',
    organizationId: data.organizationId,
    target: target(data),
    details: { shareLink: data.shareLinkId },
  }),
  SiteShareLinkUpdated: (data) => ({
    action: 'site.share_link_updated',
    organizationId: data.organizationId,
    target: target(data),
    details: { shareLink: data.shareLinkId, changes: Object.keys(data.changes) },
  }),
  SiteShareLinkDeleted: (data) => ({
    action: 'site.share_link_deleted',
    organizationId: data.organizationId,
    target: target(data),
    details: { shareLink: data.shareLinkId },
  }),
  SiteVisitorAuthConfigured: (data) => ({
    action: 'site.visitor_auth_configured',
    organizationId: data.organizationId,
    target: target(data),
    details: { jwksUrl: data.jwksUrl, issuer: data.issuer ?? null },
  }),
  SiteVisitorKeyRotated: (data) => ({ action: 'site.visitor_key_rotated', organizationId: data.organizationId, target: target(data) }),
});
