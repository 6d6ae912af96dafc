import { BlobNotFoundError } from '#blob-store/blob-store.port';
import { readAll } from '#read-store/read-all';
import type { ReadStore } from '#read-store/read-store.port';
import type { ReactionContext, Reactor } from '#runtime/reactor';
import type { OpenapiSpecEvent } from '#openapi';
import type { SpaceEvent } from '#spaces';
import { CONTENT_OPENAPI, type ContentOpenapi } from './content.needs';
import { removeSpacePdfs } from './content-pdfs';
import { CopyContent, RecordDependencyUpdate } from './content.commands';
import type { ContentDependency } from './content.events';
import {
  CONTENT_HEADS,
  CONTENT_LINKS,
  CONTENT_REVISIONS,
  targetKeyOf,
  type ContentHeadDoc,
  type LinkDoc,
  type RevisionDoc,
} from './content.projections';
import { ContentTrees } from './content.trees';
import { EMPTY_TREE_ROOT, TreeStore } from './tree/tree-store';

/**
 * What the space's lifecycle does to content, across streams:
 * - a duplicated space takes its source's content along: the copy's first revision is the source's
 *   head tree (every blob shared). `CopyContent` writes only while the copy has no content, so a
 *   redelivered event appends nothing;
 * - a purged space's blobs are removed, but only those no other revision names (content is shared
 *   by hash across spaces: duplicates, identical bodies), and its PDFs (content-pdfs.ts). Deleting
 *   what is already gone is nothing, so a redelivered purge is harmless.
 */
export const contentReactor: Reactor<SpaceEvent> = {
  name: 'content-lifecycle',
  handles: ['SpaceCreated', 'SpacePurged'],
  async react(event, context) {
    switch (event.type) {
      case 'SpaceCreated':
        return copyDuplicatedContent(event.data, context);
      case 'SpacePurged':
        return removePurgedBlobs(event.data.spaceId, context);
    }
  },
};

async function copyDuplicatedContent(created: { spaceId: string; duplicatedFrom?: string }, context: ReactionContext): Promise<void> {
  if (created.duplicatedFrom === undefined) return;
  const source = await context.reads.collection<ContentHeadDoc>(CONTENT_HEADS).get(created.duplicatedFrom);
  if (!source) return;
  await context.commandBus.execute(
    new CopyContent(created.spaceId, source.tree, source.revisionId, created.duplicatedFrom, context.caller),
  );
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
  await removeSpacePdfs(spaceId, context.reads, trees.blobs);
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
    const page = await reads
      .collection<RevisionDoc>(CONTENT_REVISIONS)
      .find({ purged: { $exists: false } }, { limit: 1000, after, count: false });
    yield* page.items;
    after = page.next;
  } while (after !== undefined);
}

/**
 * A new version of an OpenAPI spec changes what the pages using it show (operation blocks and
 * computed pages, resolved when read): each space of the organization whose primary content uses
 * the spec (content's link index, `openapi:<slug>`, one indexed lookup) records it on its stream,
 * `ContentDependencyUpdated`, from which integrations derive `space_content_updated`. Only while
 * the version is still the spec's newest and the spec is not deleted; the decider records a
 * version once per space, and not when a revision written after the version showed it already, so
 * a redelivered or replayed event appends nothing.
 */
export const contentDependenciesReactor: Reactor<OpenapiSpecEvent> = {
  name: 'content-dependencies',
  handles: ['OpenAPISpecVersionCreated'],
  async react(event, context) {
    if (event.type !== 'OpenAPISpecVersionCreated') return;
    const data = event.data;
    const version = await context.services.get<ContentOpenapi>(CONTENT_OPENAPI).specVersion(data.specId, data.versionId);
    if (!version || !version.newest || version.organizationId !== data.organizationId) return;
    const dependency: ContentDependency = { kind: 'openapi', spec: version.slug };
    const links = await readAll<LinkDoc>(context.reads, CONTENT_LINKS, {
      organizationId: data.organizationId,
      targetKey: targetKeyOf(dependency, ''),
    });
    const spaceIds = [...new Set(links.map((link) => link.spaceId))].sort();
    for (const spaceId of spaceIds) {
      await context.commandBus.execute(
        new RecordDependencyUpdate(
          spaceId,
          data.organizationId,
          dependency,
          { versionId: data.versionId, createdAt: data.createdAt },
          context.caller,
        ),
      );
    }
  },
};
