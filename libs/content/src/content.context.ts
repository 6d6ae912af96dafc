import type { FastifyInstance } from 'fastify';
import type { ContextManifest } from '#runtime/context';
import { CONTENT_CHANGE_REQUESTS } from './content.needs';
import { CONTENT_OPENAPI } from './content.needs';
import { CONTENT_SPACES } from './content.needs';
import { contentAuditCatalog } from './content.audit';
import { ContentModule } from './content.module';
import { ContentForChangeRequests, ContentForComments, ContentForSites, ContentForSpaces } from './content.provides';
import { CONTENT_URL_KEY } from './content.needs';
import { contentProjection } from './content.projections';
import { contentDependenciesReactor, contentReactor } from './content.reactors';
import { contentSchemas } from './content.schemas';

/** Largest body of a content write: up to 50 changes with bodies and 20 files of 1 MiB (base64) per change. */
export const CONTENT_WRITE_BODY_LIMIT_BYTES = 48 * 1024 * 1024;

/** The batch write takes larger bodies than the service's default limit; every other route keeps it. */
function raiseContentWriteLimit(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.includes('POST') && /\/v1\/spaces\/:spaceId(\/change-requests\/:changeRequestId)?\/content$/.test(route.url))
      route.bodyLimit = CONTENT_WRITE_BODY_LIMIT_BYTES;
  });
}

/** Space content: revisions as content-addressed trees, reads, the batch write, imports, links, search, history. */
export const contentContext: ContextManifest = {
  name: 'content',
  module: ContentModule,
  projections: [contentProjection],
  reactors: [contentReactor, contentDependenciesReactor],
  audit: contentAuditCatalog,
  needs: [CONTENT_SPACES, CONTENT_CHANGE_REQUESTS, CONTENT_URL_KEY, CONTENT_OPENAPI],
  provides: [ContentForSpaces, ContentForChangeRequests, ContentForComments, ContentForSites],
  schemas: contentSchemas,
  configureHttp: raiseContentWriteLimit,
};
