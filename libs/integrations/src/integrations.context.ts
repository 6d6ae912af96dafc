import type { FastifyInstance } from 'fastify';
import type { ContextManifest } from '#runtime/context';
import { INTEGRATION_ORGANIZATIONS, INTEGRATION_SITES, INTEGRATION_SPACES, INTEGRATION_USERS } from './integrations.needs';
import { IntegrationsForSites } from './integrations.provides';
import { integrationAuditCatalog } from './integration.audit';
import { integrationProjection } from './integration.projections';
import { integrationReactor, placeRemovalReactor } from './integration.reactors';
import { integrationSchemas } from './integrations.schemas';
import { IntegrationsModule } from './integrations.module';

/** Largest publication: a script of 1 MB and up to six images of 512 KiB as base64. */
export const INTEGRATION_PUBLISH_BODY_LIMIT_BYTES = 6 * 1024 * 1024;

function raisePublishLimit(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.includes('POST') && /^\/v1\/integrations\/:integrationName$/.test(route.url))
      route.bodyLimit = INTEGRATION_PUBLISH_BODY_LIMIT_BYTES;
  });
}

/** Integrations: publishing, installations, integration events from the log, the development tunnel, sandboxed scripts, UI render. */
export const integrationsContext: ContextManifest = {
  name: 'integrations',
  module: IntegrationsModule,
  projections: [integrationProjection],
  reactors: [integrationReactor, placeRemovalReactor],
  audit: integrationAuditCatalog,
  needs: [INTEGRATION_ORGANIZATIONS, INTEGRATION_SPACES, INTEGRATION_SITES, INTEGRATION_USERS],
  provides: [IntegrationsForSites],
  schemas: integrationSchemas,
  configureHttp: raisePublishLimit,
};
