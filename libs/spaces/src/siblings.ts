import { Command, CommandHandler } from '@nestjs/cqrs';
import type { Decider, DomainEvent } from '#event-store/decider';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { readAll } from '#read-store/read-all';
import type { ReadStore } from '#read-store/read-store.port';
import { DecidingHandler } from '#runtime/command-handler';
import { collectionDecider, collectionStream } from './collection.decider';
import { compareSiblings, type Placement, type Sibling, type SiblingRef } from './ordering';
import { spaceDecider, spaceStream } from './space.decider';
import { COLLECTIONS, LIVE_COLLECTION, SPACES, type CollectionDoc, type SpaceDoc } from './space.projections';

/**
 * The children of one parent (top level: null) of an organization, spaces and collections in one
 * (position, id) order (ordering.ts): spaces deleted but not purged keep their place (a restore
 * finds it), collections only while live. `except` leaves out the item being placed.
 */
export async function siblingsUnder(
  reads: ReadStore,
  organizationId: string,
  parent: string | null,
  except?: SiblingRef,
): Promise<Sibling[]> {
  const parentKey = parent ?? '';
  const [spaces, collections] = await Promise.all([
    readAll<SpaceDoc>(reads, SPACES, { organizationId, parentKey, purgedAt: { $exists: false } }, { position: 1 }),
    readAll<CollectionDoc>(reads, COLLECTIONS, { organizationId, parentKey, ...LIVE_COLLECTION }, { position: 1 }),
  ]);
  const siblings: Sibling[] = [
    ...spaces.map((space): Sibling => ({ kind: 'space', id: space._id, position: space.position })),
    ...collections.map((collection): Sibling => ({ kind: 'collection', id: collection._id, position: collection.position })),
  ];
  return siblings.filter((sibling) => !(except && sibling.kind === except.kind && sibling.id === except.id)).sort(compareSiblings);
}

/**
 * What is inside a collection, whichever organization it is in (a collection deleted while its
 * children were following a transfer still has them): spaces not purged, live collections, in one order.
 */
export async function childrenOf(reads: ReadStore, collectionId: string): Promise<Sibling[]> {
  const [spaces, collections] = await Promise.all([
    readAll<SpaceDoc>(reads, SPACES, { parent: collectionId, purgedAt: { $exists: false } }, { position: 1 }),
    readAll<CollectionDoc>(reads, COLLECTIONS, { parent: collectionId, ...LIVE_COLLECTION }, { position: 1 }),
  ]);
  return [
    ...spaces.map((space): Sibling => ({ kind: 'space', id: space._id, position: space.position })),
    ...collections.map((collection): Sibling => ({ kind: 'collection', id: collection._id, position: collection.position })),
  ].sort(compareSiblings);
}

/**
 * A placement that renumbers siblings checks first that the placed item's own command would be
 * accepted (rules and If-Match) against its stream as loaded: the siblings take new keys only then,
 * so a refused move changes nothing.
 */
export function refuseUnlessAccepted<C, E extends DomainEvent, S>(
  decider: Decider<C, E, S>,
  command: C,
  { state, revision }: { state: S; revision: number | null },
  ifMatch?: number,
): void {
  if (ifMatch !== undefined && ifMatch !== revision)
    throw DomainError.preconditionFailed(`the resource has changed: If-Match names revision ${ifMatch} but it is at ${revision ?? 'none'}`);
  const decided = decider.decide(command, state);
  if (decided instanceof DomainError) throw decided;
}

/**
 * Gives the siblings a placement renumbers their new keys (each only if it is still in `parent`
 * at its old key: `RepositionSpace` / `RepositionCollection` check it), and answers once the read
 * models show them all. A step of a move or a duplicate, dispatched by its handler once that
 * command would be accepted: stamped with its caller, decided without a permission check.
 */
export class RenumberSiblings extends Command<void> {
  constructor(
    readonly placement: Placement,
    readonly parent: string | null,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(RenumberSiblings)
export class RenumberSiblingsHandler extends DecidingHandler {
  async execute({ placement, parent, caller }: RenumberSiblings): Promise<void> {
    if (placement.renumber.length === 0) return;
    const now = this.now();
    // Not waited for one by one: they go to different streams at once, and the wait is for the last.
    const outcomes = await Promise.all(
      placement.renumber.map((entry) =>
        entry.kind === 'space'
          ? this.decide(
              spaceStream(entry.id),
              spaceDecider,
              { kind: 'RepositionSpace', spaceId: entry.id, parent, from: entry.from, position: entry.position, now },
              { caller, wait: false },
            )
          : this.decide(
              collectionStream(entry.id),
              collectionDecider,
              { kind: 'RepositionCollection', collectionId: entry.id, parent, from: entry.from, position: entry.position, now },
              { caller, wait: false },
            ),
      ),
    );
    const positions = outcomes.flatMap((outcome) => (outcome.position !== undefined ? [outcome.position] : []));
    await this.runner.waitFor(
      positions.reduce<bigint | undefined>((last, position) => (last === undefined || position > last ? position : last), undefined),
      caller.requestId,
    );
  }
}
