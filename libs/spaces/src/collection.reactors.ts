import type { ReactionContext, Reactor } from '#runtime/reactor';
import { keyBetween, positionAtEnd } from './ordering';
import { readAll } from '#read-store/read-all';
import { childrenOf, siblingsUnder } from './siblings';
import { spaceDecider, spaceStream } from './space.decider';
import { collectionDecider, collectionStream } from './collection.decider';
import { ReparentCollection, TransferCollectionWithParent } from './collection.commands';
import { ReparentSpace, TransferSpaceWithCollection } from './space.commands';
import type { CollectionEvent, SpaceEvent } from './space.events';
import { COLLECTIONS, LIVE_COLLECTION, SPACES, type CollectionDoc, type SpaceDoc } from './space.projections';

/** Placing a space or collection (its `parent`): if that parent is deleted, it is an orphan to move up. */
const PLACEMENTS = ['SpaceCreated', 'SpaceMoved', 'CollectionCreated', 'CollectionMoved'] as const;

/**
 * The collection cascades, across streams: a deleted collection's spaces and sub-collections move
 * up to its nearest live ancestor (the top level when there is none); a transferred collection's
 * spaces and sub-collections follow it to the other organization (each sub-collection's own
 * `CollectionTransferred` then takes its children along).
 *
 * Every command is idempotent and checks, on the streams, that what it reacts to still holds
 * (`ReparentSpace` moves a space only if it is still in the deleted collection; a transfer is
 * followed only while the collection is still in the organization it went to, by children still
 * in it), so a redelivered or replayed event appends nothing new and undoes nothing that came after.
 *
 * It also reacts to every placement of a space or collection: one that lands in a collection deleted
 * meanwhile (its request checked the read models just before the deletion) is moved up too, so no
 * space or collection is ever left pointing to a deleted parent.
 */
export const collectionReactor: Reactor<SpaceEvent | CollectionEvent> = {
  name: 'collection-cascades',
  handles: ['CollectionDeleted', 'CollectionTransferred', ...PLACEMENTS],
  async react(event, context) {
    switch (event.type) {
      case 'CollectionDeleted':
        return moveChildrenUp(event.data.collectionId, context);
      case 'CollectionTransferred':
        return followTransfer(event.data.collectionId, event.data.organizationId, context);
      case 'SpaceCreated':
      case 'SpaceMoved':
        return moveUpIfOrphan({ kind: 'space', id: event.data.spaceId }, event.data.parent, context);
      case 'CollectionCreated':
      case 'CollectionMoved':
        return moveUpIfOrphan({ kind: 'collection', id: event.data.collectionId }, event.data.parent, context);
    }
  },
};

/** The nearest live collection at or above `collectionId` (null: the top level), per the streams. */
async function liveAncestor(collectionId: string | null, { commands }: ReactionContext): Promise<string | null> {
  const seen = new Set<string>();
  let current = collectionId;
  while (current !== null && !seen.has(current)) {
    seen.add(current);
    const { state } = await commands.load(collectionStream(current), collectionDecider);
    if (state.exists && !state.deleted) return current;
    current = state.exists ? state.parent : null;
  }
  return null;
}

async function moveChildrenUp(collectionId: string, context: ReactionContext): Promise<void> {
  const { commands, commandBus, reads, caller } = context;
  const { state } = await commands.load(collectionStream(collectionId), collectionDecider);
  if (!state.exists || !state.deleted) return;
  const organizationId = state.organizationId;
  const parent = await liveAncestor(state.parent, context);
  // Deleted spaces too: a restored space must find a live parent. Spaces and collections keep their
  // order among themselves, after everything already at the destination.
  const children = await childrenOf(reads, collectionId);
  let last = (await siblingsUnder(reads, organizationId, parent)).at(-1)?.position ?? '';
  for (const child of children) {
    last = keyBetween(last, null);
    if (child.kind === 'space') await commandBus.execute(new ReparentSpace(child.id, collectionId, parent, last, caller));
    else await commandBus.execute(new ReparentCollection(child.id, collectionId, parent, last, caller));
  }
}

async function followTransfer(
  collectionId: string,
  organizationId: string,
  { commands, commandBus, reads, caller }: ReactionContext,
): Promise<void> {
  // Transferred again since: the later transfer's reaction takes the children where it went.
  const { state } = await commands.load(collectionStream(collectionId), collectionDecider);
  if (!state.exists || state.deleted || state.organizationId !== organizationId) return;
  const collections = await readAll<CollectionDoc>(reads, COLLECTIONS, { parent: collectionId, ...LIVE_COLLECTION }, { position: 1 });
  for (const child of collections) {
    const { state: childState } = await commands.load(collectionStream(child._id), collectionDecider);
    if (childState.parent !== collectionId) continue;
    await commandBus.execute(new TransferCollectionWithParent(child._id, organizationId, caller));
  }
  const spaces = await readAll<SpaceDoc>(reads, SPACES, { parent: collectionId, purgedAt: { $exists: false } }, { position: 1 });
  for (const space of spaces) {
    const { state: spaceState } = await commands.load(spaceStream(space._id), spaceDecider);
    if (spaceState.parent !== collectionId) continue;
    await commandBus.execute(new TransferSpaceWithCollection(space._id, organizationId, collectionId, caller));
  }
}

/** A space or collection placed (`parent`) in a collection deleted meanwhile moves up to the nearest live ancestor. */
async function moveUpIfOrphan(
  placed: { kind: 'space' | 'collection'; id: string },
  from: string | null,
  context: ReactionContext,
): Promise<void> {
  const { commands, commandBus, reads, caller } = context;
  if (from === null) return;
  const { state: parentState } = await commands.load(collectionStream(from), collectionDecider);
  if (!parentState.exists || !parentState.deleted) return;
  const parent = await liveAncestor(parentState.parent, context);
  if (placed.kind === 'space') {
    const { state } = await commands.load(spaceStream(placed.id), spaceDecider);
    const position = positionAtEnd(await siblingsUnder(reads, state.organizationId, parent, placed));
    await commandBus.execute(new ReparentSpace(placed.id, from, parent, position, caller));
  } else {
    const { state } = await commands.load(collectionStream(placed.id), collectionDecider);
    const position = positionAtEnd(await siblingsUnder(reads, state.organizationId, parent, placed));
    await commandBus.execute(new ReparentCollection(placed.id, from, parent, position, caller));
  }
}
