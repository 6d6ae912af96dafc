import { BlobNotFoundError } from '#blob-store/blob-store.port';
import type { PageNode } from './tree.model';
import { TreeBlobError, TreeStore } from './tree-store';
import { doc, NOW, treeFixture, type TreeFixture } from './testing/tree-fixtures';

function node(id: string, title: string): PageNode {
  return { object: 'page-node', id, type: 'group', title, slug: id, createdAt: NOW, updatedAt: NOW, children: [] };
}

describe('TreeStore', () => {
  let fixture: TreeFixture;
  beforeEach(async () => {
    fixture = await treeFixture();
  });
  afterEach(() => fixture.cleanup());

  it('writes canonical JSON: the same content in another key order has the same hash', async () => {
    const a = await fixture.store.write(node('a', 'A'));
    const reordered = {
      children: [],
      updatedAt: NOW,
      createdAt: NOW,
      slug: 'a',
      title: 'A',
      type: 'group',
      id: 'a',
      object: 'page-node',
    } as PageNode;
    expect(await fixture.store.write(reordered)).toBe(a);
    expect((await fixture.blobs.read(a)).toString()).toBe(
      '{"children":[],"createdAt":"2026-01-01T00:00:00.000Z","id":"a","object":"page-node","slug":"a","title":"A","type":"group","updatedAt":"2026-01-01T00:00:00.000Z"}',
    );
  });

  it('reads back what it wrote, from another store on the same blobs (cold cache)', async () => {
    const hash = await fixture.store.write(doc('hello'));
    expect(await fixture.coldStore().readDocument(hash)).toEqual(doc('hello'));
  });

  it('answers a cached blob without reading the blob store again', async () => {
    const hash = await fixture.store.write(node('a', 'A'));
    const reads = jest.spyOn(fixture.blobs, 'read');
    await fixture.store.readNode(hash);
    await fixture.store.readNode(hash);
    expect(reads).not.toHaveBeenCalled();
  });

  it('coalesces concurrent reads of one hash into one blob read', async () => {
    const hash = await fixture.store.write(node('a', 'A'));
    const cold = fixture.coldStore();
    const reads = jest.spyOn(fixture.blobs, 'read');
    const [first, second, third] = await Promise.all([cold.readNode(hash), cold.readNode(hash), cold.readNode(hash)]);
    expect(reads).toHaveBeenCalledTimes(1);
    expect(second).toBe(first);
    expect(third).toBe(first);
  });

  it('hands out frozen values: the cache is shared by every reader', async () => {
    const hash = await fixture.store.write(node('a', 'A'));
    const read = await fixture.store.readNode(hash);
    expect(Object.isFrozen(read)).toBe(true);
    expect(Object.isFrozen(read.children)).toBe(true);
  });

  it('refuses a blob read as the wrong kind', async () => {
    const hash = await fixture.store.write(doc('body'));
    await expect(fixture.store.readNode(hash)).rejects.toBeInstanceOf(TreeBlobError);
    await expect(fixture.coldStore().readRoot(hash)).rejects.toBeInstanceOf(TreeBlobError);
  });

  it('passes on the blob store refusal for an unknown hash', async () => {
    await expect(fixture.store.readNode('0'.repeat(64))).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it('reads the empty tree before anything is stored, and stores it (with its file list) when written', async () => {
    const root = await fixture.store.readRoot(TreeStore.EMPTY);
    expect(root).toEqual({ object: 'content-tree', pages: [], files: TreeStore.EMPTY_FILES, variables: {} });
    expect(await fixture.blobs.stat(TreeStore.EMPTY)).toBeNull();
    expect(await fixture.store.write({ object: 'content-tree', pages: [], files: TreeStore.EMPTY_FILES, variables: {} })).toBe(
      TreeStore.EMPTY,
    );
    expect(await fixture.blobs.stat(TreeStore.EMPTY)).not.toBeNull();
    expect(await fixture.blobs.stat(TreeStore.EMPTY_FILES)).not.toBeNull();
  });

  it('keeps its cache within the byte bound, dropping the least recently used', async () => {
    const small = new TreeStore(fixture.blobs, { maxCacheBytes: 4000 });
    for (let i = 0; i < 50; i++) await small.write(node(`p${i}`, `Page ${i}`));
    const { bytes, entries } = small.cacheStats();
    expect(bytes).toBeLessThanOrEqual(4000);
    expect(entries).toBeGreaterThan(0);
    expect(entries).toBeLessThan(50);
  });

  it('still reads a blob too large for the whole cache, without keeping it', async () => {
    const small = new TreeStore(fixture.blobs, { maxCacheBytes: 1000 });
    const hash = await small.write(doc('x'.repeat(2000)));
    expect(small.cacheStats().entries).toBe(0);
    expect((await small.readDocument(hash)).nodes).toHaveLength(1);
  });
});
