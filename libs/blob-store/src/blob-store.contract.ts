/**
 * The behaviour every `BlobStore` adapter must show. Run it from an adapter's spec:
 *
 *   blobStoreContract('fs', async () => new FsBlobStore(tempDir()));
 *
 * `open` must return a fresh, empty store; each test closes the store it opened. `abandoned`, when
 * given, lets the suite plant the provisional uploads a crashed process leaves behind.
 * Test-only: not exported from the library's index.
 */
import { createHash, randomBytes } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { BlobHashError, BlobNotFoundError, PROVISIONAL_ABANDONED_AFTER_MS, type BlobStore } from './blob-store.port';

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** A stream of `content` in chunks of `size` bytes. */
function chunked(content: Buffer, size: number): Readable {
  const parts: Buffer[] = [];
  for (let offset = 0; offset < content.length; offset += size) parts.push(content.subarray(offset, offset + size));
  return Readable.from(parts, { objectMode: false });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** Access to an adapter's provisional uploads, for the sweep rule. */
export interface AbandonedUploads {
  /** Leaves, in the storage behind `store`, a provisional upload of `content` made `ageMs` ago by a process that then crashed. */
  leave(store: BlobStore, content: Buffer, ageMs: number): Promise<void>;
  /** How many provisional uploads the storage behind `store` holds. */
  count(store: BlobStore): Promise<number>;
  /** A new store over the same storage as `store` (a restart). */
  reopen(store: BlobStore): Promise<BlobStore>;
}

export function blobStoreContract(adapterName: string, open: () => Promise<BlobStore>, abandoned?: AbandonedUploads): void {
  describe(`BlobStore contract (${adapterName})`, () => {
    let store: BlobStore;

    beforeEach(async () => {
      store = await open();
    });

    afterEach(async () => {
      await store.close();
    });

    it("given the bytes 'hello', when putting them, then the hash is their well-known SHA-256", async () => {
      expect(await store.put(Buffer.from('hello'))).toEqual({
        hash: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
        size: 5,
      });
    });

    const contents: Array<[string, () => Buffer]> = [
      ['empty content', () => Buffer.alloc(0)],
      ['small content', () => Buffer.from('# Title\n\nSome page body.\n')],
      ['multi-MiB content', () => randomBytes(5 * 1024 * 1024 + 123)],
    ];
    for (const [name, make] of contents) {
      it(`given ${name} as a Buffer, when put then got, read and stat, then the same bytes come back`, async () => {
        const content = make();
        const info = await store.put(content);
        expect(info).toEqual({ hash: sha256(content), size: content.length });
        expect((await collect(await store.get(info.hash))).equals(content)).toBe(true);
        expect((await store.read(info.hash)).equals(content)).toBe(true);
        expect(await store.stat(info.hash)).toEqual(info);
      });

      it(`given ${name} as a Readable, when put then got, then the same bytes come back`, async () => {
        const content = make();
        const info = await store.put(chunked(content, 64 * 1024 + 7));
        expect(info).toEqual({ hash: sha256(content), size: content.length });
        expect((await collect(await store.get(info.hash))).equals(content)).toBe(true);
      });
    }

    it('given a Uint8Array view into a larger buffer, when putting it, then only the viewed bytes are stored', async () => {
      const backing = Buffer.from('xxhelloxx');
      const view = new Uint8Array(backing.buffer, backing.byteOffset + 2, 5);
      const info = await store.put(view);
      expect(info).toEqual({ hash: sha256(Buffer.from('hello')), size: 5 });
      expect((await store.read(info.hash)).toString()).toBe('hello');
    });

    it('given stored content, when putting it again (as bytes or a stream), then the same info comes back', async () => {
      const content = randomBytes(100_000);
      const first = await store.put(content);
      expect(await store.put(Buffer.from(content))).toEqual(first);
      expect(await store.put(chunked(content, 1000))).toEqual(first);
      expect((await store.read(first.hash)).equals(content)).toBe(true);
    });

    it('given the same content put concurrently, when all complete, then each succeeds with the same hash', async () => {
      const content = randomBytes(300 * 1024);
      const results = await Promise.all([
        store.put(content),
        store.put(chunked(content, 10_000)),
        store.put(Buffer.from(content)),
        store.put(chunked(content, 77_777)),
      ]);
      for (const result of results) expect(result).toEqual({ hash: sha256(content), size: content.length });
      expect((await store.read(sha256(content))).equals(content)).toBe(true);
    });

    it('given a stored blob, when deleting it, then it is gone and deleting it again does nothing', async () => {
      const content = Buffer.from('to be deleted');
      const { hash } = await store.put(content);
      await store.delete(hash);
      expect(await store.stat(hash)).toBeNull();
      expect(await rejection(store.read(hash))).toBeInstanceOf(BlobNotFoundError);
      await store.delete(hash);
      expect((await store.put(content)).hash).toBe(hash);
      expect((await store.read(hash)).equals(content)).toBe(true);
    });

    it('given an unknown hash, when stat, get and read, then null, BlobNotFoundError and BlobNotFoundError', async () => {
      const hash = sha256(Buffer.from('never stored'));
      expect(await store.stat(hash)).toBeNull();
      const error = await rejection(store.get(hash));
      expect(error).toBeInstanceOf(BlobNotFoundError);
      expect((error as BlobNotFoundError).hash).toBe(hash);
      expect(await rejection(store.read(hash))).toBeInstanceOf(BlobNotFoundError);
    });

    const invalidHashes: Array<[string, unknown]> = [
      ['too short', 'abc123'],
      ['one digit short', '0'.repeat(63)],
      ['too long', '0'.repeat(65)],
      ['upper case', sha256(Buffer.from('hello')).toUpperCase()],
      ['not hex', 'g'.repeat(64)],
      ['a path', '../etc/passwd'],
      ['a path of hash length', `../../${'0'.repeat(58)}`],
      ['empty', ''],
      ['not a string', 42],
    ];
    for (const [name, hash] of invalidHashes) {
      it(`given a hash that is ${name}, when stat, get and read, then BlobHashError`, async () => {
        expect(await rejection(store.stat(hash as string))).toBeInstanceOf(BlobHashError);
        expect(await rejection(store.get(hash as string))).toBeInstanceOf(BlobHashError);
        expect(await rejection(store.read(hash as string))).toBeInstanceOf(BlobHashError);
      });
    }

    it('given a stream that fails midway, when putting it, then put rejects and nothing is stored for the partial bytes', async () => {
      const partial = randomBytes(200 * 1024);
      async function* failing(): AsyncGenerator<Buffer> {
        yield partial.subarray(0, 100 * 1024);
        yield partial.subarray(100 * 1024);
        throw new Error('client went away');
      }
      await expect(store.put(Readable.from(failing()))).rejects.toThrow('client went away');
      expect(await store.stat(sha256(partial))).toBeNull();
    });

    it('given a stream that fails before the store reads it, when putting it, then put rejects with its error (no unhandled error event) and nothing is stored', async () => {
      const input = new PassThrough();
      const putting = store.put(input);
      input.destroy(new Error('connection reset'));
      await expect(putting).rejects.toThrow('connection reset');
      expect(await store.stat(sha256(Buffer.alloc(0)))).toBeNull();
    });

    if (abandoned) {
      it('given provisional uploads left by a crashed process, when a store over the same storage first puts, then those older than the bound are removed and recent ones kept', async () => {
        const old = randomBytes(10_000);
        const recent = randomBytes(10_000);
        await abandoned.leave(store, old, PROVISIONAL_ABANDONED_AFTER_MS + 60_000);
        await abandoned.leave(store, recent, 60_000);
        expect(await abandoned.count(store)).toBe(2);
        const restarted = await abandoned.reopen(store);
        try {
          const info = await restarted.put(Buffer.from('after a restart'));
          expect(await abandoned.count(restarted)).toBe(1);
          // Neither was ever visible under its hash.
          expect(await restarted.stat(sha256(old))).toBeNull();
          expect(await restarted.stat(sha256(recent))).toBeNull();
          expect((await restarted.read(info.hash)).toString()).toBe('after a restart');
        } finally {
          await restarted.close();
        }
      });
    }

    it('given an open store, when checking health, then it is ok', async () => {
      expect(await store.health()).toMatchObject({ ok: true });
    });
  });
}
