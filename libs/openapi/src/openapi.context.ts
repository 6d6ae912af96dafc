import type { ContextManifest } from '#runtime/context';
import { openapiAuditCatalog } from './openapi.audit';
import { OpenapiModule } from './openapi.module';
import { OPENAPI_ORGANIZATIONS } from './openapi.needs';
import { OpenapiForContent } from './openapi.provides';
import { openapiProjection } from './openapi.projections';
import { openapiProcessingReactor, openapiSlugReactor } from './openapi.reactors';
import { openapiSchemas } from './openapi.schemas';

/** OpenAPI specifications: specs by slug, their processing (fetch, parse, validate) and versions. */
export const openapiContext: ContextManifest = {
  name: 'openapi',
  module: OpenapiModule,
  projections: [openapiProjection],
  reactors: [openapiProcessingReactor, openapiSlugReactor],
  audit: openapiAuditCatalog,
  needs: [OPENAPI_ORGANIZATIONS],
  provides: [OpenapiForContent],
  schemas: openapiSchemas,
};
