import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsBlobStore } from '#blob-store/fs/fs-blob-store';
import type { SpaceEvent } from '#spaces';
import { inStream, projectionSpec } from '#testing';
import { initialRevisionId } from './content.decider';
import { touchedPages, type ContentEvent } from './content.events';
import { CONTENT_HEADS, CONTENT_LINKS, CONTENT_REVISIONS, contentProjection } from './content.projections';
import { treeStoreOf } from './content.trees';
import { markdownToDocument } from '#document';
import { RevisionTree } from './tree/revision-tree';
import { TreeEditor } from './tree/tree-editor';
import { EMPTY_TREE_ROOT } from './tree/tree-store';

const now = '2026-01-01T00:00:00.000Z';
const s = { spaceId: 's1', organizationId: 'o1' };
const initial = initialRevisionId('s1');

let dir: string;
let blobs: FsBlobStore;
/** Root hashes: target and source pages, the source linking to the target, a missing page and a web address; then the target deleted. */
let linked: string;
let targetDeleted: string;
/** A computed page on the spec `pets` whose body embeds an operation of it; then its computed source removed. */
let computed: string;
let computedRemoved: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'content-projection-'));
  blobs = new FsBlobStore(join(dir, 'blobs'));
  const store = treeStoreOf(blobs);
  const first = new TreeEditor(store, RevisionTree.empty());
  first.insertPage({
    id: 'target',
    type: 'document',
    attributes: { title: 'Target' },
    document: markdownToDocument('I am linked to.').document,
    now,
  });
  first.insertPage({
    id: 'source',
    type: 'document',
    attributes: { title: 'Source' },
    document: markdownToDocument('[t](/pages/target) [m](/pages/missing) [w](https://example.org/)').document,
    now,
  });
  linked = (await first.commit()).rootHash;
  const second = new TreeEditor(store, await RevisionTree.load(store, linked));
  second.deletePage('target');
  targetDeleted = (await second.commit()).rootHash;
  const third = new TreeEditor(store, RevisionTree.empty());
  const source = {
    type: 'builtin:openapi' as const,
    dependencies: { spec: { ref: { kind: 'openapi' as const, spec: 'pets' } } },
    props: {},
  };
  third.insertPage({
    id: 'api',
    type: 'document',
    attributes: { title: 'API', computed: source },
    document: markdownToDocument('{% openapi-operation spec="pets" path="/pets" method="get" %}').document,
    now,
  });
  computed = (await third.commit()).rootHash;
  const fourth = new TreeEditor(store, await RevisionTree.load(store, computed));
  fourth.updatePage('api', { attributes: { computed: undefined }, now });
  computedRemoved = (await fourth.commit()).rootHash;
});

afterAll(async () => {
  await blobs.close();
  rmSync(dir, { recursive: true, force: true });
});

const spec = () => projectionSpec(contentProjection, { resources: { blobs } });
const spaceCreated: SpaceEvent = {
  type: 'SpaceCreated',
  data: {
    ...s,
    title: 'Docs',
    emoji: null,
    visibility: 'private',
    editMode: 'live',
    defaultLevel: null,
    parent: null,
    position: 'V',
    createdBy: 'ada',
    createdAt: now,
  },
};
const revision = (revisionId: string, parents: string[], tree: string): ContentEvent => ({
  type: 'ContentRevisionCreated',
  data: {
    ...s,
    revisionId,
    parents,
    revisionType: 'edits',
    tree,
    createdAt: now,
    createdBy: 'ada',
    pages: touchedPages({ created: [], updated: [], deleted: [] }),
    source: { kind: 'batch' },
  },
});
const statuses = (status: string, targetKey: string) => expect.objectContaining({ sourcePage: 'source', targetKey, status });

describe('content projection', () => {
  it('given a space created, then its head is its empty initial revision', async () => {
    await spec()
      .given(inStream('space-s1', [spaceCreated]))
      .then({
        [CONTENT_HEADS]: [expect.objectContaining({ _id: 's1', revisionId: initial, tree: EMPTY_TREE_ROOT, streamRevision: -1 })],
        [CONTENT_REVISIONS]: [
          expect.objectContaining({ _id: initial, spaceId: 's1', parents: [], sequence: 0, source: { kind: 'initial' } }),
        ],
      });
  });

  it('given a revision, then it is the head and is recorded after the initial one', async () => {
    await spec()
      .given([...inStream('space-s1', [spaceCreated]), ...inStream('content-s1', [revision('r1', [initial], linked)])])
      .then({
        [CONTENT_HEADS]: [expect.objectContaining({ _id: 's1', revisionId: 'r1', tree: linked, streamRevision: 0 })],
        [CONTENT_REVISIONS]: [
          expect.objectContaining({ _id: initial }),
          expect.objectContaining({ _id: 'r1', parents: [initial], sequence: 1 }),
        ],
      });
  });

  it('given a page linking to a page, a missing page and an address, then its links with their status', async () => {
    await spec()
      .given([...inStream('space-s1', [spaceCreated]), ...inStream('content-s1', [revision('r1', [initial], linked)])])
      .then({
        [CONTENT_LINKS]: [statuses('ok', 'page:target'), statuses('broken', 'page:missing'), statuses('url', 'url:https://example.org/')],
      });
  });

  it('given the linked page deleted later, then the link into it is broken', async () => {
    await spec()
      .given([
        ...inStream('space-s1', [spaceCreated]),
        ...inStream('content-s1', [revision('r1', [initial], linked), revision('r2', ['r1'], targetDeleted)]),
      ])
      .then({
        [CONTENT_LINKS]: [
          statuses('broken', 'page:target'),
          statuses('broken', 'page:missing'),
          statuses('url', 'url:https://example.org/'),
        ],
      });
  });

  it('given the space purged, then its head and links are gone and its revisions are marked for the blob purge', async () => {
    await spec()
      .given([
        ...inStream('space-s1', [spaceCreated]),
        ...inStream('content-s1', [revision('r1', [initial], linked)]),
        ...inStream('space-s1', [{ type: 'SpacePurged', data: { ...s, title: 'Docs', purgedAt: now } }]),
      ])
      .then({
        [CONTENT_HEADS]: [],
        [CONTENT_LINKS]: [],
        [CONTENT_REVISIONS]: [
          expect.objectContaining({ _id: initial, purged: true }),
          expect.objectContaining({ _id: 'r1', purged: true }),
        ],
      });
  });

  it('given a revision whose blobs are gone (a purged space replayed), then it is recorded without links', async () => {
    await spec()
      .given([...inStream('space-s1', [spaceCreated]), ...inStream('content-s1', [revision('r1', [initial], 'f'.repeat(64))])])
      .then({ [CONTENT_HEADS]: [expect.objectContaining({ revisionId: 'r1' })], [CONTENT_LINKS]: [] });
  });

  it('given a computed page, then its spec is one of its references, indexed by the organization', async () => {
    await spec()
      .given([...inStream('space-s1', [spaceCreated]), ...inStream('content-s1', [revision('r1', [initial], computed)])])
      .then({
        [CONTENT_LINKS]: [
          expect.objectContaining({ sourcePage: 'api', organizationId: 'o1', targetKey: 'openapi:pets', key: expect.any(String) }),
          expect.objectContaining({
            sourcePage: 'api',
            organizationId: 'o1',
            targetKey: 'openapi:pets',
            target: { kind: 'openapi', spec: 'pets' },
            status: 'ok',
          }),
        ],
      });
  });

  it("given a computed source removed with the body left as it was, then only the body's reference stays", async () => {
    await spec()
      .given([
        ...inStream('space-s1', [spaceCreated]),
        ...inStream('content-s1', [revision('r1', [initial], computed), revision('r2', ['r1'], computedRemoved)]),
      ])
      .then({ [CONTENT_LINKS]: [expect.objectContaining({ sourcePage: 'api', targetKey: 'openapi:pets', key: expect.any(String) })] });
  });

  it('given the space transferred, then its head and its links follow it to the new organization', async () => {
    const transferred: SpaceEvent = {
      type: 'SpaceTransferred',
      data: {
        spaceId: 's1',
        fromOrganizationId: 'o1',
        organizationId: 'o2',
        parent: null,
        position: 'V',
        visibility: 'private',
        transferredAt: now,
      },
    };
    await spec()
      .given([
        ...inStream('space-s1', [spaceCreated]),
        ...inStream('content-s1', [revision('r1', [initial], computed)]),
        ...inStream('space-s1', [transferred]),
      ])
      .then({
        [CONTENT_HEADS]: [expect.objectContaining({ _id: 's1', organizationId: 'o2' })],
        [CONTENT_LINKS]: [expect.objectContaining({ organizationId: 'o2' }), expect.objectContaining({ organizationId: 'o2' })],
      });
  });

  it('given a dependency update recorded, then the head stays and only its stream revision moves', async () => {
    const dependencyUpdated: ContentEvent = {
      type: 'ContentDependencyUpdated',
      data: {
        ...s,
        revisionId: 'r1',
        dependency: { kind: 'openapi', spec: 'pets' },
        versionId: 'v2',
        versionCreatedAt: now,
        updatedAt: now,
      },
    };
    await spec()
      .given([...inStream('space-s1', [spaceCreated]), ...inStream('content-s1', [revision('r1', [initial], computed), dependencyUpdated])])
      .then({ [CONTENT_HEADS]: [expect.objectContaining({ _id: 's1', revisionId: 'r1', tree: computed, streamRevision: 1 })] });
  });
});
