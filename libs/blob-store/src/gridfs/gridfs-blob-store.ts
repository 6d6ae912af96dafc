import { createHash, randomBytes } from 'node:crypto';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { putReadingErrors } from '../stream-errors';
import {
  GridFSBucket,
  MongoClient,
  WriteConcern,
  type Collection,
  type Db,
  type GridFSBucketWriteStream,
  type GridFSChunk,
  type GridFSFile,
  type MongoClientOptions,
  type ObjectId,
} from 'mongodb';
import { consistentDb, openMongoDatabase, pingMongo, type ConnectRetryOptions } from '#read-store/mongodb/mongo-connection';
import {
  BLOB_HASH,
  BlobHashError,
  BlobNotFoundError,
  PROVISIONAL_ABANDONED_AFTER_MS,
  type BlobInfo,
  type BlobStore,
} from '../blob-store.port';

/**
 * The distributed blob store: content-addressed blobs in the GridFS bucket `blobs`, each file named
 * by the lower-case hex SHA-256 of its content. An upload is written under a provisional name and
 * renamed to its hash only once complete, so a blob is never visible under its hash before all its
 * bytes are stored. A unique index on the file name keeps one copy per content even when the same
 * bytes are put concurrently.
 *
 * A crash between the end of an upload and its rename leaves a provisional file (and its chunks)
 * that nothing will ever rename: the first put of each store deletes those older than
 * `PROVISIONAL_ABANDONED_AFTER_MS`, as the filesystem adapter does with its temporary files.
 */

export const BUCKET_NAME = 'blobs';
export const PROVISIONAL_PREFIX = 'tmp-';
/** How long a failed upload waits for its in-flight chunk writes before deleting its chunks. */
const ABORT_SETTLE_MS = 2000;

/** The connection string is malformed. The message names the problem, never the credentials. */
export class BlobStoreConfigError extends Error {
  override readonly name = 'BlobStoreConfigError';
}

/** MongoDB cannot be reached. */
export class BlobStoreUnavailableError extends Error {
  override readonly name = 'BlobStoreUnavailableError';
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

export interface GridFsBlobStoreOptions extends ConnectRetryOptions {
  /** Database name; overrides the URL path. Default: the URL path, else `docs_platform`. */
  database?: string;
  /** Extra driver options; they override the adapter's defaults. */
  clientOptions?: MongoClientOptions;
}

export class GridFsBlobStore implements BlobStore {
  private readonly bucket: GridFSBucket;
  private readonly files: Collection<GridFSFile>;
  private readonly chunks: Collection<GridFSChunk>;
  private indexes: Promise<void> | undefined;
  private swept: Promise<void> | undefined;
  /** The client this store opened itself (through `connect`) and so closes. */
  private ownClient: MongoClient | undefined;
  private redact: (text: string) => string = (text) => text;
  private closed = false;

  /** A store on a database whose client belongs to the caller: `close()` leaves it open. */
  constructor(private readonly db: Db) {
    this.bucket = new GridFSBucket(db, { bucketName: BUCKET_NAME, writeConcern: new WriteConcern('majority') });
    this.files = db.collection<GridFSFile>(`${BUCKET_NAME}.files`);
    this.chunks = db.collection<GridFSChunk>(`${BUCKET_NAME}.chunks`);
  }

  /**
   * Validates the URL (`BlobStoreConfigError` when malformed), then connects, retrying with backoff
   * on a fresh client each time (`BlobStoreUnavailableError` when every attempt failed).
   */
  static async connect(url: string, options: GridFsBlobStoreOptions = {}): Promise<GridFsBlobStore> {
    const { client, database, redact } = await openMongoDatabase(
      url,
      options,
      {
        invalid: (message) => new BlobStoreConfigError(message),
        unavailable: (message, cause) => new BlobStoreUnavailableError(message, cause),
      },
      'GridFS blob store',
    );
    const store = new GridFsBlobStore(consistentDb(client, database));
    store.ownClient = client;
    store.redact = redact;
    return store;
  }

  async put(content: Buffer | Uint8Array | Readable): Promise<BlobInfo> {
    this.checkOpen();
    if (content instanceof Uint8Array) {
      // Bytes in memory: hash first, and skip the upload when the blob is already stored.
      const bytes = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
      const hash = createHash('sha256').update(bytes).digest('hex');
      await this.prepare();
      const existing = await this.stat(hash);
      if (existing) return existing;
      return this.upload(Readable.from([bytes]));
    }
    if (isReadable(content)) {
      return putReadingErrors(content, async () => {
        await this.prepare();
        return this.upload(content);
      });
    }
    throw new TypeError('blob content must be a Buffer, a Uint8Array or a Readable stream');
  }

  async get(hash: string): Promise<Readable> {
    const file = await this.findFile(hash);
    if (!file) throw new BlobNotFoundError(hash);
    // By id rather than by name: the file found is the one streamed, with no second lookup.
    return this.bucket.openDownloadStream(file._id);
  }

  async read(hash: string): Promise<Buffer> {
    const stream = await this.get(hash);
    const parts: Buffer[] = [];
    for await (const chunk of stream) parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
    return Buffer.concat(parts);
  }

  async stat(hash: string): Promise<BlobInfo | null> {
    const file = await this.findFile(hash);
    return file ? { hash, size: Number(file.length) } : null;
  }

  async delete(hash: string): Promise<void> {
    const file = await this.findFile(hash);
    if (!file) return;
    // The file document first: once it is gone the blob is invisible, and leftover chunks are only space.
    await this.files.deleteOne({ _id: file._id });
    await this.chunks.deleteMany({ files_id: file._id });
  }

  async health(): Promise<{ ok: boolean; detail?: string }> {
    if (this.closed) return { ok: false, detail: 'the GridFS blob store is closed' };
    return pingMongo(this.db, this.redact);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.ownClient?.close();
  }

  /** Streams `source` into a provisional file, then publishes it under its hash. */
  private async upload(source: Readable): Promise<BlobInfo> {
    const provisional = `${PROVISIONAL_PREFIX}${randomBytes(12).toString('hex')}`;
    const upload = this.bucket.openUploadStream(provisional);
    const digest = createHash('sha256');
    let size = 0;
    const hashing = new Transform({
      transform(chunk: unknown, _encoding: BufferEncoding, callback: TransformCallback): void {
        const bytes = toBuffer(chunk);
        if (!bytes) {
          callback(new TypeError('a blob stream must yield Buffers, Uint8Arrays or strings'));
          return;
        }
        digest.update(bytes);
        size += bytes.length;
        callback(null, bytes);
      },
    });
    try {
      await pipeline(source, hashing, upload);
    } catch (error) {
      await this.discardUpload(upload);
      throw error;
    }
    const hash = digest.digest('hex');
    try {
      if (await this.findFile(hash)) {
        await this.deleteFile(upload.id);
      } else {
        await this.bucket.rename(upload.id, hash);
      }
    } catch (error) {
      await this.deleteFile(upload.id);
      // Another put of the same content was renamed first: the unique index refused ours.
      if (errorCode(error) !== 11000) throw error;
    }
    return { hash, size };
  }

  /** Removes whatever a failed upload wrote: its chunks and, if it got that far, its files entry. */
  private async discardUpload(upload: GridFSBucketWriteStream): Promise<void> {
    if (!upload.state.streamEnd && !upload.state.aborted) {
      // Refuse further chunk writes; abort() also deletes the chunks written so far.
      await upload.abort().catch(() => undefined);
    }
    // A chunk write already in flight when the input failed may land after that delete.
    const deadline = Date.now() + ABORT_SETTLE_MS;
    while (upload.state.outstandingRequests > 0 && !upload.state.errored && Date.now() < deadline) {
      await sleep(20);
    }
    await this.deleteFile(upload.id);
  }

  private async deleteFile(id: ObjectId): Promise<void> {
    // Best effort: a leftover provisional file is never visible under a hash.
    await this.files.deleteOne({ _id: id }).catch(() => undefined);
    await this.chunks.deleteMany({ files_id: id }).catch(() => undefined);
  }

  private async findFile(hash: string): Promise<GridFSFile | null> {
    if (typeof hash !== 'string' || !BLOB_HASH.test(hash)) throw new BlobHashError(hash);
    this.checkOpen();
    return this.files.findOne({ filename: hash }, { projection: { _id: 1, length: 1, filename: 1 } });
  }

  private checkOpen(): void {
    if (this.closed) throw new BlobStoreUnavailableError('the GridFS blob store is closed');
  }

  /** Before the first put: the unique index, then (once, best effort) the sweep of abandoned uploads. */
  private async prepare(): Promise<void> {
    await this.ensureIndexes();
    // Best effort: a leftover provisional file is never visible under a hash, so a failed sweep
    // costs space, not correctness; the next store to start tries again.
    this.swept ??= this.sweepProvisional().then(
      () => undefined,
      () => undefined,
    );
    await this.swept;
  }

  /**
   * Deletes the provisional uploads abandoned before `now - PROVISIONAL_ABANDONED_AFTER_MS`, with
   * their chunks; returns how many. A live upload's provisional file exists only between the end
   * of its upload and its rename (GridFS writes the files document last), so the bound leaves it
   * alone even with clocks apart.
   */
  async sweepProvisional(now = Date.now()): Promise<number> {
    this.checkOpen();
    const abandoned = await this.files.find(provisionalSweepFilter(now), { projection: { _id: 1 } }).toArray();
    for (const file of abandoned) await this.deleteFile(file._id);
    return abandoned.length;
  }

  /** One copy per hash: a unique index on the file name (provisional names are random). */
  private ensureIndexes(): Promise<void> {
    if (!this.indexes) {
      this.indexes = this.files.createIndex({ filename: 1 }, { name: 'filename_1', unique: true }).then(() => undefined);
      // A failure is reported to this caller; the next put tries again.
      this.indexes.catch(() => {
        this.indexes = undefined;
      });
    }
    return this.indexes;
  }
}

export async function createGridFsBlobStore(url: string): Promise<GridFsBlobStore> {
  return GridFsBlobStore.connect(url);
}

/** The provisional files abandoned at `now`: an anchored prefix, so the filename index serves it. */
export function provisionalSweepFilter(now: number): { filename: RegExp; uploadDate: { $lt: Date } } {
  return { filename: new RegExp(`^${PROVISIONAL_PREFIX}`), uploadDate: { $lt: new Date(now - PROVISIONAL_ABANDONED_AFTER_MS) } };
}

function isReadable(value: unknown): value is Readable {
  if (value instanceof Readable) return true;
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Readable).pipe === 'function' &&
    typeof (value as Readable)[Symbol.asyncIterator] === 'function'
  );
}

function toBuffer(chunk: unknown): Buffer | undefined {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  return undefined;
}

function errorCode(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = Number((error as { code?: unknown }).code);
  return Number.isFinite(code) ? code : undefined;
}
