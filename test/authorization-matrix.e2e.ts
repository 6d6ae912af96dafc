/**
 * The authorization matrix (support/authorization-matrix.ts) for the organizations' own operations
 * (members, invitations, teams, single sign-on, domains, audit, users, the service's admin routes),
 * and the check that every operation of the document has a rule. The other areas have files of
 * their own (authorization-matrix.<area>.e2e.ts), so that test workers share the matrix.
 */
import { describeAuthorizationMatrix } from './support/authorization-matrix';

describeAuthorizationMatrix('organizations', { coverage: true });
