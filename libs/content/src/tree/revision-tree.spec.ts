import { RevisionTree } from './revision-tree';
import { TreeEditor } from './tree-editor';
import { TreeStore } from './tree-store';
import { doc, edit, generatedTree, LATER, NOW, treeFixture, type TreeFixture } from './testing/tree-fixtures';

const FILE = { id: 'f1', name: 'logo.png', contentType: 'image/png', size: 3, hash: 'a'.repeat(64), createdAt: NOW };

describe('RevisionTree', () => {
  let fixture: TreeFixture;
  beforeEach(async () => {
    fixture = await treeFixture();
  });
  afterEach(() => fixture.cleanup());

  /** guide (group) > intro, setup; faq; out (link to a URL) */
  async function smallTree(): Promise<RevisionTree> {
    const { tree } = await edit(fixture.store, RevisionTree.empty(), (editor) => {
      editor.insertPage({ id: 'guide', type: 'group', attributes: { title: 'Guide' }, now: NOW });
      editor.insertPage({ id: 'intro', type: 'document', attributes: { title: 'Intro' }, document: doc('intro'), into: 'guide', now: NOW });
      editor.insertPage({ id: 'setup', type: 'document', attributes: { title: 'Setup' }, into: 'guide', now: NOW });
      editor.insertPage({ id: 'faq', type: 'document', attributes: { title: 'FAQ', emoji: '1f914' }, now: NOW });
      editor.insertPage({
        id: 'out',
        type: 'link',
        attributes: { title: 'Status' },
        href: 'https://status.example.com',
        target: { kind: 'url', url: 'https://status.example.com' },
        now: NOW,
      });
      editor.insertFile(FILE);
      editor.setVariables({ product: 'Acme' });
    });
    return tree;
  }

  it('lists the pages depth first, each with its parent, index, depth, path and children', async () => {
    const tree = await smallTree();
    expect(tree.pages().map((page) => [page.id, page.parentId, page.index, page.depth, page.path])).toEqual([
      ['guide', null, 0, 0, 'guide'],
      ['intro', 'guide', 0, 1, 'guide/intro'],
      ['setup', 'guide', 1, 1, 'guide/setup'],
      ['faq', null, 1, 0, 'faq'],
      ['out', null, 2, 0, ''],
    ]);
    expect(tree.page('guide')?.childIds).toEqual(['intro', 'setup']);
    expect(tree.page('faq')).toMatchObject({ title: 'FAQ', emoji: '1f914', type: 'document', createdAt: NOW });
    expect(tree.page('faq')).not.toHaveProperty('children');
    expect(tree.page('faq')).not.toHaveProperty('object');
  });

  it('answers the children of a page, or of the top level for null', async () => {
    const tree = await smallTree();
    expect(tree.children(null).map((page) => page.id)).toEqual(['guide', 'faq', 'out']);
    expect(tree.children('guide').map((page) => page.id)).toEqual(['intro', 'setup']);
    expect(tree.children('intro')).toEqual([]);
    expect(tree.children('nope')).toEqual([]);
  });

  it('finds a page by its exact path only', async () => {
    const tree = await smallTree();
    expect(tree.pageByPath('guide/setup')?.id).toBe('setup');
    expect(tree.pageByPath('guide/setup/')).toBeUndefined();
    expect(tree.pageByPath('Guide/Setup')).toBeUndefined();
  });

  it('gives link pages no path, so no path finds them', async () => {
    const tree = await smallTree();
    expect(tree.page('out')).toMatchObject({ path: '', href: 'https://status.example.com' });
    expect(tree.page('out')).not.toHaveProperty('slug');
    expect(tree.pageByPath('')).toBeUndefined();
  });

  it('holds the files and the variables of the revision', async () => {
    const tree = await smallTree();
    expect(tree.files()).toEqual([FILE]);
    expect(tree.file('f1')).toEqual(FILE);
    expect(tree.file('f2')).toBeUndefined();
    expect(tree.variables).toEqual({ product: 'Acme' });
  });

  it('loads the empty tree from its well-known root without any write', async () => {
    const tree = await RevisionTree.load(fixture.store, TreeStore.EMPTY);
    expect(tree.pages()).toEqual([]);
    expect(tree.files()).toEqual([]);
    expect(fixture.blobs.puts).toEqual([]);
  });

  it('gives the same content the same root hash, however it was built', async () => {
    const insert = (editor: TreeEditor, id: string, into: string | null = null) =>
      editor.insertPage({ id, type: 'document', attributes: { title: id.toUpperCase() }, document: doc(id), into, now: NOW });
    const inOrder = await edit(fixture.store, RevisionTree.empty(), (editor) => {
      insert(editor, 'a');
      insert(editor, 'b');
      insert(editor, 'c', 'a');
    });
    // Built another way: b first then a at index 0, c created at the top and moved under a.
    const first = await edit(fixture.store, RevisionTree.empty(), (editor) => {
      insert(editor, 'b');
      insert(editor, 'c');
    });
    const second = await edit(fixture.store, first.tree, (editor) => {
      editor.insertPage({ id: 'a', type: 'document', attributes: { title: 'A' }, document: doc('a'), at: 0, now: NOW });
    });
    const third = await edit(fixture.coldStore(), second.tree, (editor) => {
      editor.movePage('c', 'a', 0, NOW);
    });
    expect(third.tree.rootHash).toBe(inOrder.tree.rootHash);
  });

  it('still shows the old content when an old root is loaded after later edits', async () => {
    const tree = await generatedTree(fixture.store, [3, 3]);
    const { tree: later } = await edit(fixture.store, tree, (editor) => {
      editor.updatePage('p1-2', { attributes: { title: 'Renamed', slug: 'renamed' }, document: doc('new body'), now: LATER });
      editor.deletePage('p2');
      editor.movePage('p3-1', null, 0, LATER);
    });
    expect(later.page('p1-2')?.title).toBe('Renamed');

    const old = await RevisionTree.load(fixture.coldStore(), tree.rootHash);
    expect(old.pages()).toEqual(tree.pages());
    expect(old.page('p1-2')).toMatchObject({ title: 'Page 1.2', path: 'page-1/page-1-2' });
    expect(old.children('p2').map((page) => page.id)).toEqual(['p2-1', 'p2-2', 'p2-3']);
    expect(old.page('p3-1')?.parentId).toBe('p3');
    expect(await fixture.coldStore().readDocument(old.page('p1-2')!.document!)).toEqual(doc('Body of p1-2'));
  });

  it('lists a subtree, the page first', async () => {
    const tree = await generatedTree(fixture.store, [2, 2]);
    expect(tree.subtreeIds('p2')).toEqual(['p2', 'p2-1', 'p2-2']);
    expect(tree.subtree('p1').map((page) => page.path)).toEqual(['page-1', 'page-1/page-1-1', 'page-1/page-1-2']);
  });
});
