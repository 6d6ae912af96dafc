import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { BlobInfo, BlobStore } from '#blob-store/blob-store.port';
import { FsBlobStore } from '#blob-store/fs/fs-blob-store';
import { DomainError } from '#platform/errors';
import type { DocumentNode } from '#document/document.model';
import { RevisionTree } from '../revision-tree';
import { TreeEditor } from '../tree-editor';
import { TreeStore } from '../tree-store';

export const NOW = '2026-01-01T00:00:00.000Z';
export const LATER = '2026-01-02T00:00:00.000Z';

/** A filesystem blob store that also records what was put, to check what a commit wrote. */
export class RecordingBlobStore implements BlobStore {
  readonly puts: BlobInfo[] = [];
  /** Puts started and not finished, and the most there ever were at once. */
  inFlight = 0;
  mostInFlight = 0;
  /** Puts still to succeed before every later one fails (a full disk); undefined: none fails. */
  failAfter: number | undefined;
  constructor(private readonly inner: FsBlobStore) {}
  async put(content: Buffer | Uint8Array | Readable): Promise<BlobInfo> {
    this.inFlight += 1;
    this.mostInFlight = Math.max(this.mostInFlight, this.inFlight);
    try {
      if (this.failAfter !== undefined && this.failAfter-- <= 0) throw new Error('ENOSPC: no space left on device');
      const info = await this.inner.put(content);
      this.puts.push(info);
      return info;
    } finally {
      this.inFlight -= 1;
    }
  }
  get(hash: string): Promise<Readable> {
    return this.inner.get(hash);
  }
  read(hash: string): Promise<Buffer> {
    return this.inner.read(hash);
  }
  stat(hash: string): Promise<BlobInfo | null> {
    return this.inner.stat(hash);
  }
  delete(hash: string): Promise<void> {
    return this.inner.delete(hash);
  }
  health(): Promise<{ ok: boolean; detail?: string }> {
    return this.inner.health();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

export interface TreeFixture {
  dir: string;
  blobs: RecordingBlobStore;
  store: TreeStore;
  /** A second tree store on the same blobs, with a cold cache: reads what a restarted process would. */
  coldStore(): TreeStore;
  cleanup(): Promise<void>;
}

export async function treeFixture(): Promise<TreeFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'content-tree-'));
  const blobs = new RecordingBlobStore(new FsBlobStore(dir));
  return {
    dir,
    blobs,
    store: new TreeStore(blobs),
    coldStore: () => new TreeStore(blobs),
    cleanup: async () => {
      await blobs.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export function doc(text: string): DocumentNode {
  return {
    object: 'document',
    data: {},
    nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }] }],
  };
}

/** Applies edits to a tree, commits them and loads the result. */
export async function edit(
  store: TreeStore,
  tree: RevisionTree,
  change: (editor: TreeEditor) => void,
): Promise<{ tree: RevisionTree; editor: TreeEditor; commit: Awaited<ReturnType<TreeEditor['commit']>> }> {
  const editor = new TreeEditor(store, tree);
  change(editor);
  const commit = await editor.commit();
  return { tree: await RevisionTree.load(store, commit.rootHash), editor, commit };
}

/**
 * A generated tree: `fanout[0]` top-level document pages, each with `fanout[1]` subpages, and so on;
 * page `p1-2-3` is the third child of the second child of the first top-level page, titled
 * "Page 1.2.3" (slug `page-1-2-3`), its body naming it.
 */
export async function generatedTree(store: TreeStore, fanout: readonly number[]): Promise<RevisionTree> {
  const editor = new TreeEditor(store, RevisionTree.empty());
  const add = (parent: string | null, prefix: number[], level: number): void => {
    if (level >= fanout.length) return;
    for (let i = 1; i <= fanout[level]; i++) {
      const path = [...prefix, i];
      const id = `p${path.join('-')}`;
      editor.insertPage({
        id,
        type: 'document',
        attributes: { title: `Page ${path.join('.')}` },
        document: doc(`Body of ${id}`),
        into: parent,
        now: NOW,
      });
      add(id, path, level + 1);
    }
  };
  add(null, [], 0);
  const { rootHash } = await editor.commit();
  return RevisionTree.load(store, rootHash);
}

/** The HTTP status of the `DomainError` an operation throws (undefined when it succeeds). */
export function refusal(run: () => unknown): number | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error.status;
    throw error;
  }
  return undefined;
}
