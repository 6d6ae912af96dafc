import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { FsBlobStore } from '#blob-store/fs/fs-blob-store';
import { ContentSeedTrees, SeedBodies } from './seed-content-builders';
import { SeedContentWorkers, type SeedRevision } from './seed-content';

const bodies = new SeedBodies();
/** The hashes of the blobs stored under a root: files (its `tmp/` and `packs/` aside), and the small blobs the packs' index names. */
async function storedHashes(root: string): Promise<string[]> {
  const files = readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /^[0-9a-f]{64}$/.test(entry.name))
    .map((entry) => entry.name);
  const index = open<Buffer, Buffer>({ path: join(root, 'packs', 'index.mdb'), encoding: 'binary', keyEncoding: 'binary', readOnly: true });
  try {
    const small = Array.from(index.getKeys(), (key) => key.toString('hex')).filter((hash) => hash.length === 64);
    return [...files, ...small].sort();
  } finally {
    await index.close();
  }
}
const body = (words: string) => bodies.body('# Title\n\nA paragraph of *words*.', () => words);

/** A space of three pages (the second under the first), then an edit of the third page's body. */
function revisionsOf(space: string): SeedRevision[] {
  const page = (n: number) => `${space}-page-${n}`;
  return [
    {
      edits: {
        insert: [
          { id: page(1), title: `${space} one`, document: body(`${space} first`), into: null },
          { id: page(2), title: `${space} two`, document: body(`${space} second`), into: page(1) },
          { id: page(3), title: `${space} three`, document: body(`${space} third`), into: null },
        ],
      },
      now: '2026-01-01T00:00:00.000Z',
    },
    { edits: { update: [{ id: page(3), document: body(`${space} third, edited`) }] }, now: '2026-01-01T00:00:01.000Z' },
  ];
}

describe('SeedContentWorkers', () => {
  let dir: string;
  let workers: SeedContentWorkers | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'seed-content-'));
  });
  afterEach(async () => {
    await workers?.close();
    workers = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('given spaces built at once on two workers, then each space gets the trees the content context builds in process, in order', async () => {
    workers = SeedContentWorkers.start(join(dir, 'workers'), 2);
    const spaces = ['a', 'b', 'c', 'd', 'e'];
    const built = await Promise.all(spaces.map((space) => workers!.build(revisionsOf(space))));

    const inProcessBlobs = new FsBlobStore(join(dir, 'in-process'), { bulk: true });
    const inProcess = new ContentSeedTrees(inProcessBlobs);
    for (const [index, space] of spaces.entries()) {
      const [first, second] = revisionsOf(space);
      const expectedFirst = await inProcess.build(null, first.edits, first.now);
      const expectedSecond = await inProcess.build(expectedFirst.tree, second.edits, second.now);
      expect(built[index]).toEqual([expectedFirst, expectedSecond]);
    }
    // The same blobs (tree nodes and bodies), whichever thread wrote them, once flushed.
    await workers.flush();
    await inProcessBlobs.flushToDisk();
    const written = await storedHashes(join(dir, 'workers'));
    expect(written.length).toBeGreaterThanOrEqual(spaces.length * 4); // each space's four bodies at least
    expect(written).toEqual(await storedHashes(join(dir, 'in-process')));
  }, 30_000);

  it('given a build, then its trees and bodies are in the blob directory', async () => {
    workers = SeedContentWorkers.start(join(dir, 'blobs'), 1);
    const [, edited] = await workers.build(revisionsOf('a'));

    const blobs = new FsBlobStore(join(dir, 'blobs'));
    expect(await blobs.stat(edited.tree)).not.toBeNull();
    // The tree loads from the directory: an edit of each of its pages builds on it.
    const pages = ['a-page-1', 'a-page-2', 'a-page-3'];
    const rebuilt = await new ContentSeedTrees(blobs).build(
      edited.tree,
      { update: pages.map((id) => ({ id, document: body('again') })) },
      '2026-01-02T00:00:00.000Z',
    );
    expect(rebuilt.pages.updated.sort()).toEqual(pages);
  }, 30_000);

  it('given a blob directory that cannot be written, then the build fails with the reason, and the worker takes the next one', async () => {
    const notADirectory = join(dir, 'file');
    writeFileSync(notADirectory, 'x');
    workers = SeedContentWorkers.start(notADirectory, 1);
    await expect(workers.build(revisionsOf('a'))).rejects.toThrow(/building a space's content failed: .*(ENOTDIR|EEXIST)/);
    await expect(workers.build(revisionsOf('b'))).rejects.toThrow(/building a space's content failed/);
  }, 30_000);

  it('given workers that stopped, then a build fails at once instead of waiting', async () => {
    workers = SeedContentWorkers.start(join(dir, 'blobs'), 2);
    await workers.close();
    await expect(workers.build(revisionsOf('a'))).rejects.toThrow(/a content worker of the seed stopped/);
  }, 30_000);

  it('refuses to start without a worker', () => {
    expect(() => SeedContentWorkers.start(join(dir, 'blobs'), 0)).toThrow(RangeError);
  });
});
