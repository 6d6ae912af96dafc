/** The authorization matrix (support/authorization-matrix.ts) for the operations on spaces, collections, their content and search. */
import { describeAuthorizationMatrix } from './support/authorization-matrix';

describeAuthorizationMatrix('spaces');
