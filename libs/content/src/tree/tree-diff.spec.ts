import { RevisionTree } from './revision-tree';
import { changedPages, diffTrees, longestIncreasingRun, type SemanticChange } from './tree-diff';
import { doc, edit, generatedTree, LATER, NOW, treeFixture, type TreeFixture } from './testing/tree-fixtures';

const FILE = { id: 'f1', name: 'logo.png', contentType: 'image/png', size: 3, hash: 'a'.repeat(64), createdAt: NOW };

describe('diffTrees', () => {
  let fixture: TreeFixture;
  let base: RevisionTree;
  beforeAll(async () => {
    fixture = await treeFixture();
    base = await generatedTree(fixture.store, [3, 3, 2]);
  });
  afterAll(() => fixture.cleanup());

  const changesOf = async (change: Parameters<typeof edit>[2], from = base): Promise<SemanticChange[]> =>
    diffTrees(from, (await edit(fixture.store, from, change)).tree);

  it('reports a created page with its parent', async () => {
    expect(
      await changesOf((editor) => editor.insertPage({ id: 'new', type: 'document', attributes: { title: 'New' }, into: 'p2', now: LATER })),
    ).toEqual([{ type: 'page_created', page: { id: 'new', type: 'document', title: 'New', path: 'page-2/new' }, parent: 'p2' }]);
  });

  it('reports every page of a first revision as created (no before)', async () => {
    const changes = diffTrees(null, base);
    expect(changes).toHaveLength(base.size);
    expect(changes.every((change) => change.type === 'page_created')).toBe(true);
  });

  it('reports an edited page with each changed attribute before and after, the body as hashes', async () => {
    const after = (
      await edit(fixture.store, base, (editor) =>
        editor.updatePage('p1-2', {
          attributes: {
            title: 'Edited',
            description: 'About it',
            emoji: '1f600',
            cover: { hash: 'c' },
            layout: { width: 'wide' },
            variables: { x: '1' },
          },
          document: doc('new body'),
          now: LATER,
        }),
      )
    ).tree;
    expect(diffTrees(base, after)).toEqual([
      {
        type: 'page_edited',
        page: { id: 'p1-2', type: 'document', title: 'Edited', path: 'page-1/page-1-2' },
        attributes: {
          title: { before: 'Page 1.2', after: 'Edited' },
          description: { before: null, after: 'About it' },
          document: { before: base.page('p1-2')!.document, after: after.page('p1-2')!.document },
          emoji: { before: null, after: '1f600' },
          cover: { before: null, after: { hash: 'c' } },
          layout: { before: null, after: { width: 'wide' } },
          variables: { before: null, after: { x: '1' } },
        },
      },
    ]);
  });

  it('reports a computed source set on a page as an edited attribute', async () => {
    const computed = {
      type: 'builtin:openapi' as const,
      dependencies: { spec: { ref: { kind: 'openapi' as const, spec: 'pets' } } },
      props: {},
    };
    expect(await changesOf((editor) => editor.updatePage('p1-2', { attributes: { computed }, now: LATER }))).toEqual([
      {
        type: 'page_edited',
        page: { id: 'p1-2', type: 'document', title: 'Page 1.2', path: 'page-1/page-1-2' },
        attributes: { computed: { before: null, after: computed } },
      },
    ]);
  });

  it('reports a slug change with the page path before and after', async () => {
    expect(await changesOf((editor) => editor.updatePage('p1', { attributes: { slug: 'basics' }, now: LATER }))).toEqual([
      {
        type: 'page_edited',
        page: { id: 'p1', type: 'document', title: 'Page 1', path: 'basics' },
        attributes: { slug: { before: 'page-1', after: 'basics' } },
        path: { before: 'page-1', after: 'basics' },
      },
    ]);
  });

  it('reports nothing for a page whose only change is its update time', async () => {
    expect(await changesOf((editor) => editor.updatePage('p1', { attributes: {}, now: LATER }))).toEqual([]);
  });

  it('reports a deleted page and each of its subpages, as they were', async () => {
    expect(await changesOf((editor) => editor.deletePage('p3-1'))).toEqual([
      { type: 'page_deleted', page: { id: 'p3-1', type: 'document', title: 'Page 3.1', path: 'page-3/page-3-1' } },
      { type: 'page_deleted', page: { id: 'p3-1-1', type: 'document', title: 'Page 3.1.1', path: 'page-3/page-3-1/page-3-1-1' } },
      { type: 'page_deleted', page: { id: 'p3-1-2', type: 'document', title: 'Page 3.1.2', path: 'page-3/page-3-1/page-3-1-2' } },
    ]);
  });

  it('reports a moved page once, with its parents, indexes and paths, not its subpages', async () => {
    expect(await changesOf((editor) => editor.movePage('p1-1', 'p3', 0, LATER))).toEqual([
      {
        type: 'page_moved',
        page: { id: 'p1-1', type: 'document', title: 'Page 1.1', path: 'page-3/page-1-1' },
        parent: { before: 'p1', after: 'p3' },
        index: { before: 0, after: 0 },
        path: { before: 'page-1/page-1-1', after: 'page-3/page-1-1' },
      },
    ]);
  });

  it('reports only the page that moved among its siblings, not those it shifted', async () => {
    const changes = await changesOf((editor) => editor.movePage('p3', null, 0, LATER));
    expect(changes.map((change) => [change.type, 'page' in change ? change.page.id : ''])).toEqual([['page_moved', 'p3']]);
    const inserted = await changesOf((editor) =>
      editor.insertPage({ id: 'new', type: 'group', attributes: { title: 'New' }, at: 0, now: LATER }),
    );
    expect(inserted.map((change) => change.type)).toEqual(['page_created']);
  });

  it('reports created, edited and deleted files', async () => {
    const withFiles = (
      await edit(fixture.store, base, (editor) => {
        editor.insertFile(FILE);
        editor.insertFile({ ...FILE, id: 'f2', name: 'old.png' });
      })
    ).tree;
    const changes = await changesOf((editor) => {
      editor.updateFile('f1', { name: 'brand.png', size: 4 });
      editor.deleteFile('f2');
      editor.insertFile({ ...FILE, id: 'f3', name: 'new.png' });
    }, withFiles);
    expect(changes).toEqual([
      {
        type: 'file_edited',
        file: { id: 'f1', name: 'brand.png' },
        attributes: { name: { before: 'logo.png', after: 'brand.png' }, size: { before: 3, after: 4 } },
      },
      { type: 'file_created', file: { id: 'f3', name: 'new.png' } },
      { type: 'file_deleted', file: { id: 'f2', name: 'old.png' } },
    ]);
  });

  it('reports changed space variables', async () => {
    expect(await changesOf((editor) => editor.setVariables({ version: '2' }))).toEqual([
      { type: 'variables_edited', variables: { before: {}, after: { version: '2' } } },
    ]);
  });
});

describe('skipping unchanged subtrees', () => {
  let fixture: TreeFixture;
  let before: RevisionTree;
  let after: RevisionTree;
  beforeAll(async () => {
    fixture = await treeFixture();
    before = await generatedTree(fixture.store, [6, 6, 6]);
    after = (
      await edit(fixture.store, before, (editor) =>
        editor.updatePage('p4-5-6', { attributes: { title: 'Edited' }, document: doc('edited'), now: LATER }),
      )
    ).tree;
  });
  afterAll(() => fixture.cleanup());

  /** The ids whose node hash a comparison asked for, in either tree. */
  function looked(compare: () => unknown): Set<string> {
    const ids = new Set<string>();
    const spies = [before, after].map((tree) => {
      const nodeHash = tree.nodeHash.bind(tree);
      return jest.spyOn(tree, 'nodeHash').mockImplementation((id: string) => {
        ids.add(id);
        return nodeHash(id);
      });
    });
    compare();
    spies.forEach((spy) => spy.mockRestore());
    return ids;
  }

  it('diffTrees looks at the top level and the siblings along the edited path only', () => {
    // 6 top-level pages, the 6 under p4, the 6 under p4-5: of 258.
    expect(looked(() => expect(diffTrees(before, after)).toHaveLength(1)).size).toBe(18);
  });

  it('changedPages looks at the top level and the siblings along the edited path only', () => {
    expect(looked(() => expect(changedPages(before, after).upserts.map((page) => page.id)).toEqual(['p4-5-6'])).size).toBe(18);
  });
});

describe('changedPages', () => {
  let fixture: TreeFixture;
  let base: RevisionTree;
  beforeAll(async () => {
    fixture = await treeFixture();
    base = await generatedTree(fixture.store, [3, 3, 2]);
  });
  afterAll(() => fixture.cleanup());

  const changed = async (change: Parameters<typeof edit>[2]) => changedPages(base, (await edit(fixture.store, base, change)).tree);
  const ids = (result: { upserts: Array<{ id: string }> }) => result.upserts.map((page) => page.id);

  it('lists a moved page and every page under it, whose paths all changed', async () => {
    const result = await changed((editor) => editor.movePage('p1-1', 'p3', undefined, LATER));
    // p1-1's former younger siblings moved up an index; p3's children are as they were.
    expect(ids(result)).toEqual(['p1-2', 'p1-3', 'p1-1', 'p1-1-1', 'p1-1-2']);
    expect(result.upserts.find((page) => page.id === 'p1-1-2')?.path).toBe('page-3/page-1-1/page-1-1-2');
    expect(result.removes).toEqual([]);
  });

  it('lists every page under a page whose slug changed', async () => {
    const result = await changed((editor) => editor.updatePage('p2', { attributes: { slug: 'two' }, now: LATER }));
    expect(ids(result)).toEqual(base.subtreeIds('p2'));
    expect(result.upserts.every((page) => page.path.startsWith('two'))).toBe(true);
  });

  it('lists only the edited page for a body edit, not its ancestors', async () => {
    const result = await changed((editor) => editor.updatePage('p3-2-1', { document: doc('changed'), now: LATER }));
    expect(ids(result)).toEqual(['p3-2-1']);
  });

  it('lists the siblings an insert shifted, since their index changed', async () => {
    const result = await changed((editor) =>
      editor.insertPage({ id: 'new', type: 'document', attributes: { title: 'New' }, into: 'p1', at: 1, now: LATER }),
    );
    expect(ids(result)).toEqual(['new', 'p1-2', 'p1-3']);
  });

  it('gives the ids of the pages that are gone, subpages included', async () => {
    const result = await changed((editor) => editor.deletePage('p2-3'));
    expect(result.removes).toEqual(['p2-3', 'p2-3-1', 'p2-3-2']);
    expect(ids(result)).toEqual([]);
  });

  it('lists every page of a first revision', () => {
    expect(ids(changedPages(null, base))).toEqual(base.pages().map((page) => page.id));
  });
});

describe('longestIncreasingRun', () => {
  it('finds the longest run of values in increasing order', () => {
    expect([...longestIncreasingRun([0, 1, 2, 3])].sort()).toEqual([0, 1, 2, 3]);
    expect([...longestIncreasingRun([3, 0, 1, 2])].sort()).toEqual([1, 2, 3]);
    expect([...longestIncreasingRun([])]).toEqual([]);
  });
});
