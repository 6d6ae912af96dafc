import { RevisionTree } from './revision-tree';
import { TreeEditor } from './tree-editor';
import { doc, edit, generatedTree, LATER, NOW, refusal, treeFixture, type TreeFixture } from './testing/tree-fixtures';

const FILE = { id: 'f1', name: 'logo.png', contentType: 'image/png', size: 3, hash: 'a'.repeat(64), createdAt: NOW };

describe('TreeEditor', () => {
  let fixture: TreeFixture;
  beforeEach(async () => {
    fixture = await treeFixture();
  });
  afterEach(() => fixture.cleanup());

  const editorOn = (tree: RevisionTree) => new TreeEditor(fixture.store, tree);
  const page = (editor: TreeEditor, id: string, title: string, into: string | null = null, slug?: string) =>
    editor.insertPage({ id, type: 'document', attributes: { title, ...(slug ? { slug } : {}) }, into, now: NOW });

  describe('structural sharing', () => {
    it('writes only the edited page, its ancestors, its new body and the root for a one-page edit', async () => {
      const tree = await generatedTree(fixture.store, [5, 5, 5]);
      const putsBefore = fixture.blobs.puts.length;
      const { tree: after, commit } = await edit(fixture.store, tree, (editor) => {
        editor.updatePage('p2-3-4', { attributes: { title: 'Edited' }, document: doc('edited body'), now: LATER });
      });

      const depth = tree.page('p2-3-4')!.depth;
      expect(commit.nodesWritten).toBe(depth + 1);
      expect(commit.blobsWritten).toBe(depth + 1 + 1 + 1);
      const written = fixture.blobs.puts.slice(putsBefore);
      expect(written).toHaveLength(commit.blobsWritten);
      expect(commit.bytesWritten).toBe(written.reduce((total, blob) => total + blob.size, 0));
      expect(new Set(written.map((blob) => blob.hash))).toEqual(
        new Set([after.rootHash, after.nodeHash('p2-3-4'), after.nodeHash('p2-3'), after.nodeHash('p2'), after.page('p2-3-4')!.document]),
      );
      // Every other page is shared with the old revision by hash.
      const rewritten = after
        .pages()
        .filter((view) => view.nodeHash !== tree.nodeHash(view.id))
        .map((view) => view.id);
      expect(rewritten.sort()).toEqual(['p2', 'p2-3', 'p2-3-4']);
    });

    it('stores every blob of a commit at once, not one level of the tree after another', async () => {
      const tree = await generatedTree(fixture.store, [5, 5, 5]);
      fixture.blobs.mostInFlight = 0;
      const { commit } = await edit(fixture.store, tree, (editor) => {
        editor.updatePage('p2-3-4', { attributes: { title: 'Edited' }, document: doc('edited body'), now: LATER });
      });
      expect(fixture.blobs.mostInFlight).toBe(commit.blobsWritten);
    });

    it('given a commit whose blobs could not all be stored, when committed again, then the new revision is complete', async () => {
      const tree = await generatedTree(fixture.store, [3, 3]);
      const editor = editorOn(tree);
      editor.updatePage('p1-2', { attributes: { title: 'Edited' }, document: doc('edited body'), now: LATER });
      fixture.blobs.failAfter = 2;
      await expect(editor.commit()).rejects.toThrow(/ENOSPC/);
      fixture.blobs.failAfter = undefined;
      const { rootHash } = await editor.commit();
      const reread = await RevisionTree.load(fixture.coldStore(), rootHash);
      expect(reread.page('p1-2')!.title).toBe('Edited');
      expect(await fixture.coldStore().readDocument(reread.page('p1-2')!.document!)).toEqual(doc('edited body'));
    });

    it('writes nothing for a batch that changes nothing', async () => {
      const tree = await generatedTree(fixture.store, [2, 2]);
      const { commit } = await edit(fixture.store, tree, () => undefined);
      expect(commit).toEqual({ rootHash: tree.rootHash, bytesWritten: 0, nodesWritten: 0, blobsWritten: 0 });
    });

    it('gives the same tree for a batch as for its operations committed one by one', async () => {
      const tree = await generatedTree(fixture.store, [4, 4, 3]);
      const operations: Array<(editor: TreeEditor) => void> = [];
      for (let i = 1; i <= 4; i++) {
        operations.push((editor) =>
          editor.updatePage(`p${i}-1-1`, { attributes: { title: `Edited ${i}` }, document: doc(`edit ${i}`), now: LATER }),
        );
        operations.push((editor) =>
          editor.insertPage({ id: `new${i}`, type: 'document', attributes: { title: 'New' }, into: `p${i}-2`, at: 0, now: LATER }),
        );
        operations.push((editor) => editor.movePage(`p${i}-3-1`, `p${(i % 4) + 1}-4`, 1, LATER));
        operations.push((editor) => editor.deletePage(`p${i}-1-2`));
        operations.push((editor) => editor.updatePage(`p${i}-4`, { attributes: { slug: `moved-${i}` }, now: LATER }));
      }
      const batch = editorOn(tree);
      for (const operation of operations) operation(batch);
      const { rootHash } = await batch.commit();

      let oneByOne = tree;
      for (const operation of operations) oneByOne = (await edit(fixture.store, oneByOne, operation)).tree;
      expect(rootHash).toBe(oneByOne.rootHash);
    });
  });

  describe('slugs', () => {
    it('derives a slug from the title and makes it unique among siblings', () => {
      const editor = editorOn(RevisionTree.empty());
      expect(page(editor, 'a', 'Getting Started').path).toBe('getting-started');
      expect(page(editor, 'b', 'Getting started!').path).toBe('getting-started-2');
      expect(page(editor, 'c', 'Getting  Started').path).toBe('getting-started-3');
    });

    it('lets pages under different parents share a slug', () => {
      const editor = editorOn(RevisionTree.empty());
      page(editor, 'a', 'A');
      page(editor, 'b', 'B');
      expect(page(editor, 'a1', 'Intro', 'a').path).toBe('a/intro');
      expect(page(editor, 'b1', 'Intro', 'b').path).toBe('b/intro');
    });

    it('refuses an explicit slug a sibling has (409) and a malformed one (400)', () => {
      const editor = editorOn(RevisionTree.empty());
      page(editor, 'a', 'Intro');
      expect(refusal(() => page(editor, 'b', 'Other', null, 'intro'))).toBe(409);
      expect(refusal(() => page(editor, 'c', 'Other', null, 'Not A Slug'))).toBe(400);
    });

    it('keeps the slug when the title changes', async () => {
      const editor = editorOn(RevisionTree.empty());
      page(editor, 'a', 'Intro');
      expect(editor.updatePage('a', { attributes: { title: 'Introduction' }, now: LATER })).toEqual({
        id: 'a',
        title: 'Introduction',
        path: 'intro',
      });
    });

    it('changes the slug when one is given, refusing one a sibling has', () => {
      const editor = editorOn(RevisionTree.empty());
      page(editor, 'a', 'Intro');
      page(editor, 'b', 'Setup');
      expect(refusal(() => editor.updatePage('b', { attributes: { slug: 'intro' }, now: LATER }))).toBe(409);
      expect(editor.updatePage('b', { attributes: { slug: 'setup' }, now: LATER }).path).toBe('setup');
      expect(editor.updatePage('b', { attributes: { slug: 'install' }, now: LATER }).path).toBe('install');
    });

    it('gives link pages no slug and refuses one', () => {
      const editor = editorOn(RevisionTree.empty());
      const link = editor.insertPage({ id: 'l', type: 'link', attributes: { title: 'Home' }, href: 'https://example.com', now: NOW });
      expect(link.path).toBe('');
      expect(
        refusal(() =>
          editor.insertPage({ id: 'm', type: 'link', attributes: { title: 'X', slug: 'x' }, href: 'https://example.com', now: NOW }),
        ),
      ).toBe(400);
      expect(refusal(() => editor.updatePage('l', { attributes: { slug: 'home' }, now: LATER }))).toBe(400);
    });
  });

  describe('inserting', () => {
    it('places a page at an index among its siblings, last by default', async () => {
      const tree = await generatedTree(fixture.store, [3]);
      const { tree: after } = await edit(fixture.store, tree, (editor) => {
        editor.insertPage({ id: 'first', type: 'document', attributes: { title: 'First' }, at: 0, now: LATER });
        editor.insertPage({ id: 'last', type: 'document', attributes: { title: 'Last' }, now: LATER });
      });
      expect(after.children(null).map((view) => view.id)).toEqual(['first', 'p1', 'p2', 'p3', 'last']);
    });

    it('gives a document page an empty body when none is given, and a group page none', async () => {
      const { tree } = await edit(fixture.store, RevisionTree.empty(), (editor) => {
        editor.insertPage({ id: 'd', type: 'document', attributes: { title: 'Doc' }, now: NOW });
        editor.insertPage({ id: 'g', type: 'group', attributes: { title: 'Group' }, now: NOW });
      });
      expect(await fixture.store.readDocument(tree.page('d')!.document!)).toEqual({ object: 'document', data: {}, nodes: [] });
      expect(tree.page('g')).not.toHaveProperty('document');
    });

    it('refuses what a page cannot be or where it cannot go', () => {
      const editor = editorOn(RevisionTree.empty());
      page(editor, 'a', 'A');
      editor.insertPage({ id: 'l', type: 'link', attributes: { title: 'L' }, target: { kind: 'page', page: 'a' }, now: NOW });
      expect(refusal(() => page(editor, 'a', 'Again'))).toBe(409);
      expect(refusal(() => page(editor, 'x', 'X', 'missing'))).toBe(404);
      expect(refusal(() => page(editor, 'x', 'X', 'l'))).toBe(400);
      expect(refusal(() => editor.insertPage({ id: 'x', type: 'document', attributes: { title: 'X' }, at: 5, now: NOW }))).toBe(400);
      expect(refusal(() => editor.insertPage({ id: 'x', type: 'group', attributes: { title: 'X' }, document: doc('no'), now: NOW }))).toBe(
        400,
      );
      expect(refusal(() => editor.insertPage({ id: 'x', type: 'link', attributes: { title: 'X' }, now: NOW }))).toBe(400);
      expect(
        refusal(() => editor.insertPage({ id: 'x', type: 'document', attributes: { title: 'X' }, href: 'https://example.com', now: NOW })),
      ).toBe(400);
      expect(refusal(() => editor.insertPage({ id: 'bad id!', type: 'document', attributes: { title: 'X' }, now: NOW }))).toBe(400);
    });

    it('gives a computed source to document pages only, and removes it when updated to undefined', async () => {
      const computed = {
        type: 'builtin:openapi' as const,
        dependencies: { spec: { ref: { kind: 'openapi' as const, spec: 'pets' } } },
        props: { tags: ['pets'] },
      };
      const { tree } = await edit(fixture.store, RevisionTree.empty(), (editor) =>
        editor.insertPage({ id: 'd', type: 'document', attributes: { title: 'API', computed }, now: NOW }),
      );
      expect(tree.page('d')).toMatchObject({ computed });
      const editor = editorOn(tree);
      expect(refusal(() => editor.insertPage({ id: 'g', type: 'group', attributes: { title: 'G', computed }, now: NOW }))).toBe(400);
      expect(
        refusal(() =>
          editor.insertPage({
            id: 'd2',
            type: 'document',
            attributes: { title: 'D', computed: { ...computed, type: 'builtin:other' as 'builtin:openapi' } },
            now: NOW,
          }),
        ),
      ).toBe(400);
      const { tree: removed } = await edit(fixture.store, tree, (batch) =>
        batch.updatePage('d', { attributes: { computed: undefined }, now: LATER }),
      );
      expect(removed.page('d')).not.toHaveProperty('computed');
    });

    it('leaves the batch as it was when an operation is refused', async () => {
      const tree = await generatedTree(fixture.store, [2]);
      const editor = editorOn(tree);
      expect(refusal(() => editor.insertPage({ id: 'x', type: 'document', attributes: { title: 'X', slug: 'page-1' }, now: LATER }))).toBe(
        409,
      );
      expect(refusal(() => editor.movePage('p1', 'p1', 0, LATER))).toBe(400);
      expect(await editor.commit()).toMatchObject({ rootHash: tree.rootHash, blobsWritten: 0 });
      expect(editor.touched()).toEqual({ created: [], updated: [], deleted: [] });
    });
  });

  describe('moving', () => {
    it('moves a page with its subpages: the paths of all of them follow', async () => {
      const tree = await generatedTree(fixture.store, [2, 2, 2]);
      const editor = editorOn(tree);
      expect(editor.movePage('p1-2', 'p2-1', 0, LATER).path).toBe('page-2/page-2-1/page-1-2');
      const { rootHash } = await editor.commit();
      const after = await RevisionTree.load(fixture.store, rootHash);
      expect(after.subtree('p1-2').map((view) => view.path)).toEqual([
        'page-2/page-2-1/page-1-2',
        'page-2/page-2-1/page-1-2/page-1-2-1',
        'page-2/page-2-1/page-1-2/page-1-2-2',
      ]);
      expect(after.children('p2-1').map((view) => view.id)).toEqual(['p1-2', 'p2-1-1', 'p2-1-2']);
      expect(after.children('p1').map((view) => view.id)).toEqual(['p1-1']);
    });

    it('makes the paths of the subpages follow a slug change', async () => {
      const tree = await generatedTree(fixture.store, [2, 2, 2]);
      const { tree: after } = await edit(fixture.store, tree, (editor) =>
        editor.updatePage('p1', { attributes: { slug: 'basics' }, now: LATER }),
      );
      expect(after.subtree('p1').map((view) => view.path)).toEqual([
        'basics',
        'basics/page-1-1',
        'basics/page-1-1/page-1-1-1',
        'basics/page-1-1/page-1-1-2',
        'basics/page-1-2',
        'basics/page-1-2/page-1-2-1',
        'basics/page-1-2/page-1-2-2',
      ]);
      expect(after.pageByPath('page-1/page-1-1')).toBeUndefined();
      expect(after.pageByPath('basics/page-1-1')?.id).toBe('p1-1');
    });

    it('suffixes the slug of a moved page when the new parent has a page with it', () => {
      const editor = editorOn(RevisionTree.empty());
      page(editor, 'a', 'A');
      page(editor, 'b', 'B');
      page(editor, 'a1', 'Intro', 'a');
      page(editor, 'b1', 'Intro', 'b');
      expect(editor.movePage('b1', 'a', undefined, LATER).path).toBe('a/intro-2');
    });

    it('refuses to move a page into itself or one of its subpages', async () => {
      const tree = await generatedTree(fixture.store, [2, 2, 2]);
      const editor = editorOn(tree);
      expect(refusal(() => editor.movePage('p1', 'p1', 0, LATER))).toBe(400);
      expect(refusal(() => editor.movePage('p1', 'p1-2', 0, LATER))).toBe(400);
      expect(refusal(() => editor.movePage('p1', 'p1-2-1', 0, LATER))).toBe(400);
      // Also once the descendant was moved in this batch.
      editor.movePage('p1-2-1', null, 0, LATER);
      editor.movePage('p1', 'p1-2-1', 0, LATER);
      expect(refusal(() => editor.movePage('p1-2-1', 'p1-2', 0, LATER))).toBe(400);
    });

    it('reorders among the same siblings, the index counted without the moved page', async () => {
      const tree = await generatedTree(fixture.store, [4]);
      const { tree: after } = await edit(fixture.store, tree, (editor) => {
        editor.movePage('p1', null, 3, LATER);
        expect(refusal(() => editor.movePage('p2', null, 4, LATER))).toBe(400);
      });
      expect(after.children(null).map((view) => view.id)).toEqual(['p2', 'p3', 'p4', 'p1']);
    });

    it('refuses to move a page under a link page or an unknown page', () => {
      const editor = editorOn(RevisionTree.empty());
      page(editor, 'a', 'A');
      editor.insertPage({ id: 'l', type: 'link', attributes: { title: 'L' }, href: 'https://example.com', now: NOW });
      expect(refusal(() => editor.movePage('a', 'l', 0, LATER))).toBe(400);
      expect(refusal(() => editor.movePage('a', 'missing', 0, LATER))).toBe(404);
      expect(refusal(() => editor.movePage('missing', null, 0, LATER))).toBe(404);
    });
  });

  describe('deleting', () => {
    it('deletes a page with all its subpages', async () => {
      const tree = await generatedTree(fixture.store, [2, 2, 2]);
      const { tree: after, editor } = await edit(fixture.store, tree, (batch) => batch.deletePage('p1'));
      expect(after.pages().map((view) => view.id)).toEqual(['p2', 'p2-1', 'p2-1-1', 'p2-1-2', 'p2-2', 'p2-2-1', 'p2-2-2']);
      expect(after.page('p1-2-1')).toBeUndefined();
      expect(editor.touched().deleted.sort()).toEqual(['p1', 'p1-1', 'p1-1-1', 'p1-1-2', 'p1-2', 'p1-2-1', 'p1-2-2']);
      expect(refusal(() => editorOn(after).deletePage('p1'))).toBe(404);
    });

    it('does not delete a subpage moved out before its parent was deleted', async () => {
      const tree = await generatedTree(fixture.store, [2, 2]);
      const { tree: after } = await edit(fixture.store, tree, (editor) => {
        editor.movePage('p1-1', 'p2', undefined, LATER);
        editor.deletePage('p1');
      });
      expect(after.page('p1-1')?.parentId).toBe('p2');
      expect(after.page('p1-2')).toBeUndefined();
    });
  });

  describe('reverting', () => {
    it('puts back the attributes and the body of a page, keeping its subpages and its place', async () => {
      const tree = await generatedTree(fixture.store, [2, 2]);
      const { tree: edited } = await edit(fixture.store, tree, (editor) => {
        editor.updatePage('p1', { attributes: { title: 'Renamed', slug: 'renamed', emoji: '1f600' }, document: doc('new'), now: LATER });
        editor.movePage('p1', null, 1, LATER);
        editor.insertPage({ id: 'child', type: 'document', attributes: { title: 'Child' }, into: 'p1', now: LATER });
      });
      const { tree: reverted, editor } = await edit(fixture.store, edited, (batch) => batch.revertPage('p1', tree, LATER));
      const page = reverted.page('p1')!;
      expect(page).toMatchObject({ title: 'Page 1', slug: 'page-1', document: tree.page('p1')!.document, updatedAt: LATER, index: 1 });
      expect(page).not.toHaveProperty('emoji');
      expect(page.childIds).toEqual(['p1-1', 'p1-2', 'child']);
      expect(editor.touched()).toEqual({ created: [], updated: ['p1'], deleted: [] });
    });

    it('brings a deleted page back with its subtree under its old parent, or at the top level when that is gone', async () => {
      const tree = await generatedTree(fixture.store, [2, 2, 2]);
      const { tree: deleted } = await edit(fixture.store, tree, (editor) => {
        editor.deletePage('p1-2');
        editor.deletePage('p2');
      });
      const { tree: reverted, editor } = await edit(fixture.store, deleted, (batch) => {
        expect(batch.revertPage('p1-2', tree, LATER)?.path).toBe('page-1/page-1-2');
        expect(batch.revertPage('p2-1', tree, LATER)?.path).toBe('page-2-1');
      });
      expect(reverted.subtree('p1-2').map((view) => view.id)).toEqual(['p1-2', 'p1-2-1', 'p1-2-2']);
      expect(reverted.page('p1-2')).toMatchObject({ parentId: 'p1', index: 1 });
      expect(reverted.page('p2-1')).toMatchObject({ parentId: null, childIds: ['p2-1-1', 'p2-1-2'] });
      // The untouched subpages are shared with the old revision by hash.
      expect(reverted.nodeHash('p1-2-1')).toBe(tree.nodeHash('p1-2-1'));
      expect(editor.touched().created.sort()).toEqual(['p1-2', 'p1-2-1', 'p1-2-2', 'p2-1', 'p2-1-1', 'p2-1-2']);
    });

    it('leaves out of a restored subtree the pages that are elsewhere now', async () => {
      const tree = await generatedTree(fixture.store, [2, 2]);
      const { tree: edited } = await edit(fixture.store, tree, (editor) => {
        editor.movePage('p1-1', 'p2', undefined, LATER);
        editor.deletePage('p1');
      });
      const { tree: reverted } = await edit(fixture.store, edited, (editor) => editor.revertPage('p1', tree, LATER));
      expect(reverted.page('p1')?.childIds).toEqual(['p1-2']);
      expect(reverted.page('p1-1')?.parentId).toBe('p2');
    });

    it('deletes a page the old revision does not have, and refuses one neither has', async () => {
      const tree = await generatedTree(fixture.store, [2]);
      const { tree: edited } = await edit(fixture.store, tree, (editor) => page(editor, 'new', 'New'));
      const { tree: reverted } = await edit(fixture.store, edited, (editor) => {
        expect(editor.revertPage('new', tree, LATER)).toBeNull();
        expect(refusal(() => editor.revertPage('never', tree, LATER))).toBe(404);
      });
      expect(reverted.rootHash).toBe(tree.rootHash);
    });
  });

  describe('files and variables', () => {
    it('inserts and deletes files, the list kept in id order', async () => {
      const { tree } = await edit(fixture.store, RevisionTree.empty(), (editor) => {
        editor.insertFile({ ...FILE, id: 'f2', name: 'b.png' });
        editor.insertFile(FILE);
        expect(refusal(() => editor.insertFile(FILE))).toBe(409);
      });
      expect(tree.files().map((file) => file.id)).toEqual(['f1', 'f2']);
      const { tree: after } = await edit(fixture.store, tree, (editor) => {
        editor.deleteFile('f1');
        expect(refusal(() => editor.deleteFile('f1'))).toBe(404);
      });
      expect(after.files().map((file) => file.id)).toEqual(['f2']);
    });

    it('refuses a malformed file entry', () => {
      const editor = editorOn(RevisionTree.empty());
      expect(refusal(() => editor.insertFile({ ...FILE, hash: 'not-a-hash' }))).toBe(400);
      expect(refusal(() => editor.insertFile({ ...FILE, size: -1 }))).toBe(400);
    });

    it('writes only the file list and the root for a file change', async () => {
      const tree = await generatedTree(fixture.store, [3, 3]);
      const { commit } = await edit(fixture.store, tree, (editor) => editor.insertFile(FILE));
      expect(commit).toMatchObject({ nodesWritten: 0, blobsWritten: 2 });
    });

    it('sets the space variables', async () => {
      const { tree } = await edit(fixture.store, RevisionTree.empty(), (editor) => editor.setVariables({ version: '2.0' }));
      expect(tree.variables).toEqual({ version: '2.0' });
      expect(refusal(() => editorOn(tree).setVariables({ version: 2 } as unknown as Record<string, string>))).toBe(400);
    });
  });

  describe('group pages', () => {
    it('inserts a group at the top level and refuses one into a page or a group (400), changing nothing', () => {
      const editor = editorOn(RevisionTree.empty());
      editor.insertPage({ id: 'g', type: 'group', attributes: { title: 'Group' }, now: NOW });
      page(editor, 'a', 'A');
      expect(refusal(() => editor.insertPage({ id: 'g2', type: 'group', attributes: { title: 'Nested' }, into: 'a', now: NOW }))).toBe(400);
      expect(refusal(() => editor.insertPage({ id: 'g3', type: 'group', attributes: { title: 'Nested' }, into: 'g', now: NOW }))).toBe(400);
      expect(editor.has('g2') || editor.has('g3')).toBe(false);
      expect(editor.location('a').childIds).toEqual([]);
    });

    it('refuses to move a group below a page (400) and lets documents move into a group', () => {
      const editor = editorOn(RevisionTree.empty());
      editor.insertPage({ id: 'g', type: 'group', attributes: { title: 'Group' }, now: NOW });
      page(editor, 'a', 'A');
      expect(refusal(() => editor.movePage('g', 'a', undefined, NOW))).toBe(400);
      expect(editor.movePage('a', 'g', undefined, NOW).path).toBe('group/a');
    });
  });

  describe('where pages sit while the batch is applied', () => {
    it('finds a page by its path of slugs after moves and renames, and nothing at a path it left', () => {
      const editor = editorOn(RevisionTree.empty());
      page(editor, 'a', 'Guide');
      page(editor, 'b', 'Install', 'a');
      expect(editor.pageAt('guide/install')).toBe('b');
      editor.movePage('b', null, undefined, NOW);
      editor.updatePage('b', { attributes: { slug: 'setup' }, now: NOW });
      expect(editor.pageAt('setup')).toBe('b');
      expect(editor.pageAt('guide/install')).toBeUndefined();
      expect(editor.pageAt('__proto__')).toBeUndefined();
    });

    it('gives a page’s type, current path and subpages', () => {
      const editor = editorOn(RevisionTree.empty());
      page(editor, 'a', 'Guide');
      page(editor, 'b', 'Install', 'a');
      expect(editor.location('a')).toEqual({ type: 'document', path: 'guide', childIds: ['b'] });
      expect(editor.location('b')).toEqual({ type: 'document', path: 'guide/install', childIds: [] });
    });
  });

  describe('the batch', () => {
    it('reports the pages it created, updated and deleted, compared with the base', async () => {
      const tree = await generatedTree(fixture.store, [2, 1]);
      const editor = editorOn(tree);
      page(editor, 'kept', 'Kept');
      page(editor, 'gone', 'Gone');
      editor.deletePage('gone');
      editor.updatePage('p1', { attributes: { title: 'One' }, now: LATER });
      editor.movePage('p2', 'kept', 0, LATER);
      editor.deletePage('p1');
      expect(editor.touched()).toEqual({ created: ['kept'], updated: ['p2'], deleted: ['p1', 'p1-1'] });
    });

    it('refuses operations once committed', async () => {
      const editor = editorOn(RevisionTree.empty());
      page(editor, 'a', 'A');
      const first = await editor.commit();
      expect(await editor.commit()).toBe(first);
      expect(() => page(editor, 'b', 'B')).toThrow(/committed/);
    });
  });
});
