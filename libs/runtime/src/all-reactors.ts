import type { Reactor } from './reactor';
import { collectionReactor } from '../../spaces/src/collection.reactors';
import { teamMembershipReactor } from '../../teams/src/team.reactors';

/**
 * Every reactor of every bounded context: the composition root's one list, beside
 * `allProjections`. The embedded API and the distributed projector run exactly these; the
 * distributed API knows them to wait for their checkpoints (read-your-writes).
 */
export const allReactors: readonly Reactor[] = [collectionReactor, teamMembershipReactor];
