import type { ContextManifest } from '#runtime/context';
import { auditSchemas } from './audit.schemas';
import { AuditModule } from './audit.module';
import { auditProjection } from './audit.projection';
import { ORGANIZATION_ACCESS } from './audit.needs';

/** The organization audit log, derived from every context's events through their catalogs. */
export const auditContext: ContextManifest = {
  name: 'audit',
  module: AuditModule,
  projections: ({ auditCatalog }) => [auditProjection(auditCatalog)],
  needs: [ORGANIZATION_ACCESS],
  schemas: auditSchemas,
};
