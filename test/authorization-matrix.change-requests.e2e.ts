/** The authorization matrix (support/authorization-matrix.ts) for the operations on change requests, their content, reviews and comments. */
import { describeAuthorizationMatrix } from './support/authorization-matrix';

describeAuthorizationMatrix('change-requests');
