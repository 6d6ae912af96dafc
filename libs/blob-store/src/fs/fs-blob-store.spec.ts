import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { blobStoreContract } from '../blob-store.contract';
import { BlobHashError, BlobNotFoundError } from '../blob-store.port';
import { BlobStoreClosedError, FsBlobStore, SMALL_BLOB_MAX_BYTES } from './fs-blob-store';
import { packRecords } from './testing/pack-records';

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

const roots: string[] = [];
function tempRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fs-blob-store-'));
  roots.push(dir);
  return join(dir, 'blobs');
}

afterAll(() => {
  for (const dir of roots) rmSync(dir, { recursive: true, force: true });
});

// Bulk mode (the CLI's seed) keeps the port's contract; only when writes reach the disk differs.
blobStoreContract('fs in bulk mode', async () => new FsBlobStore(tempRoot(), { bulk: true }));

blobStoreContract('fs', async () => new FsBlobStore(tempRoot()), {
  // A name without a pid, as an unknown process would leave: only its age makes it abandoned.
  async leave(store, content, ageMs) {
    const tmp = join((store as FsBlobStore).rootDir, 'tmp');
    mkdirSync(tmp, { recursive: true });
    const path = join(tmp, `abandoned-${randomBytes(6).toString('hex')}.tmp`);
    writeFileSync(path, content);
    const at = new Date(Date.now() - ageMs);
    utimesSync(path, at, at);
  },
  async count(store) {
    const tmp = join((store as FsBlobStore).rootDir, 'tmp');
    return existsSync(tmp) ? readdirSync(tmp).length : 0;
  },
  async reopen(store) {
    return new FsBlobStore((store as FsBlobStore).rootDir);
  },
});

describe('FsBlobStore', () => {
  let root: string;
  let store: FsBlobStore;

  beforeEach(() => {
    root = tempRoot();
    store = new FsBlobStore(root);
  });

  afterEach(async () => {
    await store.close();
  });

  const tmpFiles = (): string[] => readdirSync(join(root, 'tmp'));

  const fileOf = (hash: string): string => join(root, hash.slice(0, 2), hash.slice(2, 4), hash);
  const fanOut = (): string[] => readdirSync(root).filter((name) => /^[0-9a-f]{2}$/.test(name));
  const large = (): Buffer => randomBytes(SMALL_BLOB_MAX_BYTES + 1);

  it('given bulk mode, then a large put is the file root/ab/cd/<hash>, no file is left in tmp, and flushToDisk resolves', async () => {
    const bulkRoot = tempRoot();
    const bulk = new FsBlobStore(bulkRoot, { bulk: true });
    const bytes = large();
    const { hash } = await bulk.put(bytes);
    expect(hash).toBe(sha256(bytes));
    expect(existsSync(join(bulkRoot, hash.slice(0, 2), hash.slice(2, 4), hash))).toBe(true);
    expect(readdirSync(join(bulkRoot, 'tmp'))).toEqual([]);
    await bulk.flushToDisk();
    expect((await bulk.read(hash)).equals(bytes)).toBe(true);
    await bulk.close();
  });

  it('given bulk mode, when putting small bytes and flushing, then a store opened afterwards reads them', async () => {
    const bulkRoot = tempRoot();
    const bulk = new FsBlobStore(bulkRoot, { bulk: true });
    const { hash } = await bulk.put(Buffer.from('seeded page body'));
    await bulk.flushToDisk();
    await bulk.close();
    const reopened = new FsBlobStore(bulkRoot);
    expect((await reopened.read(hash)).toString()).toBe('seeded page body');
    await reopened.close();
  });

  /** The records of each pack, as text. */
  const packs = (): string[][] =>
    readdirSync(join(root, 'packs'))
      .filter((name) => name.endsWith('.pack'))
      .map((name) => packRecords(join(root, 'packs', name)));

  it(`given a put of bytes up to ${SMALL_BLOB_MAX_BYTES} bytes, then it is appended to a pack in root/packs, not a file of its own`, async () => {
    const bytes = randomBytes(SMALL_BLOB_MAX_BYTES);
    const { hash } = await store.put(bytes);
    expect(existsSync(fileOf(hash))).toBe(false);
    expect(fanOut()).toEqual([]);
    expect(packs()).toEqual([[bytes.toString()]]);
    expect((await store.read(hash)).equals(bytes)).toBe(true);
    expect(await store.stat(hash)).toEqual({ hash, size: SMALL_BLOB_MAX_BYTES });
  });

  it('given puts of one turn, among them the same bytes twice, then one pack holds each blob once', async () => {
    const [a, b, again] = await Promise.all([
      store.put(Buffer.from('first')),
      store.put(Buffer.from('second')),
      store.put(Buffer.from('first')),
    ]);
    expect(again).toEqual(a);
    expect(packs()).toEqual([['first', 'second']]);
    expect((await store.read(b.hash)).toString()).toBe('second');
  });

  it('given a put of more bytes than the small limit, then the blob is the file root/ab/cd/<hash> and no file is left in tmp', async () => {
    const content = large();
    const { hash } = await store.put(content);
    expect(statSync(fileOf(hash)).size).toBe(content.length);
    expect(tmpFiles()).toEqual([]);
  });

  it('given a put of a stream, then the blob is the file root/ab/cd/<hash>, whatever its size, and no file is left in tmp', async () => {
    const { hash } = await store.put(Readable.from([Buffer.from('hello')]));
    expect(statSync(fileOf(hash)).size).toBe(5);
    expect(tmpFiles()).toEqual([]);
  });

  it('given a small put resolved, when the store is opened again, then the blob is there (the put waited for its flush)', async () => {
    const { hash } = await store.put(Buffer.from('durable'));
    await store.close();
    store = new FsBlobStore(root);
    expect((await store.read(hash)).toString()).toBe('durable');
  });

  it('given a small blob stored as a file (a data directory from before the small tier), then read, get and stat find it and delete removes it', async () => {
    const bytes = Buffer.from('written by an earlier version');
    const hash = sha256(bytes);
    mkdirSync(join(root, hash.slice(0, 2), hash.slice(2, 4)), { recursive: true });
    writeFileSync(fileOf(hash), bytes);
    expect((await store.read(hash)).equals(bytes)).toBe(true);
    const chunks: Buffer[] = [];
    for await (const chunk of await store.get(hash)) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    expect(await store.stat(hash)).toEqual({ hash, size: bytes.length });
    await store.delete(hash);
    expect(existsSync(fileOf(hash))).toBe(false);
    await expect(store.read(hash)).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it('given the same content put as a stream (a file) and as bytes (small), when deleting it, then neither copy is left', async () => {
    const bytes = Buffer.from('twice');
    const { hash } = await store.put(Readable.from([bytes]));
    await store.put(bytes);
    await store.delete(hash);
    expect(existsSync(fileOf(hash))).toBe(false);
    expect(await store.stat(hash)).toBeNull();
    await expect(store.get(hash)).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it('given a small blob, when deleting it, then its bytes in the pack are overwritten with zeros', async () => {
    const { hash } = await store.put(Buffer.from('a secret body'));
    await store.put(Buffer.from('kept'));
    await store.delete(hash);
    expect(packs()).toEqual([['<removed>', 'kept']]);
    await expect(store.read(hash)).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it('given two stores on one directory (the seed worker threads), then each appends to a pack of its own, and once both are flushed each reads the other`s', async () => {
    const bulkRoot = tempRoot();
    const [one, two] = [new FsBlobStore(bulkRoot, { bulk: true }), new FsBlobStore(bulkRoot, { bulk: true })];
    try {
      const first = await one.put(Buffer.from('one'));
      const second = await two.put(Buffer.from('two'));
      await Promise.all([one.flushToDisk(), two.flushToDisk()]);
      const records = readdirSync(join(bulkRoot, 'packs'))
        .filter((name) => name.endsWith('.pack'))
        .map((name) => packRecords(join(bulkRoot, 'packs', name)));
      expect(records.sort()).toEqual([['one'], ['two']]);
      expect((await one.read(second.hash)).toString()).toBe('two');
      expect((await two.read(first.hash)).toString()).toBe('one');
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('given a Readable that fails midway, then no blob and no temporary file remain', async () => {
    const input = new PassThrough();
    const putting = store.put(input);
    const settled = putting.catch((error: unknown) => error);
    const chunk = randomBytes(64 * 1024);
    input.write(chunk);
    const written = (): number => {
      const names = existsSync(join(root, 'tmp')) ? tmpFiles() : [];
      return names.length === 1 ? (statSync(join(root, 'tmp', names[0]), { throwIfNoEntry: false })?.size ?? 0) : 0;
    };
    try {
      // The put is reading the stream once the chunk is in its temporary file (how soon depends on the machine).
      while (written() < chunk.length) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(tmpFiles()).toHaveLength(1);
    } finally {
      // Also when the expectation fails: a put that never ends would hold up close().
      input.destroy(new Error('connection reset'));
    }
    expect(await settled).toEqual(expect.objectContaining({ message: 'connection reset' }));
    expect(tmpFiles()).toEqual([]);
    const entries = readdirSync(root).filter((name) => name !== 'tmp');
    expect(entries).toEqual([]);
  });

  it('given a stream of something other than bytes, then put rejects with TypeError and leaves nothing', async () => {
    await expect(store.put(Readable.from([{ not: 'bytes' }]))).rejects.toBeInstanceOf(TypeError);
    await expect(store.put('text' as unknown as Buffer)).rejects.toBeInstanceOf(TypeError);
    expect(tmpFiles()).toEqual([]);
  });

  it('given a stream of strings, then they are stored as UTF-8', async () => {
    const info = await store.put(Readable.from(['héllo ', 'wörld']));
    expect(info).toEqual({ hash: sha256(Buffer.from('héllo wörld')), size: Buffer.byteLength('héllo wörld') });
  });

  it('given temporary files left by a crashed process, when the store is first used, then they are removed', async () => {
    const tmp = join(root, 'tmp');
    mkdirSync(tmp, { recursive: true });
    // A dead process, an earlier process with this pid (written before this one started), and an old file of unknown origin.
    writeFileSync(join(tmp, '999999999.1.0.deadbeef.tmp'), 'partial');
    writeFileSync(join(tmp, `${process.pid}.1.0.cafe.tmp`), 'partial');
    const beforeThisProcess = new Date(Date.now() - process.uptime() * 1000 - 60_000);
    utimesSync(join(tmp, `${process.pid}.1.0.cafe.tmp`), beforeThisProcess, beforeThisProcess);
    writeFileSync(join(tmp, 'unknown.tmp'), 'partial');
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(join(tmp, 'unknown.tmp'), old, old);
    // A recent file of unknown origin may belong to a live put elsewhere: kept.
    writeFileSync(join(tmp, 'recent.tmp'), 'partial');
    await store.put(Buffer.from('x'));
    expect(tmpFiles()).toEqual(['recent.tmp']);
  });

  it('given a temporary file of another thread of this process (this pid, another incarnation, written since it started), when the store is first used, then it is kept', async () => {
    const tmp = join(root, 'tmp');
    mkdirSync(tmp, { recursive: true });
    const otherThread = `${process.pid}.1.0.beef.tmp`;
    writeFileSync(join(tmp, otherThread), 'partial');
    await store.put(Buffer.from('x'));
    expect(tmpFiles()).toEqual([otherThread]);
  });

  it('given a blob whose final path already exists, when putting it, then the existing file is kept', async () => {
    const content = Buffer.from('same');
    const { hash } = await store.put(Readable.from([content]));
    const path = join(root, hash.slice(0, 2), hash.slice(2, 4), hash);
    const before = statSync(path).ino;
    await store.put(Readable.from([content]));
    expect(statSync(path).ino).toBe(before);
    expect(tmpFiles()).toEqual([]);
  });

  it('given a traversal attempt, then BlobHashError and no file system access outside the root', async () => {
    await expect(store.read('../../../../etc/passwd')).rejects.toBeInstanceOf(BlobHashError);
    expect(existsSync(join(root, 'tmp'))).toBe(false);
  });

  it('given a closed store, then calls reject and health reports it', async () => {
    await store.close();
    await expect(store.put(Buffer.from('x'))).rejects.toBeInstanceOf(BlobStoreClosedError);
    await expect(store.stat(sha256(Buffer.from('x')))).rejects.toBeInstanceOf(BlobStoreClosedError);
    expect(await store.health()).toEqual({ ok: false, detail: expect.any(String) });
  });

  it('given a put under way, when closing, then close waits for it', async () => {
    const input = new PassThrough();
    const putting = store.put(input);
    const closing = store.close();
    input.end(Buffer.from('late'));
    expect(await putting).toEqual({ hash: sha256(Buffer.from('late')), size: 4 });
    await closing;
  });

  it('given a root that cannot be created, then health is not ok', async () => {
    const file = join(tempRoot(), '..', 'a-file');
    writeFileSync(file, 'x');
    const broken = new FsBlobStore(join(file, 'blobs'));
    expect(await broken.health()).toEqual({ ok: false, detail: expect.any(String) });
    await broken.close();
  });
});
