import type { Projection } from '../../read-store/src/projections/projection';
import { identityProjection } from '../../identity/src/identity.projections';
import { organizationProjection } from '../../organizations/src/organization.projections';
import { organizationAuditCatalog } from '../../organizations/src/organization.audit';
import { auditProjection, combineAuditCatalogs } from '../../audit/src/audit.projection';
import { teamProjection } from '../../teams/src/team.projections';
import { teamAuditCatalog } from '../../teams/src/team.audit';
import { samlProviderProjection } from '../../sso/src/saml-provider.projections';
import { ssoAuditCatalog } from '../../sso/src/sso.audit';
import { spaceProjection } from '../../spaces/src/space.projections';
import { spaceAuditCatalog } from '../../spaces/src/space.audit';

/** How every context's events read in the audit log. */
export const auditCatalog = combineAuditCatalogs(organizationAuditCatalog, teamAuditCatalog, ssoAuditCatalog, spaceAuditCatalog);

/**
 * Every projection of every bounded context: the composition root's one list. The embedded API
 * and the distributed projector run exactly these, so their read models are the same.
 */
export const allProjections: readonly Projection[] = [identityProjection, organizationProjection, teamProjection, samlProviderProjection, spaceProjection, auditProjection(auditCatalog)];
