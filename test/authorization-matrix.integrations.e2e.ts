/** The authorization matrix (support/authorization-matrix.ts) for the operations on integrations, their installations, events and rendering. */
import { describeAuthorizationMatrix } from './support/authorization-matrix';

describeAuthorizationMatrix('integrations');
