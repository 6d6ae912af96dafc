import { createHash, randomBytes } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { GridFSBucket, MongoClient, type Db } from 'mongodb';
import { MongoDBContainer, type StartedMongoDBContainer } from '@testcontainers/mongodb';
import { configuredUrl, describeWith } from '../../../../test/support/external-services';
import { urlHasOption } from '#read-store/mongodb/mongo-connection';
import { blobStoreContract } from '../blob-store.contract';
import { BlobHashError, PROVISIONAL_ABANDONED_AFTER_MS, type BlobStore } from '../blob-store.port';
import {
  BlobStoreConfigError,
  BlobStoreUnavailableError,
  BUCKET_NAME,
  GridFsBlobStore,
  PROVISIONAL_PREFIX,
  provisionalSweepFilter,
} from './gridfs-blob-store';

const SECRET = 's3cr3t-Pa55';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('GridFS blob store without a server', () => {
  it.each([
    ['another scheme', `https://alice:${SECRET}@example.com/db`],
    ['no host', `mongodb://alice:${SECRET}@/db`],
    ['an unknown option', `mongodb://alice:${SECRET}@localhost/db?notAnOption=1`],
  ])('given %s, when connecting, then BlobStoreConfigError without the credentials', async (_, url) => {
    const error = await GridFsBlobStore.connect(url).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BlobStoreConfigError);
    expect((error as Error).message).not.toContain(SECRET);
  });

  it('given no server listening, when connecting, then BlobStoreUnavailableError without the credentials', async () => {
    const url = `mongodb://alice:${SECRET}@127.0.0.1:1/db?serverSelectionTimeoutMS=100&connectTimeoutMS=100`;
    const error = await GridFsBlobStore.connect(url, { attempts: 2, retryDelayMs: 1 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BlobStoreUnavailableError);
    expect((error as Error).message).not.toContain(SECRET);
  });

  describe('argument checks, made before any server round trip', () => {
    // A client that is never connected: any operation reaching the driver would wait for a server.
    const client = new MongoClient('mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=100');
    const store = new GridFsBlobStore(client.db('unused'));
    afterAll(() => client.close());

    it.each([['not-a-hash'], ['A'.repeat(64)], ['0'.repeat(63)], ['g'.repeat(64)]])(
      'given the hash %s, then get, read and stat throw BlobHashError',
      async (hash) => {
        await expect(store.get(hash)).rejects.toBeInstanceOf(BlobHashError);
        await expect(store.read(hash)).rejects.toBeInstanceOf(BlobHashError);
        await expect(store.stat(hash)).rejects.toBeInstanceOf(BlobHashError);
      },
    );

    it('given content that is neither bytes nor a stream, then put throws TypeError', async () => {
      await expect(store.put('text' as unknown as Buffer)).rejects.toBeInstanceOf(TypeError);
    });
  });

  describe('the sweep of abandoned provisional uploads', () => {
    const now = Date.parse('2030-01-01T12:00:00Z');
    const filter = provisionalSweepFilter(now);

    it('selects provisional names only, by an anchored prefix (served by the filename index)', () => {
      expect(filter.filename.source).toBe(`^${PROVISIONAL_PREFIX}`);
      expect(filter.filename.test(`${PROVISIONAL_PREFIX}0123abcd`)).toBe(true);
      expect(filter.filename.test(sha256(Buffer.from('hello')))).toBe(false);
      expect(filter.filename.test(`x${PROVISIONAL_PREFIX}0123`)).toBe(false);
    });

    it('selects uploads that ended more than the shared bound ago', () => {
      expect(filter.uploadDate.$lt.getTime()).toBe(now - PROVISIONAL_ABANDONED_AFTER_MS);
    });
  });
});

/** The replica set started by testcontainers announces an internal host name: connect directly. */
function withDirectConnection(url: string): string {
  if (urlHasOption(url, 'directConnection')) return url;
  if (url.includes('?')) return `${url}&directConnection=true`;
  const afterScheme = url.indexOf('://') + 3;
  return url.indexOf('/', afterScheme) < 0 ? `${url}/?directConnection=true` : `${url}?directConnection=true`;
}

describeWith('mongodb')('GridFS blob store', () => {
  let container: StartedMongoDBContainer | undefined;
  let client: MongoClient;
  const databases = new Set<string>();
  const freshDb = (): Db => {
    const name = `blob_test_${randomBytes(6).toString('hex')}`;
    databases.add(name);
    return client.db(name);
  };

  beforeAll(async () => {
    let url = configuredUrl('mongodb');
    if (!url) {
      container = await new MongoDBContainer('mongo:8').start();
      url = withDirectConnection(container.getConnectionString());
    }
    client = await MongoClient.connect(url);
  }, 180_000);

  afterEach(async () => {
    for (const name of databases) await client.db(name).dropDatabase();
    databases.clear();
  });

  afterAll(async () => {
    await client?.close();
    await container?.stop();
  });

  // The store does not own the shared client: its close() leaves it open.
  const dbOf = new WeakMap<BlobStore, Db>();
  const storeOn = (db: Db): GridFsBlobStore => {
    const store = new GridFsBlobStore(db);
    dbOf.set(store, db);
    return store;
  };
  blobStoreContract('gridfs', async () => storeOn(freshDb()), {
    // What a process that crashed between the end of an upload and its rename leaves.
    async leave(store, content, ageMs) {
      const db = dbOf.get(store)!;
      const upload = new GridFSBucket(db, { bucketName: BUCKET_NAME }).openUploadStream(
        `${PROVISIONAL_PREFIX}${randomBytes(12).toString('hex')}`,
      );
      await new Promise<void>((resolve, reject) => {
        upload.once('finish', () => resolve());
        upload.once('error', reject);
        upload.end(content);
      });
      await db.collection(`${BUCKET_NAME}.files`).updateOne({ _id: upload.id }, { $set: { uploadDate: new Date(Date.now() - ageMs) } });
    },
    async count(store) {
      return dbOf
        .get(store)!
        .collection(`${BUCKET_NAME}.files`)
        .countDocuments({ filename: { $regex: `^${PROVISIONAL_PREFIX}` } });
    },
    async reopen(store) {
      return storeOn(dbOf.get(store)!);
    },
  });

  describe('GridFS specifics', () => {
    let db: Db;
    let store: GridFsBlobStore;
    beforeEach(() => {
      db = freshDb();
      store = new GridFsBlobStore(db);
    });
    afterEach(() => store.close());

    const files = () => db.collection(`${BUCKET_NAME}.files`);
    const chunks = () => db.collection(`${BUCKET_NAME}.chunks`);

    it('given a put, then the blob is one GridFS file named by its hash, with a unique index on filename', async () => {
      const content = randomBytes(600 * 1024);
      const info = await store.put(content);
      expect(info).toEqual({ hash: sha256(content), size: content.length });
      expect(await files().find().project({ _id: 0, filename: 1, length: 1 }).toArray()).toEqual([
        { filename: info.hash, length: content.length },
      ]);
      const indexes = await files().listIndexes().toArray();
      expect(indexes.find((index) => index.name === 'filename_1')).toMatchObject({ key: { filename: 1 }, unique: true });
    });

    it('given a stream still uploading, then its blob is not visible under its hash until complete', async () => {
      const first = randomBytes(300 * 1024);
      const second = randomBytes(10 * 1024);
      const hash = sha256(Buffer.concat([first, second]));
      const input = new PassThrough();
      const putting = store.put(input);
      input.write(first);
      // Let the first chunk reach the server.
      for (let i = 0; i < 100 && (await chunks().countDocuments()) === 0; i++) await sleep(20);
      expect(await chunks().countDocuments()).toBeGreaterThan(0);
      expect(await store.stat(hash)).toBeNull();
      input.end(second);
      expect(await putting).toEqual({ hash, size: first.length + second.length });
      expect(await store.stat(hash)).toEqual({ hash, size: first.length + second.length });
    });

    it('given an input stream that fails midway, then put rejects and leaves neither file nor chunks', async () => {
      async function* failing() {
        yield randomBytes(600 * 1024);
        throw new Error('client went away');
      }
      await expect(store.put(Readable.from(failing()))).rejects.toThrow('client went away');
      expect(await files().countDocuments()).toBe(0);
      expect(await chunks().countDocuments()).toBe(0);
    });

    it('given the same stream content put concurrently, then one file remains and no provisional upload', async () => {
      const content = randomBytes(400 * 1024);
      const results = await Promise.all(
        Array.from({ length: 4 }, () => store.put(Readable.from([content.subarray(0, 1000), content.subarray(1000)]))),
      );
      expect(new Set(results.map((r) => r.hash))).toEqual(new Set([sha256(content)]));
      expect(await files().find().project({ _id: 0, filename: 1 }).toArray()).toEqual([{ filename: sha256(content) }]);
      expect(await chunks().countDocuments()).toBe(Math.ceil(content.length / (255 * 1024)));
      expect((await store.read(sha256(content))).equals(content)).toBe(true);
    });

    it('given a reachable server, then health is ok', async () => {
      expect(await store.health()).toEqual({ ok: true });
    });
  });
});
