import type { ContextManifest } from '#runtime/context';
import { organizationSchemas } from './organizations.schemas';
import { organizationAuditCatalog } from './organization.audit';
import { OrganizationModule } from './organization.module';
import { organizationProjection } from './organization.projections';
import { organizationSitesProjection } from './organization-sites.projection';
import {
  OrganizationsForAudit,
  OrganizationsForChangeRequests,
  OrganizationsForComments,
  OrganizationsForIntegrations,
  OrganizationsForSites,
  OrganizationsForSpaces,
  OrganizationsForTranslations,
  OrganizationsForOpenapi,
  OrganizationsForSso,
  OrganizationsForTeams,
} from './organizations.provides';
import { MEMBER_SPACES, MEMBER_TEAM_COUNTS, ORGANIZATION_USERS, VISITOR_CLAIMS_KEY } from './organizations.needs';

/** Organizations, members and invitations. Member objects show counts other contexts keep (teams, spaces) and sites counted from the sites context's events. */
export const organizationsContext: ContextManifest = {
  name: 'organizations',
  module: OrganizationModule,
  projections: [organizationProjection, organizationSitesProjection],
  audit: organizationAuditCatalog,
  needs: [VISITOR_CLAIMS_KEY, ORGANIZATION_USERS, MEMBER_TEAM_COUNTS, MEMBER_SPACES],
  provides: [
    OrganizationsForTeams,
    OrganizationsForSpaces,
    OrganizationsForAudit,
    OrganizationsForSso,
    OrganizationsForChangeRequests,
    OrganizationsForComments,
    OrganizationsForIntegrations,
    OrganizationsForSites,
    OrganizationsForTranslations,
    OrganizationsForOpenapi,
  ],
  schemas: organizationSchemas,
};
