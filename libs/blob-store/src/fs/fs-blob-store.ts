import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { constants as fsConstants, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { access, mkdir, open, readdir, readFile, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline, Readable, Transform } from 'node:stream';
import { threadId } from 'node:worker_threads';
import { fsyncPath } from '#platform/fsync';
import { asStorageFull, StorageFullError } from '#platform/storage-full';
import { DurableWrites } from './durable-writes';
import { PackTruncatedError, SmallBlobPacks } from './small-blob-packs';
import { log } from '#platform/logging';
import { putReadingErrors } from '../stream-errors';
import {
  BLOB_HASH,
  BlobDamagedError,
  BlobHashError,
  BlobNotFoundError,
  PROVISIONAL_ABANDONED_AFTER_MS,
  type BlobInfo,
  type BlobStore,
  type BlobStoreHealth,
} from '../blob-store.port';

/**
 * The embedded blob store, under `rootDir` (normally `DATA_DIR/blobs`), content-addressed by the
 * hex SHA-256 in two tiers:
 *
 * - **Small blobs** (puts of bytes up to `SMALL_BLOB_MAX_BYTES`: page trees and bodies, most spec
 *   versions) are appended to pack files in `root/packs/`, found through an LMDB index there
 *   (`small-blob-packs.ts`); puts of one event-loop turn share one flush. A million-event seed
 *   writes 250,000 blobs of 1.8 KB on average: creating a file for each (and reading it back cold,
 *   three directory levels each) was most of its content phase.
 * - **Everything else** (streams, larger bytes) is a file `root/ab/cd/<hash>`, by the first two
 *   byte pairs of the hash.
 *
 * Reads look in the packs first, then for a file: a data directory written before the packs keeps
 * its files, and a put of a stream may store as a file what a put of bytes stored in a pack. A
 * delete removes both.
 *
 * A put of a file writes the content into a temporary file in `root/tmp/` (a stream while hashing it), fsyncs
 * the file, renames it onto its final path (atomic: a blob is either absent or complete under its
 * hash; if it is already there, the temporary file is dropped) and fsyncs the destination directory
 * so the rename survives a crash. Puts of bytes run that sequence on write threads
 * (`durable-writes.ts`), streams through the promise API. Temporary files left behind by a crashed process are removed on first use.
 */

/** Temporary files of another live process are only considered abandoned after this long. */
const ABANDONED_AFTER_MS = PROVISIONAL_ABANDONED_AFTER_MS;
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/** Puts of bytes up to this size go to the packs of small blobs; larger ones, and streams, to files. */
export const SMALL_BLOB_MAX_BYTES = 64 * 1024;
/** Files up to this size are read whole and checked against their hash before a byte is sent; larger ones are checked as they stream. */
export const VERIFIED_BEFORE_SENDING_BYTES = 1024 * 1024;

/**
 * This thread's incarnation, which starts the name of each temporary file it writes: a pid alone
 * repeats across restarts (pid 1 in a container), and worker threads of one process can start in
 * the same millisecond (the seed's content workers: two of them putting the same blob in bulk mode
 * wrote one temporary file, and the second rename failed), hence the thread id.
 */
const INCARNATION = `${process.pid}.${Math.round(performance.timeOrigin)}.${threadId}`;
const TEMPORARY_NAME = /^(\d+)\.(\d+)\.(\d+)\./;
/** Temporaries named by this thread so far: with the incarnation, a name no other put has used (a count costs a tenth of a microsecond, eight random bytes 7–10 µs). */
let temporariesNamed = 0;
const newTemporaryName = (): string => `${INCARNATION}.${(temporariesNamed += 1)}.tmp`;
/**
 * When this process started (process-wide, where each worker thread has a `timeOrigin` of its
 * own): a temporary named with this pid but another incarnation is another thread's when it was
 * written since, an earlier process's with the same pid when before.
 */
const PROCESS_STARTED_MS = Date.now() - process.uptime() * 1000;

/** The store was closed. */
export class BlobStoreClosedError extends Error {
  override readonly name = 'BlobStoreClosedError';
  constructor() {
    super('the filesystem blob store is closed');
  }
}

export interface FsBlobStoreOptions {
  /**
   * Bulk work, alone on the directory (the CLI's `seed` and `rebuild`): puts are not flushed one by
   * one (packs are not synced and their index is opened with `noSync`; a file is written and
   * renamed into place without fsyncs), and each read reads synchronously (a blob of a
   * few KB costs tens of microseconds instead of a dozen thread-pool round trips for a put, four for
   * a read: a 200,000-event rebuild, which reads the trees of every revision, took 46 s instead of
   * 55 s); `flushToDisk()` makes the puts durable at the end. Not for the service: an acknowledged
   * put must survive a crash, and a read from a slow disk must not hold up every other request.
   */
  bulk?: boolean;
}

export class FsBlobStore implements BlobStore {
  private readonly tmpDir: string;
  private ready: Promise<void> | undefined;
  private closed = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly bulk: boolean;
  /** Bulk mode: fan-out directories known to exist. */
  private readonly madeDirectories = new Set<string>();
  /** The threads that write the puts of bytes (the service's). */
  private readonly durableWrites = new DurableWrites();
  /** The small blobs (opened on first use). */
  private readonly small: SmallBlobPacks;
  /** Hashes whose stored bytes failed their check (reported by `health`). */
  private readonly damaged = new Set<string>();
  /** Set by a put that could not be stored for lack of space, cleared by one that was: `health` reports it. */
  private storageFull: StorageFullError | undefined;

  constructor(
    readonly rootDir: string,
    options: FsBlobStoreOptions = {},
  ) {
    if (typeof rootDir !== 'string' || rootDir === '') throw new TypeError('FsBlobStore needs a root directory');
    this.tmpDir = join(rootDir, 'tmp');
    this.bulk = options.bulk === true;
    this.small = new SmallBlobPacks(join(rootDir, 'packs'), this.bulk);
  }

  /**
   * Bulk mode: flushes what the puts wrote (the system's `sync`, one call for all of them, where
   * fsyncing each file and directory would cost more than writing them; it flushes the packs and
   * their index too). A no-op otherwise: every put is durable when it resolves.
   */
  async flushToDisk(): Promise<void> {
    if (!this.bulk) return;
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    await this.small.whenIndexed();
    try {
      execFileSync('sync', { stdio: 'ignore' });
    } catch {
      // No `sync` (Windows): the files are written; the operating system flushes them soon.
    }
  }

  put(content: Buffer | Uint8Array | Readable): Promise<BlobInfo> {
    if (!(content instanceof Uint8Array) && !(content instanceof Readable)) {
      return Promise.reject(new TypeError('blob content must be a Buffer, a Uint8Array or a Readable stream'));
    }
    const put = async (): Promise<BlobInfo> => {
      await this.init();
      return content instanceof Uint8Array ? this.putBytes(content) : this.putStream(content);
    };
    return this.track(() => (content instanceof Readable ? putReadingErrors(content, put) : put())).then(
      (info) => {
        this.storageFull = undefined;
        return info;
      },
      (error: unknown) => {
        const mapped = asStorageFull('blob store', error);
        if (mapped instanceof StorageFullError) this.storageFull = mapped;
        throw mapped;
      },
    );
  }

  /**
   * Every read checks the hash (the store is content-addressed: bytes that do not match it are not
   * the blob). Small blobs and files up to `VERIFIED_BEFORE_SENDING_BYTES` are checked before the
   * stream starts (`BlobDamagedError`); a larger file is hashed as it streams, and a mismatch at its
   * end destroys the stream with that error, so a client sees a broken transfer rather than accepting
   * wrong bytes.
   */
  get(hash: string): Promise<Readable> {
    return this.track(async () => {
      const path = this.pathOf(hash);
      const small = await this.readSmall(hash);
      if (small !== undefined) return Readable.from([small], { objectMode: false });
      let handle: FileHandle;
      try {
        handle = await open(path, 'r');
      } catch (error) {
        throw notFoundOr(error, hash);
      }
      let streamed = false;
      try {
        if ((await handle.stat()).size <= VERIFIED_BEFORE_SENDING_BYTES) {
          return Readable.from([this.checked(hash, await handle.readFile())], { objectMode: false });
        }
        streamed = true;
        // pipeline: an error of either side destroys both (a read error ends the transfer too).
        return pipeline(handle.createReadStream(), this.hashingPassThrough(hash), () => undefined);
      } finally {
        if (!streamed) await handle.close().catch(() => undefined);
      }
    });
  }

  read(hash: string): Promise<Buffer> {
    return this.track(async () => {
      const path = this.pathOf(hash);
      const small = await this.readSmall(hash);
      if (small !== undefined) return small;
      let bytes: Buffer;
      try {
        bytes = this.bulk ? readFileSync(path) : await readFile(path);
      } catch (error) {
        throw notFoundOr(error, hash);
      }
      return this.checked(hash, bytes);
    });
  }

  /**
   * Opens the packs' index now rather than on first use, which checks each pack against what the
   * index says is in it (a damaged tail is logged): the problems found.
   */
  checkPacks(): string[] {
    return this.small.damagedTails();
  }

  /** The hashes of the blobs found damaged since the store opened. */
  damagedBlobs(): string[] {
    return [...this.damaged];
  }

  stat(hash: string): Promise<BlobInfo | null> {
    return this.track(async () => {
      const path = this.pathOf(hash);
      const small = this.small.size(keyOf(hash));
      if (small !== undefined) return { hash, size: small };
      try {
        const info = await stat(path);
        return info.isFile() ? { hash, size: info.size } : null;
      } catch (error) {
        if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return null;
        throw error;
      }
    });
  }

  delete(hash: string): Promise<void> {
    return this.track(async () => {
      const path = this.pathOf(hash);
      await this.small.remove(keyOf(hash));
      try {
        await unlink(path);
      } catch (error) {
        if (!isCode(error, 'ENOENT') && !isCode(error, 'ENOTDIR')) throw error;
      }
    });
  }

  async health(): Promise<BlobStoreHealth> {
    if (this.closed) return { ok: false, detail: 'the filesystem blob store is closed' };
    if (this.storageFull) {
      const cause = this.storageFull.cause as Error | undefined;
      return { ok: false, detail: `puts failing: ${this.storageFull.message} (${cause?.message ?? String(cause)})` };
    }
    try {
      await this.init();
      await access(this.rootDir, fsConstants.R_OK | fsConstants.W_OK);
      await access(this.tmpDir, fsConstants.R_OK | fsConstants.W_OK);
      const tails = this.small.damagedTails();
      if (this.damaged.size === 0 && tails.length === 0) return { ok: true };
      // Still ok: every other blob serves; the damaged ones answer 500 and are listed here.
      const details = [...(this.damaged.size > 0 ? [`${this.damaged.size} damaged blob(s) found on reading`] : []), ...tails];
      return { ok: true, status: 'degraded', damaged: this.damagedBlobs(), detail: details.join('; ') };
    } catch (error) {
      return { ok: false, detail: `blob directory not usable: ${(error as Error)?.message ?? String(error)}` };
    }
  }

  /** Refuses new calls and waits for the ones under way. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    await this.durableWrites.close();
    await this.small.close();
  }

  // ---------------------------------------------------------------------------------------------

  /** A small blob's bytes, checked against its hash; undefined when it is not in a pack. */
  private async readSmall(hash: string): Promise<Buffer | undefined> {
    let bytes: Buffer | undefined;
    try {
      bytes = await this.small.read(keyOf(hash));
    } catch (error) {
      if (error instanceof PackTruncatedError) throw this.foundDamaged(hash, error.message);
      throw error;
    }
    return bytes === undefined ? undefined : this.checked(hash, bytes);
  }

  private checked(hash: string, bytes: Buffer): Buffer {
    const actual = createHash('sha256').update(bytes).digest('hex');
    if (actual !== hash) throw this.foundDamaged(hash, `its ${bytes.length} stored bytes hash to ${actual}`);
    return bytes;
  }

  /** Streams the bytes through while hashing them; a mismatch at the end fails the stream instead of ending it. */
  private hashingPassThrough(hash: string): Transform {
    const hasher = createHash('sha256');
    let size = 0;
    return new Transform({
      transform: (chunk: Buffer, _encoding, callback) => {
        hasher.update(chunk);
        size += chunk.length;
        callback(null, chunk);
      },
      flush: (callback) => {
        const actual = hasher.digest('hex');
        callback(actual === hash ? null : this.foundDamaged(hash, `its ${size} stored bytes hash to ${actual}`));
      },
    });
  }

  private foundDamaged(hash: string, problem: string): BlobDamagedError {
    this.damaged.add(hash);
    log.error({ hash, problem, rootDir: this.rootDir }, `blob ${hash} is damaged: ${problem}`);
    return new BlobDamagedError(hash, problem);
  }

  private track<R>(run: () => Promise<R>): Promise<R> {
    if (this.closed) return Promise.reject(new BlobStoreClosedError());
    const promise = run();
    this.inFlight.add(promise);
    const done = (): void => {
      this.inFlight.delete(promise);
    };
    promise.then(done, done);
    return promise;
  }

  /** Where a blob lives; refuses anything that is not a lower-case hex SHA-256. */
  private pathOf(hash: string): string {
    if (typeof hash !== 'string' || !BLOB_HASH.test(hash)) throw new BlobHashError(hash);
    return join(this.rootDir, hash.slice(0, 2), hash.slice(2, 4), hash);
  }

  private init(): Promise<void> {
    this.ready ??= (async () => {
      await mkdir(this.tmpDir, { recursive: true, mode: DIR_MODE });
      await this.removeStaleTemporaries();
    })().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  /**
   * Deletes temporary files no live put can own: those of an earlier process with this pid, of a
   * process that is gone, and any older than `ABANDONED_AFTER_MS`. Another thread of this process
   * (the seed's content workers) may be writing its own.
   */
  private async removeStaleTemporaries(): Promise<void> {
    const now = Date.now();
    for (const name of await readdir(this.tmpDir)) {
      const path = join(this.tmpDir, name);
      const match = TEMPORARY_NAME.exec(name);
      let stale: boolean;
      const ownPid = match !== null && Number(match[1]) === process.pid;
      if (match && `${match[1]}.${match[2]}.${match[3]}` === INCARNATION) {
        stale = false;
      } else if (match && !ownPid && !processAlive(Number(match[1]))) {
        stale = true;
      } else {
        let modified: number;
        try {
          modified = (await stat(path)).mtimeMs;
        } catch {
          continue; // gone meanwhile: its put finished
        }
        stale = now - modified > ABANDONED_AFTER_MS || (ownPid && modified < PROCESS_STARTED_MS);
      }
      if (stale) await unlink(path).catch(() => undefined);
    }
  }

  private async putBytes(content: Uint8Array): Promise<BlobInfo> {
    const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
    const hash = createHash('sha256').update(bytes).digest('hex');
    if (bytes.length <= SMALL_BLOB_MAX_BYTES) return this.putSmall(hash, bytes);
    if (this.bulk) return this.putBulk(hash, bytes);
    // On a write thread, in one round trip (durable-writes.ts); a blob already stored is left as it is.
    const tmpPath = join(this.tmpDir, newTemporaryName());
    await this.durableWrites.write(this.rootDir, tmpPath, this.pathOf(hash), bytes);
    return { hash, size: bytes.length };
  }

  /** A small blob into a pack; one already stored is left as it is. */
  private async putSmall(hash: string, bytes: Buffer): Promise<BlobInfo> {
    // Written when this turn's puts are flushed, from a copy: the caller's buffer may change meanwhile (a worker thread's put copies too).
    await this.small.put(keyOf(hash), Buffer.from(bytes));
    return { hash, size: bytes.length };
  }

  /** Bulk mode: the file written in tmp/ and renamed onto its name, no fsync (`flushToDisk`). */
  private putBulk(hash: string, bytes: Buffer): BlobInfo {
    const dir = join(this.rootDir, hash.slice(0, 2), hash.slice(2, 4));
    if (!this.madeDirectories.has(dir)) {
      mkdirSync(dir, { recursive: true, mode: DIR_MODE });
      this.madeDirectories.add(dir);
    }
    const finalPath = join(dir, hash);
    if (existsSync(finalPath)) return { hash, size: bytes.length };
    const tmpPath = join(this.tmpDir, `${INCARNATION}.${hash}.tmp`);
    writeFileSync(tmpPath, bytes, { mode: FILE_MODE });
    renameSync(tmpPath, finalPath);
    return { hash, size: bytes.length };
  }

  private putStream(content: Readable): Promise<BlobInfo> {
    return this.writeBlob(async (handle) => {
      const hasher = createHash('sha256');
      let size = 0;
      for await (const chunk of content as AsyncIterable<unknown>) {
        const bytes = toBytes(chunk);
        hasher.update(bytes);
        size += bytes.length;
        await writeAll(handle, bytes);
      }
      return { hash: hasher.digest('hex'), size };
    });
  }

  /**
   * Writes a temporary file with `write`, makes it durable and moves it under its hash. On any
   * failure the temporary file is removed and nothing appears under a hash.
   */
  private async writeBlob(write: (handle: FileHandle) => Promise<BlobInfo>): Promise<BlobInfo> {
    const tmpPath = join(this.tmpDir, newTemporaryName());
    let handle: FileHandle | undefined = await open(tmpPath, 'wx', FILE_MODE);
    let moved = false;
    try {
      const info = await write(handle);
      await handle.sync();
      await handle.close();
      handle = undefined;
      const finalPath = this.pathOf(info.hash);
      if (await this.exists(info.hash)) return info;
      const outer = join(this.rootDir, info.hash.slice(0, 2));
      const dir = join(outer, info.hash.slice(2, 4));
      const created = await mkdir(dir, { recursive: true, mode: DIR_MODE });
      // New fan-out directories: the entries naming them are made durable too, in the parent of
      // each one created (mkdir answers the outermost one it made). Only the leaf is new in most
      // cases, so only its parent is synced. These syncs and the rename's run together: the blob
      // is answered as stored only once every one of them has completed.
      const parents = created === undefined ? [] : created === outer ? [this.rootDir, outer] : [outer];
      await Promise.all([
        ...parents.map((parent) => fsyncPath(parent)),
        rename(tmpPath, finalPath).then(() => {
          moved = true;
          // The new name is made durable; the old one in tmp/ is not worth a second fsync: should a
          // crash bring it back, it is a stale temporary, removed on the next start.
          return fsyncPath(dir);
        }),
      ]);
      return info;
    } finally {
      if (handle) await handle.close().catch(() => undefined);
      if (!moved) await unlink(tmpPath).catch(() => undefined);
    }
  }

  private async exists(hash: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(hash))).isFile();
    } catch (error) {
      if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return false;
      throw error;
    }
  }
}

/** A small blob's key: the hash's 32 bytes (the hash was checked by `pathOf`). */
function keyOf(hash: string): Buffer {
  return Buffer.from(hash, 'hex');
}

function toBytes(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  throw new TypeError('blob stream chunks must be bytes (Buffer, Uint8Array) or strings');
}

async function writeAll(handle: FileHandle, bytes: Buffer): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
    offset += bytesWritten;
  }
}

function processAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isCode(error, 'EPERM');
  }
}

function notFoundOr(error: unknown, hash: string): unknown {
  return isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR') || isCode(error, 'EISDIR') ? new BlobNotFoundError(hash) : error;
}

function isCode(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === code;
}
