import { BlobNotFoundError } from '../../blob-store/src/blob-store.port';
import { readAll } from '../../read-store/src/read-all';
import type { ReadStore } from '../../read-store/src/read-store.port';
import type { ReactionContext, Reactor } from '../../runtime/src/reactor';
import type { SpaceEvent } from '../../spaces/src';
import { ContentCommands } from './content.commands';
import { CONTENT_HEADS, CONTENT_REVISIONS, type ContentHeadDoc, type RevisionDoc } from './content.projections';
import { ContentTrees } from './content.trees';
import { EMPTY_TREE_ROOT, TreeStore } from './tree/tree-store';

type Data<T extends SpaceEvent['type']> = Extract<SpaceEvent, { type: T }>['data'];

/**
 * What the space's lifecycle does to content, across streams:
 * - a duplicated space takes its source's content along: the copy's first revision is the source's
 *   head tree (every blob shared). `copyContent` writes only while the copy has no content, so a
 *   redelivered event appends nothing;
 * - a purged space's blobs are removed, but only those no other revision names (content is shared
 *   by hash across spaces: duplicates, identical bodies). Deleting what is already gone is nothing,
 *   so a redelivered purge is harmless.
 */
export const contentReactor: Reactor = {
  name: 'content-lifecycle',
  handles: ['SpaceCreated', 'SpacePurged'],
  async react(event, context) {
    if (event.type === 'SpaceCreated') return copyDuplicatedContent(event.data as Data<'SpaceCreated'>, context);
    if (event.type === 'SpacePurged') return removePurgedBlobs((event.data as Data<'SpacePurged'>).spaceId, context);
  },
};

async function copyDuplicatedContent(data: Data<'SpaceCreated'>, context: ReactionContext): Promise<void> {
  if (data.duplicatedFrom === undefined) return;
  const source = await context.reads.collection<ContentHeadDoc>(CONTENT_HEADS).get(data.duplicatedFrom);
  if (!source) return;
  await context.services.get(ContentCommands).copyContent(data.spaceId, source.tree, source.revisionId, data.duplicatedFrom, context.caller);
}

/** Every blob a tree names (its root, nodes, bodies, file list and file bytes), skipping subtrees already `seen`. */
async function collect(store: TreeStore, root: string, seen: Set<string>, found: (hash: string) => void): Promise<void> {
  const visit = (hash: string): boolean => {
    if (seen.has(hash)) return false;
    seen.add(hash);
    found(hash);
    return true;
  };
  try {
    if (!visit(root)) return;
    const tree = await store.readRoot(root);
    if (visit(tree.files)) for (const file of (await store.readFiles(tree.files)).files) visit(file.hash);
    const walk = async (hashes: readonly string[]): Promise<void> => {
      for (const hash of hashes) {
        if (!visit(hash)) continue;
        const node = await store.readNode(hash);
        if (node.document !== undefined) visit(node.document);
        await walk(node.children);
      }
    };
    await walk(tree.pages);
  } catch (error) {
    // A part already removed (a purge redelivered after it deleted some blobs) names nothing more.
    if (!(error instanceof BlobNotFoundError)) throw error;
  }
}

async function removePurgedBlobs(spaceId: string, context: ReactionContext): Promise<void> {
  const trees = context.services.get(ContentTrees);
  const purged = await readAll<RevisionDoc>(context.reads, CONTENT_REVISIONS, { spaceId, purged: true });
  const candidates = new Set<string>();
  const seen = new Set<string>([EMPTY_TREE_ROOT, TreeStore.EMPTY_FILES]);
  for (const revision of purged) await collect(trees.store, revision.tree, seen, (hash) => candidates.add(hash));
  if (candidates.size === 0) return;
  // Everything any other revision names stays; shared subtrees are walked once.
  const kept = new Set<string>();
  for await (const revision of liveRevisions(context.reads)) {
    if (revision.spaceId === spaceId) continue;
    await collect(trees.store, revision.tree, kept, (hash) => candidates.delete(hash));
    if (candidates.size === 0) return;
  }
  for (const hash of candidates) await trees.blobs.delete(hash);
}

async function* liveRevisions(reads: ReadStore): AsyncGenerator<RevisionDoc> {
  let after: string | undefined;
  do {
    const page = await reads.collection<RevisionDoc>(CONTENT_REVISIONS).find({ purged: { $exists: false } }, { limit: 1000, after, count: false });
    yield* page.items;
    after = page.next;
  } while (after !== undefined);
}
