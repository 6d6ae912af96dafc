import { documentProjection, type ProjectedDoc } from '#read-store/projections/projection';

/** This context's copy of which sites each organization has, from the sites context's events (Member objects count them). */
export const ORGANIZATION_SITES = 'organization_sites';

/** `_id` is the site id. A deleted site keeps its document as a tombstone, so that no older event replayed over it brings it back. */
export interface OrganizationSiteDoc extends ProjectedDoc {
  organizationId: string;
  deleted: boolean;
}

/**
 * The sites context's events this projection copies, in the shape relied upon only (a context
 * reads another's events, never its collections). Sites never change organization.
 */
export type SiteLifecycleEvent =
  | { type: 'SiteCreated'; data: { siteId: string; organizationId: string } }
  | { type: 'SiteDeleted'; data: { siteId: string; organizationId: string } };

/** The live sites of every organization: what `Member.sites` counts (every member sees every live site of the organization). */
export const organizationSitesProjection = documentProjection<SiteLifecycleEvent, OrganizationSiteDoc>({
  name: 'organization-sites',
  collection: ORGANIZATION_SITES,
  handles: ['SiteCreated', 'SiteDeleted'],
  indexes: [{ fields: { organizationId: 1, deleted: 1 } }],
  documentId: (event) => event.data.siteId,
  evolve(document, event) {
    switch (event.type) {
      case 'SiteCreated':
        return { _id: event.data.siteId, organizationId: event.data.organizationId, deleted: false };
      case 'SiteDeleted':
        return { _id: event.data.siteId, organizationId: document?.organizationId ?? event.data.organizationId, deleted: true };
    }
  },
});
