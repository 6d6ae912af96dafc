/** The authorization matrix (support/authorization-matrix.ts) for the operations on sites, OpenAPI specs and translation settings. */
import { describeAuthorizationMatrix } from './support/authorization-matrix';

describeAuthorizationMatrix('sites');
