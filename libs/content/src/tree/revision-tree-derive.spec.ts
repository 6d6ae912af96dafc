import { RevisionTree } from './revision-tree';
import { TreeEditor } from './tree-editor';
import { TreeStore } from './tree-store';
import { doc, generatedTree, LATER, NOW, refusal, treeFixture, type TreeFixture } from './testing/tree-fixtures';

/** A small seeded generator (mulberry32): the same edits on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Everything a tree answers, page by page, for comparing two trees node for node. */
function answers(tree: RevisionTree): unknown {
  const ids = tree.pages().map((page) => page.id);
  return {
    rootHash: tree.rootHash,
    size: tree.size,
    top: tree.topLevelHashes(),
    filesHash: tree.filesHash,
    files: tree.files(),
    variables: tree.variables,
    pages: tree.pages(),
    topLevel: tree.childIds(null),
    byId: ids.map((id) => ({
      id,
      node: tree.node(id),
      nodeHash: tree.nodeHash(id),
      parentId: tree.parentId(id),
      childIds: tree.childIds(id),
      subtree: tree.subtreeIds(id),
      path: tree.path(id),
      depth: tree.depth(id),
      index: tree.index(id),
      byPath: tree.pageByPath(tree.path(id) ?? '')?.id,
    })),
  };
}

describe('RevisionTree.derive', () => {
  let fixture: TreeFixture;
  beforeEach(async () => {
    fixture = await treeFixture();
  });
  afterEach(() => fixture.cleanup());

  it('derives, for random sequences of edits, the very tree a load of the same root gives', async () => {
    const random = seeded(20260101);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const history: RevisionTree[] = [await generatedTree(fixture.store, [3, 3, 3])];
    let derived = history[0];
    let next = 0;
    for (let step = 0; step < 60; step++) {
      const editor = new TreeEditor(fixture.store, derived);
      // Most edits keep the same time, so that a page moved unchanged keeps its node hash.
      const now = random() < 0.7 ? NOW : LATER;
      const operations = 1 + Math.floor(random() * 5);
      for (let o = 0; o < operations; o++) {
        const ids = [...derived.pages().map((page) => page.id), ...Array.from({ length: next }, (_, i) => `n${i}`)].filter((id) =>
          editor.has(id),
        );
        const id = ids.length > 0 ? pick(ids) : undefined;
        const parent = random() < 0.2 || id === undefined ? null : id;
        const operation = pick(['insert', 'insert', 'update', 'move', 'move', 'delete', 'revert', 'link', 'file', 'variables'] as const);
        refusal(() => {
          switch (operation) {
            case 'insert':
              editor.insertPage({
                id: `n${next++}`,
                type: 'document',
                attributes: { title: `New ${next}` },
                document: doc(`body ${next}`),
                into: parent,
                at: random() < 0.5 ? 0 : undefined,
                now,
              });
              return;
            case 'link':
              editor.insertPage({
                id: `n${next++}`,
                type: 'link',
                attributes: { title: `Link ${next}` },
                href: 'https://example.com',
                target: { kind: 'url', url: 'https://example.com' },
                into: parent,
                now,
              });
              return;
            case 'update':
              if (id)
                editor.updatePage(id, {
                  attributes: random() < 0.5 ? { title: `Retitled ${step}` } : { slug: `slug-${step}` },
                  ...(random() < 0.5 ? { document: doc(`edited ${step}`) } : {}),
                  now,
                });
              return;
            case 'move':
              if (id) editor.movePage(id, random() < 0.3 ? null : pick(ids), random() < 0.5 ? 0 : undefined, now);
              return;
            case 'delete':
              if (id && random() < 0.5) editor.deletePage(id);
              return;
            case 'revert':
              if (id) editor.revertPage(id, pick(history), now);
              return;
            case 'file':
              editor.insertFile({
                id: `f${step}-${o}`,
                name: `f${step}.png`,
                contentType: 'image/png',
                size: 1,
                hash: 'b'.repeat(64),
                createdAt: now,
              });
              return;
            case 'variables':
              editor.setVariables({ step: String(step) });
              return;
          }
        });
      }
      const { rootHash } = await editor.commit();
      derived = await RevisionTree.derive(fixture.store, derived, rootHash);
      // Loaded whole by a cold store, as a restarted process would.
      const loaded = await RevisionTree.load(fixture.coldStore(), rootHash);
      expect(answers(derived)).toEqual(answers(loaded));
      history.push(loaded);
    }
  });

  it('derives a tree from any other tree of the store, not only its parent', async () => {
    const base = await generatedTree(fixture.store, [2, 2]);
    const editor = new TreeEditor(fixture.store, RevisionTree.empty());
    editor.insertPage({ id: 'solo', type: 'document', attributes: { title: 'Solo' }, now: NOW });
    const { rootHash } = await editor.commit();

    const derived = await RevisionTree.derive(fixture.store, base, rootHash);

    expect(answers(derived)).toEqual(answers(await RevisionTree.load(new TreeStore(fixture.blobs), rootHash)));
  });

  it('answers the previous tree itself for the same root', async () => {
    const base = await generatedTree(fixture.store, [2]);

    expect(await RevisionTree.derive(fixture.store, base, base.rootHash)).toBe(base);
  });
});
