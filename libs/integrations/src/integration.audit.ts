import { auditCatalog } from '#platform/audit-catalog';
import type { InstallationEvent, IntegrationStreamEvent } from './integration.events';

const integration = (data: { name: string }) => ({ type: 'integration', id: data.name });
const installation = (data: { installationId: string }) => ({ type: 'integration-installation', id: data.installationId });

/**
 * Publications, tunnels and installations are audited in the organization concerned; secrets never
 * appear (they are not in the details). Readers' site views are activity, not changes: they stay out.
 */
export const integrationAuditCatalog = auditCatalog<IntegrationStreamEvent | InstallationEvent>({
  IntegrationPublished: (data) => ({
    action: 'integration.published',
    organizationId: data.organizationId,
    target: integration(data),
    details: { version: data.version },
  }),
  IntegrationDeleted: (data) => ({ action: 'integration.deleted', organizationId: data.organizationId, target: integration(data) }),
  IntegrationDevModeSet: (data) => ({
    action: 'integration.dev_mode_set',
    organizationId: data.organizationId,
    target: integration(data),
    details: { all: data.all },
  }),
  IntegrationDevModeCleared: (data) => ({
    action: 'integration.dev_mode_cleared',
    organizationId: data.organizationId,
    target: integration(data),
  }),
  // The scopes accepted are a grant of access: audited with the installation and each update.
  IntegrationInstalled: (data) => ({
    action: 'integration.installed',
    organizationId: data.organizationId,
    target: installation(data),
    details: { integration: data.integrationName, ...(data.scopes ? { scopes: data.scopes } : {}) },
  }),
  IntegrationInstallationUpdated: (data) => ({
    action: 'integration.installation_updated',
    organizationId: data.organizationId,
    target: installation(data),
    details: { integration: data.integrationName, status: data.status, ...(data.scopes ? { scopes: data.scopes } : {}) },
  }),
  IntegrationUninstalled: (data) => ({
    action: 'integration.uninstalled',
    organizationId: data.organizationId,
    target: installation(data),
    details: { integration: data.integrationName },
  }),
  IntegrationSpaceInstallationSet: (data) => ({
    action: 'integration.space_installation_set',
    organizationId: data.organizationId,
    target: installation(data),
    details: { integration: data.integrationName, space: data.spaceId },
  }),
  IntegrationSpaceInstallationRemoved: (data) => ({
    action: 'integration.space_installation_removed',
    organizationId: data.organizationId,
    target: installation(data),
    details: { integration: data.integrationName, space: data.spaceId },
  }),
  IntegrationSiteInstallationSet: (data) => ({
    action: 'integration.site_installation_set',
    organizationId: data.organizationId,
    target: installation(data),
    details: { integration: data.integrationName, site: data.siteId },
  }),
  IntegrationSiteInstallationRemoved: (data) => ({
    action: 'integration.site_installation_removed',
    organizationId: data.organizationId,
    target: installation(data),
    details: { integration: data.integrationName, site: data.siteId },
  }),
});
