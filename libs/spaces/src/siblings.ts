import type { Caller } from '../../platform/src/http/auth';
import { readAll } from '../../read-store/src/read-all';
import type { ReadStore } from '../../read-store/src/read-store.port';
import type { CommandRunner } from '../../runtime/src/command-runner';
import { collectionDecider, collectionStream } from './collection.decider';
import { compareSiblings, type Placement, type Sibling, type SiblingRef } from './ordering';
import { spaceDecider, spaceStream } from './space.decider';
import { COLLECTIONS, LIVE_COLLECTION, SPACES, type CollectionDoc, type SpaceDoc } from './space.projections';

/**
 * The children of one parent (top level: null) of an organization, spaces and collections in one
 * (position, id) order (ordering.ts): spaces deleted but not purged keep their place (a restore
 * finds it), collections only while live. `except` leaves out the item being placed.
 */
export async function siblingsUnder(reads: ReadStore, organizationId: string, parent: string | null, except?: SiblingRef): Promise<Sibling[]> {
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
 * Gives the siblings a placement renumbers their new keys (each only if it is still in `parent`
 * at its old key: `RepositionSpace` / `RepositionCollection` check it), and waits until the read
 * models show them all.
 */
export async function renumberSiblings(commands: CommandRunner, placement: Placement, parent: string | null, caller: Caller): Promise<void> {
  if (placement.renumber.length === 0) return;
  const now = commands.now().toISOString();
  const outcomes = await Promise.all(
    placement.renumber.map((entry) =>
      entry.kind === 'space'
        ? commands.run(spaceStream(entry.id), spaceDecider, { kind: 'RepositionSpace', spaceId: entry.id, parent, from: entry.from, position: entry.position, now }, { caller }, { wait: false })
        : commands.run(
            collectionStream(entry.id),
            collectionDecider,
            { kind: 'RepositionCollection', collectionId: entry.id, parent, from: entry.from, position: entry.position, now },
            { caller },
            { wait: false },
          ),
    ),
  );
  const positions = outcomes.flatMap((outcome) => (outcome.position !== undefined ? [outcome.position] : []));
  await commands.waitFor(
    positions.reduce<bigint | undefined>((last, position) => (last === undefined || position > last ? position : last), undefined),
    caller.requestId,
  );
}
