import { BlobNotFoundError } from '#blob-store/blob-store.port';
import {
  hasSeen,
  multiDocumentProjection,
  positionKey,
  type ProjectedDoc,
  type ProjectionCollection,
  type ProjectionResources,
  type Recorded,
} from '#read-store/projections/projection';
import type { SpaceEvent } from '#spaces';
import type { ChangeRequestEvent } from '#changerequests';
import { initialRevisionId } from './content.decider';
import type { ContentEvent, RevisionSource, RevisionType } from './content.events';
import { loadedTreesOf, treeStoreOf } from './content.trees';
import type { ContentRef } from '#document/document.model';
import { documentReferences } from '#document';
import { RevisionTree } from './tree/revision-tree';
import { jsonEqual } from './tree/canonical-json';
import { changedPages } from './tree/tree-diff';
import { EMPTY_TREE_ROOT } from './tree/tree-store';

export const CONTENT_HEADS = 'content_heads';
export const CONTENT_REVISIONS = 'content_revisions';
export const CONTENT_LINKS = 'content_links';

/** A space's main line: its latest revision (the primary content). */
export interface ContentHeadDoc extends ProjectedDoc {
  /** The space's organization, following transfers: links are indexed by it. */
  organizationId: string;
  revisionId: string;
  tree: string;
  updatedAt: string;
  /** Revision of the `content-<spaceId>` stream (-1 before the first write): the content's ETag is the revision id. */
  streamRevision: number;
}

export interface RevisionDoc extends ProjectedDoc {
  spaceId: string;
  parents: string[];
  revisionType: RevisionType;
  tree: string;
  createdAt: string;
  createdBy: string | null;
  source: RevisionSource | { kind: 'initial' };
  mergedFrom?: string;
  /** Order within the space's history: 0 for the initial revision, then the stream revision + 1; -1 for a change request's revisions, which are not in main's history. */
  sequence: number;
  /** A revision of a change request's line: the request. */
  changeRequest?: string;
  /** Set when the space was purged: the purge reactor removes the blobs only this space's revisions named. */
  purged?: true;
}

/** `ok`: the target exists in the revision; `broken`: it does not; `url`: an address, judged when read (`in-app` or `ok`). */
export type StoredLinkStatus = 'ok' | 'broken' | 'url';

/** One reference from a page of a space's primary content. */
export interface LinkDoc extends ProjectedDoc {
  spaceId: string;
  /** The space's organization (following transfers): which spaces of an organization use a spec is one indexed lookup. */
  organizationId: string;
  sourcePage: string;
  /** The top-level block holding the reference; none for a page's own references (a link page's target, a computed page's spec). */
  key?: string;
  target: ContentRef;
  /** `page:<id>`, `file:<id>`, `url:<address>`, …: what backlinks and status updates look up. */
  targetKey: string;
  status: StoredLinkStatus;
}

/** What a reference points at, as one comparable string. */
export function targetKeyOf(ref: ContentRef, spaceId: string): string {
  switch (ref.kind) {
    case 'page':
      return ref.space && ref.space !== spaceId ? `space:${ref.space}:page:${ref.page}` : `page:${ref.page}`;
    case 'file':
      return ref.space && ref.space !== spaceId ? `space:${ref.space}:file:${ref.file}` : `file:${ref.file}`;
    case 'anchor':
      return ref.page && (!ref.space || ref.space === spaceId) ? `page:${ref.page}` : `anchor:${ref.anchor}`;
    case 'url':
      return `url:${ref.url}`;
    case 'space':
      return `space:${ref.space}`;
    case 'collection':
      return `collection:${ref.collection}`;
    case 'user':
      return `user:${ref.user}`;
    case 'openapi':
      return `openapi:${ref.spec}`;
  }
}

/** Status of a reference against the revision it sits in; references to other spaces and resources are not checked here. */
export function statusIn(tree: RevisionTree, targetKey: string): StoredLinkStatus {
  if (targetKey.startsWith('page:')) return tree.page(targetKey.slice(5)) ? 'ok' : 'broken';
  if (targetKey.startsWith('file:')) return tree.file(targetKey.slice(5)) ? 'ok' : 'broken';
  // A relative address resolves to nothing in a revision (an import's link to a file it did not contain).
  if (targetKey.startsWith('url:')) return /^[a-z][a-z0-9+.-]*:/i.test(targetKey.slice(4)) ? 'url' : 'broken';
  return 'ok';
}

const linkId = (spaceId: string, pageId: string, index: number) => `${spaceId}:${pageId}:${index}`;

/**
 * Replaces the outgoing links of every page that changed, and re-judges links into pages and files
 * that appeared or disappeared. A computed page's spec is one of its references (after those of its
 * body), so the spaces that use a spec are found like the pages that link to a page.
 */
async function updateLinks(
  space: { spaceId: string; organizationId: string },
  before: RevisionTree,
  after: RevisionTree,
  links: ProjectionCollection<LinkDoc>,
  resources: ProjectionResources,
): Promise<void> {
  const { spaceId, organizationId } = space;
  const store = treeStoreOf(resources.blobs);
  const { upserts, removes } = changedPages(before, after);
  const put = (sourcePage: string, index: number, target: ContentRef, key?: string) => {
    const targetKey = targetKeyOf(target, spaceId);
    return links.put({
      _id: linkId(spaceId, sourcePage, index),
      spaceId,
      organizationId,
      sourcePage,
      ...(key !== undefined ? { key } : {}),
      target,
      targetKey,
      status: statusIn(after, targetKey),
    });
  };
  for (const pageId of removes) await links.deleteMany({ spaceId, sourcePage: pageId });
  for (const page of upserts) {
    const previous = before.page(page.id);
    // A move or a rename leaves the body and the computed source, and so the page's outgoing links, as they were.
    if (previous && previous.document === page.document && jsonEqual(previous.computed, page.computed)) continue;
    await links.deleteMany({ spaceId, sourcePage: page.id });
    if (page.type === 'link' && page.target) {
      await put(page.id, 0, page.target);
      continue;
    }
    const references = page.document ? documentReferences(await store.readDocument(page.document)) : [];
    for (const [index, { ref, key }] of references.entries()) await put(page.id, index, ref, key);
    if (page.computed) await put(page.id, references.length, page.computed.dependencies.spec.ref);
  }
  const appeared = [
    ...upserts.filter((page) => !before.page(page.id)).map((page) => `page:${page.id}`),
    ...after
      .files()
      .filter((file) => !before.file(file.id))
      .map((file) => `file:${file.id}`),
  ];
  const vanished = [
    ...removes.map((id) => `page:${id}`),
    ...before
      .files()
      .filter((file) => !after.file(file.id))
      .map((file) => `file:${file.id}`),
  ];
  if (appeared.length > 0) await links.updateMany({ spaceId, targetKey: { $in: appeared } }, { $set: { status: 'ok' } });
  if (vanished.length > 0) await links.updateMany({ spaceId, targetKey: { $in: vanished } }, { $set: { status: 'broken' } });
}

/**
 * The content read models: each space's head (every space starts with its empty initial
 * revision, so SpaceCreated writes one), its revisions for the history, and the links of its
 * primary content, recomputed only for the pages a revision changed (their bodies are read from
 * the blob store, named by the event's tree hash).
 */
export const contentProjection = multiDocumentProjection<ContentEvent | SpaceEvent | ChangeRequestEvent>({
  name: 'content',
  collections: [CONTENT_HEADS, CONTENT_REVISIONS, CONTENT_LINKS],
  indexes: [
    { collection: CONTENT_REVISIONS, fields: { spaceId: 1, sequence: -1 } },
    { collection: CONTENT_REVISIONS, fields: { purged: 1 } },
    { collection: CONTENT_LINKS, fields: { spaceId: 1, sourcePage: 1 } },
    { collection: CONTENT_LINKS, fields: { spaceId: 1, targetKey: 1 } },
    { collection: CONTENT_LINKS, fields: { spaceId: 1, status: 1 } },
    { collection: CONTENT_LINKS, fields: { organizationId: 1, targetKey: 1 } },
  ],
  handles: [
    'SpaceCreated',
    'SpaceTransferred',
    'SpacePurged',
    'ContentRevisionCreated',
    'ContentDependencyUpdated',
    'ChangeRequestContentEdited',
    'ChangeRequestUpdated',
  ],
  async apply(event: Recorded<ContentEvent | SpaceEvent | ChangeRequestEvent>, documents, resources) {
    const heads = documents.collection<ContentHeadDoc>(CONTENT_HEADS);
    const revisions = documents.collection<RevisionDoc>(CONTENT_REVISIONS);
    const links = documents.collection<LinkDoc>(CONTENT_LINKS);
    switch (event.type) {
      case 'SpaceCreated': {
        const { spaceId, createdAt } = event.data;
        const revisionId = initialRevisionId(spaceId);
        if (await heads.get(spaceId)) return;
        await heads.put({
          _id: spaceId,
          organizationId: event.data.organizationId,
          revisionId,
          tree: EMPTY_TREE_ROOT,
          updatedAt: createdAt,
          streamRevision: -1,
        });
        await revisions.put({
          _id: revisionId,
          spaceId,
          parents: [],
          revisionType: 'edits',
          tree: EMPTY_TREE_ROOT,
          createdAt,
          createdBy: event.data.createdBy,
          source: { kind: 'initial' },
          sequence: 0,
        });
        return;
      }
      case 'SpaceTransferred': {
        const { spaceId, organizationId } = event.data;
        if (!(await heads.get(spaceId))) return;
        await heads.update(spaceId, { $set: { organizationId } });
        await links.updateMany({ spaceId }, { $set: { organizationId } });
        return;
      }
      case 'SpacePurged': {
        const { spaceId } = event.data;
        await heads.delete(spaceId);
        // Kept, marked: they tell the purge reactor which blobs the space named.
        await revisions.updateMany({ spaceId }, { $set: { purged: true } });
        await links.deleteMany({ spaceId });
        return;
      }
      case 'ContentDependencyUpdated':
        // No new revision: the stream moved on, the head did not.
        await heads.update(event.data.spaceId, { $set: { streamRevision: event.revision } });
        return;
      case 'ChangeRequestContentEdited':
      case 'ChangeRequestUpdated': {
        // A change request's revisions are the space's too: readable by id, kept until the space is purged.
        const { revision, spaceId, changeRequestId } = event.data;
        const createdAt = event.type === 'ChangeRequestUpdated' ? event.data.updatedAt : event.data.editedAt;
        const createdBy = event.type === 'ChangeRequestUpdated' ? event.data.updatedBy : event.data.editedBy;
        await revisions.put({
          _id: revision.revisionId,
          spaceId,
          parents: revision.parents,
          revisionType: revision.revisionType,
          tree: revision.tree,
          createdAt,
          createdBy,
          source: revision.source,
          sequence: -1,
          changeRequest: changeRequestId,
        });
        return;
      }
      case 'ContentRevisionCreated': {
        const data = event.data;
        const head = await heads.get(data.spaceId);
        // Applied already (a redelivery): the head moved past it, and diffing the head's tree against
        // this older one would bring back links a later revision removed.
        if (head && hasSeen(head, positionKey(event.position))) return;
        await revisions.put({
          _id: data.revisionId,
          spaceId: data.spaceId,
          parents: data.parents,
          revisionType: data.revisionType,
          tree: data.tree,
          createdAt: data.createdAt,
          createdBy: data.createdBy,
          source: data.source,
          ...(data.mergedFrom !== undefined ? { mergedFrom: data.mergedFrom } : {}),
          sequence: event.revision + 1,
        });
        const organizationId = head?.organizationId ?? data.organizationId;
        await heads.put({
          _id: data.spaceId,
          organizationId,
          revisionId: data.revisionId,
          tree: data.tree,
          updatedAt: data.createdAt,
          streamRevision: event.revision,
        });
        const trees = loadedTreesOf(resources.blobs);
        try {
          // Derived from the head's tree along the changed hashes, never reloaded whole.
          const before = await trees.tree(head?.tree ?? EMPTY_TREE_ROOT);
          const after = await trees.tree(data.tree, before);
          await updateLinks({ spaceId: data.spaceId, organizationId }, before, after, links, resources);
        } catch (error) {
          // The space was purged and its blobs removed: a replay of its old revisions has nothing to link.
          if (!(error instanceof BlobNotFoundError)) throw error;
        }
        return;
      }
    }
  },
});
