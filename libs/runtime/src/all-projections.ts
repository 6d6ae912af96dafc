import type { Projection } from '../../read-store/src/projections/projection';
import { identityProjection } from '../../identity/src/identity.projections';
import { organizationProjection } from '../../organizations/src/organization.projections';

/**
 * Every projection of every bounded context: the composition root's one list. The embedded API
 * and the distributed projector run exactly these, so their read models are the same.
 */
export const allProjections: readonly Projection[] = [identityProjection, organizationProjection];
