import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobDamagedError } from '../blob-store.port';
import { FsBlobStore, SMALL_BLOB_MAX_BYTES, VERIFIED_BEFORE_SENDING_BYTES } from './fs-blob-store';

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** Flips the last `count` bytes of a file in place. */
function flipTail(file: string, count: number): void {
  const bytes = readFileSync(file);
  const tail = Buffer.from(bytes.subarray(bytes.length - count).map((byte) => byte ^ 0xff));
  const fd = openSync(file, 'r+');
  writeSync(fd, tail, 0, count, bytes.length - count);
  closeSync(fd);
}

const fileOf = (root: string, hash: string) => join(root, hash.slice(0, 2), hash.slice(2, 4), hash);

async function drain(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('the filesystem blob store checks every read against the hash', () => {
  let dir: string;
  let root: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'blob-damage-'));
    root = join(dir, 'blobs');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('given a file blob whose last bytes were flipped, when it is read or fetched, then BlobDamagedError, and health lists it as degraded', async () => {
    const store = new FsBlobStore(root);
    const { hash } = await store.put(randomBytes(SMALL_BLOB_MAX_BYTES + 1000));
    flipTail(fileOf(root, hash), 16);

    await expect(store.read(hash)).rejects.toThrow(BlobDamagedError);
    await expect(store.get(hash)).rejects.toThrow(BlobDamagedError);
    expect(await store.health()).toEqual({
      ok: true,
      status: 'degraded',
      damaged: [hash],
      detail: expect.stringMatching(/1 damaged blob/),
    });
    await store.close();
  });

  it('given a file blob cut short, when it is fetched, then BlobDamagedError before any byte is sent', async () => {
    const store = new FsBlobStore(root);
    const { hash, size } = await store.put(randomBytes(200 * 1024));
    truncateSync(fileOf(root, hash), size - 1000);

    await expect(store.get(hash)).rejects.toThrow(/damaged/);
    await store.close();
  });

  it('given a large file blob (streamed) whose last bytes were flipped, when it is fetched, then the stream fails at its end instead of ending', async () => {
    const store = new FsBlobStore(root);
    const { hash } = await store.put(randomBytes(VERIFIED_BEFORE_SENDING_BYTES + 300 * 1024));
    flipTail(fileOf(root, hash), 8);

    const stream = await store.get(hash);

    await expect(drain(stream)).rejects.toThrow(BlobDamagedError);
    expect((await store.health()).damaged).toEqual([hash]);
    await store.close();
  });

  it('given a large file blob that is sound, when it is fetched, then the stream ends with its bytes', async () => {
    const store = new FsBlobStore(root);
    const bytes = randomBytes(VERIFIED_BEFORE_SENDING_BYTES + 5);
    const { hash } = await store.put(bytes);

    expect((await drain(await store.get(hash))).equals(bytes)).toBe(true);
    expect(await store.health()).toEqual({ ok: true });
    await store.close();
  });

  it('given a small blob whose bytes were changed in its pack, when it is read, then BlobDamagedError', async () => {
    const store = new FsBlobStore(root);
    const bytes = randomBytes(2000);
    const { hash } = await store.put(bytes);
    await store.close();
    const pack = join(root, 'packs', '1.pack');
    flipTail(pack, 4);

    const reopened = new FsBlobStore(root);

    await expect(reopened.read(hash)).rejects.toThrow(BlobDamagedError);
    await expect(reopened.get(hash)).rejects.toThrow(BlobDamagedError);
    await reopened.close();
  });

  it('given a pack whose tail was cut off, when the store opens, then the damage is reported, the intact blobs serve and the lost one fails', async () => {
    const store = new FsBlobStore(root);
    const first = randomBytes(3000);
    const second = randomBytes(3000);
    await store.put(first);
    const { hash: lostHash } = await store.put(second);
    await store.close();
    const pack = join(root, 'packs', '1.pack');
    truncateSync(pack, statSync(pack).size - 1500);

    const reopened = new FsBlobStore(root);
    const problems = reopened.checkPacks();

    expect(problems).toEqual([expect.stringMatching(/^pack 1 is \d+ bytes but its index names \d+/)]);
    expect(sha256(await reopened.read(sha256(first)))).toBe(sha256(first));
    await expect(reopened.read(lostHash)).rejects.toThrow(BlobDamagedError);
    expect(await reopened.health()).toMatchObject({ ok: true, status: 'degraded', damaged: [lostHash] });
    await reopened.close();
  });

  it('given a pack index cut short, when the store opens, then the index is moved aside and built again from the packs', async () => {
    const store = new FsBlobStore(root);
    const bytes = randomBytes(1000);
    const { hash } = await store.put(bytes);
    await store.close();
    const index = join(root, 'packs', 'index.mdb');
    truncateSync(index, Math.floor(statSync(index).size / 2));

    const reopened = new FsBlobStore(root);

    expect((await reopened.read(hash)).equals(bytes)).toBe(true);
    expect(readdirSync(join(root, 'packs')).filter((name) => name.startsWith('index.mdb.damaged-'))).toHaveLength(1);
    const more = await reopened.put(randomBytes(1000));
    expect(await reopened.stat(more.hash)).toEqual(more);
    await reopened.close();
  });
});
