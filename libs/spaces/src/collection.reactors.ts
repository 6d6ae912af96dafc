import type { RecordedEvent } from '../../event-store/src/event-store.port';
import type { ReactionContext, Reactor } from '../../runtime/src/reactor';
import { keyBetween, positionAtEnd } from './ordering';
import { readAll } from '../../read-store/src/read-all';
import { childrenOf, siblingsUnder } from './siblings';
import { spaceDecider, spaceStream } from './space.decider';
import { collectionDecider, collectionStream } from './collection.decider';
import type { CollectionEvent, SpaceEvent } from './space.events';
import { COLLECTIONS, LIVE_COLLECTION, SPACES, type CollectionDoc, type SpaceDoc } from './space.projections';

type Data<T extends (SpaceEvent | CollectionEvent)['type']> = Extract<SpaceEvent | CollectionEvent, { type: T }>['data'];

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
export const collectionReactor: Reactor = {
  name: 'collection-cascades',
  handles: ['CollectionDeleted', 'CollectionTransferred', ...PLACEMENTS],
  async react(event, context) {
    switch (event.type) {
      case 'CollectionDeleted':
        return moveChildrenUp((event.data as Data<'CollectionDeleted'>).collectionId, context);
      case 'CollectionTransferred':
        return followTransfer(event.data as Data<'CollectionTransferred'>, context);
      default:
        return moveUpIfOrphan(event, context);
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
  const { commands, reads, caller } = context;
  const { state } = await commands.load(collectionStream(collectionId), collectionDecider);
  if (!state.exists || !state.deleted) return;
  const organizationId = state.organizationId;
  const parent = await liveAncestor(state.parent, context);
  const now = commands.now().toISOString();
  // Deleted spaces too: a restored space must find a live parent. Spaces and collections keep their
  // order among themselves, after everything already at the destination.
  const children = await childrenOf(reads, collectionId);
  let last = (await siblingsUnder(reads, organizationId, parent)).at(-1)?.position ?? '';
  for (const child of children) {
    last = keyBetween(last, null);
    if (child.kind === 'space') {
      await commands.run(spaceStream(child.id), spaceDecider, { kind: 'ReparentSpace', spaceId: child.id, from: collectionId, parent, position: last, now }, { caller });
    } else {
      await commands.run(collectionStream(child.id), collectionDecider, { kind: 'ReparentCollection', collectionId: child.id, from: collectionId, parent, position: last, now }, { caller });
    }
  }
}

async function followTransfer({ collectionId, organizationId }: Data<'CollectionTransferred'>, { commands, reads, caller }: ReactionContext): Promise<void> {
  // Transferred again since: the later transfer's reaction takes the children where it went.
  const { state } = await commands.load(collectionStream(collectionId), collectionDecider);
  if (!state.exists || state.deleted || state.organizationId !== organizationId) return;
  const now = commands.now().toISOString();
  const collections = await readAll<CollectionDoc>(reads, COLLECTIONS, { parent: collectionId, ...LIVE_COLLECTION }, { position: 1 });
  for (const child of collections) {
    const { state: childState } = await commands.load(collectionStream(child._id), collectionDecider);
    if (childState.parent !== collectionId) continue;
    await commands.run(collectionStream(child._id), collectionDecider, { kind: 'TransferCollectionWithParent', collectionId: child._id, organizationId, now }, { caller });
  }
  const spaces = await readAll<SpaceDoc>(reads, SPACES, { parent: collectionId, purgedAt: { $exists: false } }, { position: 1 });
  for (const space of spaces) {
    const { state: spaceState } = await commands.load(spaceStream(space._id), spaceDecider);
    if (spaceState.parent !== collectionId) continue;
    await commands.run(spaceStream(space._id), spaceDecider, { kind: 'TransferSpaceWithCollection', spaceId: space._id, organizationId, parent: collectionId, now }, { caller });
  }
}

async function moveUpIfOrphan(event: RecordedEvent, context: ReactionContext): Promise<void> {
  const { commands, reads, caller } = context;
  const data = event.data as { parent: string | null; organizationId: string; spaceId?: string; collectionId?: string };
  if (data.parent === null) return;
  const from = data.parent;
  const { state: parentState } = await commands.load(collectionStream(from), collectionDecider);
  if (!parentState.exists || !parentState.deleted) return;
  const parent = await liveAncestor(parentState.parent, context);
  const now = commands.now().toISOString();
  if (event.type.startsWith('Space')) {
    const spaceId = data.spaceId!;
    const { state } = await commands.load(spaceStream(spaceId), spaceDecider);
    const position = positionAtEnd(await siblingsUnder(reads, state.organizationId, parent, { kind: 'space', id: spaceId }));
    await commands.run(spaceStream(spaceId), spaceDecider, { kind: 'ReparentSpace', spaceId, from, parent, position, now }, { caller });
  } else {
    const collectionId = data.collectionId!;
    const { state } = await commands.load(collectionStream(collectionId), collectionDecider);
    const position = positionAtEnd(await siblingsUnder(reads, state.organizationId, parent, { kind: 'collection', id: collectionId }));
    await commands.run(collectionStream(collectionId), collectionDecider, { kind: 'ReparentCollection', collectionId, from, parent, position, now }, { caller });
  }
}
