import { createHash } from 'node:crypto';
import { closeSync, fdatasync, fstatSync, mkdirSync, openSync, read, readdirSync, readSync, renameSync, writeSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { open as openLmdb, type RootDatabase } from 'lmdb';
import { fsyncPathSync } from '#platform/fsync';
import { checkLmdbFile } from '#platform/lmdb-file-check';
import { log } from '#platform/logging';
import { isLmdbCommitFailure, listenToLmdbCommit } from '#platform/storage-full';

const fdatasyncAsync = promisify(fdatasync);
const readAsync = promisify(read);

/** A pack file grows to about this size, then the next put starts another. */
export const PACK_MAX_BYTES = 1024 * 1024 * 1024;
/** Descriptors of pack files kept open for reads, at most (a service writes one pack per run that writes). */
const OPEN_PACKS = 128;
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
/** Each record of a pack: the hash's 32 bytes and the length (4 bytes), then the bytes. */
const HEADER_BYTES = 36;
const HASH_BYTES = 32;
const PACK_NAME = /^(\d+)\.pack$/;
/** The index's key for the last pack number handed out. Hash keys are 32 bytes, these 1 and 5: no clash. */
const LAST_PACK = Buffer.from([0]);
const LOCATION_BYTES = 16;

/** Where a small blob's bytes are: pack number, offset of the bytes (after the record's header) and length. */
interface Location {
  pack: number;
  offset: number;
  length: number;
}

interface QueuedPut {
  key: Buffer;
  bytes: Buffer;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Small blobs appended to pack files (`dir/<n>.pack`) and found through an LMDB index
 * (`dir/index.mdb`: the hash's 32 bytes → pack, offset, length). A file per blob cost a file
 * creation per put and three directory levels per cold read: a million-event seed writes 250,000
 * of them. The bytes are read with one `pread` (off the event loop unless `bulk`), never through a
 * memory map: the index is all that is mapped, about 60 bytes a blob, so reading bodies does not
 * make the page cache count as this process's resident memory (on this kernel, a value read
 * through LMDB's map mapped about 100 KB of the file around it).
 *
 * **The packs are the truth, the index a cache of them.** Each record carries its hash and length,
 * and the hash checks the bytes. Puts queued in one turn are appended to this store's pack together
 * and resolve after one `fdatasync`; their index entries follow in one LMDB transaction, with the
 * offset up to which the pack is indexed, and nobody waits for it: until it commits, this store
 * answers from memory, and after a crash the first use of the directory indexes what lies past each
 * pack's indexed offset, up to the first record that is torn (a crash during the append). A put
 * therefore costs one flush on its way, not three (the index's commit syncs twice), which matters
 * less for the flush than for the turns of a busy event loop that each wait adds.
 *
 * Each store writes a pack of its own, numbered by the index in a transaction, and flushes are
 * written one after another, so the seed's worker threads never write the same file and indexed
 * offsets only grow. A put is readable through its own store once it resolves, through another
 * store on the directory (another thread) once its index entry is committed (`whenIndexed`) or
 * when that store is next opened.
 *
 * `bulk` (the CLI's seed and rebuild, alone on the directory): no `fdatasync`, the index opened
 * with `noSync`, reads synchronous; the caller flushes at the end (`FsBlobStore.flushToDisk`).
 */
/** A pack ends before the bytes its index names (its tail was lost). */
export class PackTruncatedError extends Error {
  override readonly name = 'PackTruncatedError';
  constructor(
    readonly pack: number,
    readonly needed: number,
  ) {
    super(`pack ${pack} ends before the blob it names (needs ${needed} bytes)`);
  }
}

export class SmallBlobPacks {
  private index: RootDatabase<Buffer, Buffer> | undefined;
  private writer: { pack: number; fd: number; size: number } | undefined;
  /** Open descriptors by pack number, with how many calls on the thread pool use each (closed only at zero). */
  private readonly packs = new Map<number, { fd: number; reading: number }>();
  private queue: QueuedPut[] = [];
  /** Puts queued or being written, by hash: a second put of the same bytes waits for the first. */
  private readonly unwritten = new Map<string, Promise<void>>();
  /** Written and flushed, their index entries not committed yet, by hash. */
  private readonly unindexed = new Map<string, Location>();
  /** The flushes, one after another. */
  private flushed: Promise<void> = Promise.resolve();
  /** The index writes not committed yet. */
  private readonly indexing = new Set<Promise<unknown>>();
  /** Directories whose entries for directories made here are still to be synced (with the first pack's). */
  private readonly madeDirectories: string[] = [];
  private readonly maxPackBytes: number;
  /** Packs found shorter than their index says at open, described (`damagedTails`). */
  private readonly shortPacks: string[] = [];

  constructor(
    private readonly dir: string,
    private readonly bulk: boolean,
    options: { maxPackBytes?: number } = {},
  ) {
    this.maxPackBytes = options.maxPackBytes ?? PACK_MAX_BYTES;
  }

  /** Stores the bytes under `key` (the hash's 32 bytes) unless they are stored; resolves once they are durable. */
  put(key: Buffer, bytes: Buffer): Promise<void> {
    const id = key.toString('hex');
    const pending = this.unwritten.get(id);
    if (pending) return pending;
    if (this.locate(key)) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => this.queue.push({ key, bytes, resolve, reject }));
    this.unwritten.set(id, done);
    const forget = () => this.unwritten.delete(id);
    done.then(forget, forget);
    // The puts of a tree's blobs arrive one microtask apart, before this runs: one flush for them all.
    if (this.queue.length === 1) queueMicrotask(() => (this.flushed = this.flushed.then(() => this.flush())));
    return done;
  }

  /** The packs found shorter at open than the offset their index names: the blobs past their end are lost, the others serve. */
  damagedTails(): string[] {
    if (!this.index) {
      try {
        this.openIndex();
      } catch {
        return [];
      }
    }
    return [...this.shortPacks];
  }

  /** The stored bytes' length, or undefined. */
  size(key: Buffer): number | undefined {
    return this.locate(key)?.length;
  }

  /** The stored bytes, or undefined; synchronous in bulk mode, one `pread` on the thread pool otherwise. */
  async read(key: Buffer): Promise<Buffer | undefined> {
    const at = this.locate(key);
    if (!at) return undefined;
    const buffer = Buffer.allocUnsafe(at.length);
    if (this.bulk) {
      readFully(this.pack(at.pack).fd, buffer, at.offset, at.pack);
      return buffer;
    }
    return this.usingPack(at.pack, async (fd) => {
      let done = 0;
      while (done < at.length) {
        const { bytesRead } = await readAsync(fd, buffer, done, at.length - done, at.offset + done);
        if (bytesRead === 0) throw new PackTruncatedError(at.pack, at.offset + at.length);
        done += bytesRead;
      }
      return buffer;
    });
  }

  /**
   * Removes the blob: its index entry first (durably), then its record's hash and bytes overwritten
   * with zeros, so that a purged body is gone from the disk's files, not only unnamed. The space is
   * not reused.
   */
  async remove(key: Buffer): Promise<void> {
    await this.unwritten.get(key.toString('hex'))?.catch(() => undefined);
    await this.settleIndexing();
    const at = this.locate(key);
    if (!at) return;
    await this.openIndex().remove(key);
    await this.usingPack(at.pack, async (fd) => {
      writeFully(fd, Buffer.alloc(HASH_BYTES), at.offset - HEADER_BYTES);
      writeFully(fd, Buffer.alloc(at.length), at.offset);
      if (!this.bulk) await fdatasyncAsync(fd);
    });
  }

  /** Waits for the puts queued and their index entries, then closes the index and the packs. */
  async close(): Promise<void> {
    await this.whenIndexed();
    const index = this.index;
    this.index = undefined;
    await index?.close();
    for (const { fd } of this.packs.values()) closeSync(fd);
    this.packs.clear();
    this.writer = undefined;
  }

  // ---------------------------------------------------------------------------------------------

  /** Resolves once the index entries of every put so far are committed (bulk work flushes after this). */
  async whenIndexed(): Promise<void> {
    while (this.unwritten.size > 0) await Promise.allSettled([...this.unwritten.values()]);
    await this.settleIndexing();
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    let locations: Location[];
    let writer: { pack: number; fd: number; size: number };
    try {
      writer = this.writerFor(batch.reduce((total, put) => total + HEADER_BYTES + put.bytes.length, 0));
      locations = batch.map((put) => {
        const header = Buffer.allocUnsafe(HEADER_BYTES);
        put.key.copy(header, 0);
        header.writeUInt32BE(put.bytes.length, HASH_BYTES);
        writeFully(writer.fd, header, writer.size);
        writeFully(writer.fd, put.bytes, writer.size + HEADER_BYTES);
        const location = { pack: writer.pack, offset: writer.size + HEADER_BYTES, length: put.bytes.length };
        writer.size += HEADER_BYTES + put.bytes.length;
        return location;
      });
      if (!this.bulk) await this.usingPack(writer.pack, (fd) => fdatasyncAsync(fd));
    } catch (error) {
      // The pack's end is unknown now: the next flush writes another one.
      this.writer = undefined;
      for (const put of batch) put.reject(error);
      return;
    }
    batch.forEach((put, i) => this.unindexed.set(put.key.toString('hex'), locations[i]));
    for (const put of batch) put.resolve();
    // One turn: one LMDB transaction. Should it fail, the entries stay in memory, and the next
    // process indexes them from the pack (past the offset committed last).
    const index = this.openIndex();
    const writes = [
      ...batch.map((put, i) => index.put(put.key, encodeLocation(locations[i]))),
      index.put(markKey(writer.pack), encodeOffset(writer.size)),
    ];
    listenToLmdbCommit(index);
    const committed = Promise.all(writes).then(() => {
      batch.forEach((put, i) => {
        const id = put.key.toString('hex');
        if (this.unindexed.get(id) === locations[i]) this.unindexed.delete(id);
      });
    });
    this.indexing.add(committed);
    const done = () => this.indexing.delete(committed);
    committed.then(done, (error: unknown) => {
      // Not lost (the pack holds them, and memory until the next start); the failed commit's cause is listened to.
      isLmdbCommitFailure(error);
      done();
    });
  }

  /** Runs `work` on a pack's descriptor, which is kept open (`remember` closes none in use) until it settles. */
  private async usingPack<T>(pack: number, work: (fd: number) => Promise<T>): Promise<T> {
    const open = this.pack(pack);
    open.reading += 1;
    try {
      return await work(open.fd);
    } finally {
      open.reading -= 1;
    }
  }

  private async settleIndexing(): Promise<void> {
    while (this.indexing.size > 0) await Promise.allSettled([...this.indexing]);
  }

  /** This store's pack, or a new one when there is none yet or `bytes` would take it past `maxPackBytes`. */
  private writerFor(bytes: number): { pack: number; fd: number; size: number } {
    if (this.writer && (this.writer.size === 0 || this.writer.size + bytes <= this.maxPackBytes)) return this.writer;
    const index = this.openIndex();
    const pack = index.transactionSync(() => {
      const next = (index.get(LAST_PACK)?.readUInt32BE(0) ?? 0) + 1;
      const stored = Buffer.alloc(4);
      stored.writeUInt32BE(next, 0);
      void index.put(LAST_PACK, stored);
      return next;
    });
    // Created, never reopened for writing: another store's pack is never appended to.
    const fd = openSync(this.packPath(pack), 'wx+', FILE_MODE);
    // The new name survives a crash before any index entry names it (and so do the directories made for it).
    if (!this.bulk) for (const directory of [...this.madeDirectories.splice(0), this.dir]) fsyncPathSync(directory);
    this.remember(pack, fd);
    this.writer = { pack, fd, size: 0 };
    return this.writer;
  }

  private locate(key: Buffer): Location | undefined {
    const unindexed = this.unindexed.size > 0 ? this.unindexed.get(key.toString('hex')) : undefined;
    if (unindexed) return unindexed;
    const stored = this.openIndex().getBinaryFast(key);
    // A view of a buffer the next read reuses: decoded at once.
    return stored && stored.length === LOCATION_BYTES ? decodeLocation(stored) : undefined;
  }

  private pack(pack: number): { fd: number; reading: number } {
    const open = this.packs.get(pack);
    if (open) return open;
    // Read and write: a remove overwrites bytes in any pack.
    return this.remember(pack, openSync(this.packPath(pack), 'r+'));
  }

  private remember(pack: number, fd: number): { fd: number; reading: number } {
    for (const [number, open] of this.packs) {
      if (this.packs.size < OPEN_PACKS) break;
      if (open.reading > 0 || number === this.writer?.pack) continue;
      closeSync(open.fd);
      this.packs.delete(number);
    }
    const open = { fd, reading: 0 };
    this.packs.set(pack, open);
    return open;
  }

  private packPath(pack: number): string {
    return join(this.dir, `${pack}.pack`);
  }

  private openIndex(): RootDatabase<Buffer, Buffer> {
    if (this.index) return this.index;
    const created = mkdirSync(this.dir, { recursive: true, mode: DIR_MODE });
    // The parents whose new entries the first pack's creation makes durable: that of the outermost directory made, and each made below it.
    if (created !== undefined) {
      let parent = dirname(created);
      this.madeDirectories.push(parent);
      for (const part of relative(parent, this.dir).split(sep).slice(0, -1)) this.madeDirectories.push((parent = join(parent, part)));
    }
    this.setAsideDamagedIndex();
    const index = openLmdb<Buffer, Buffer>({
      path: join(this.dir, 'index.mdb'),
      encoding: 'binary',
      keyEncoding: 'binary',
      compression: false,
      // Commits flushed (no overlappingSync) though no put waits for them: the less a start has to index again.
      overlappingSync: false,
      noSync: this.bulk,
    });
    this.indexPastMarks(index);
    this.index = index;
    return index;
  }

  /**
   * The index is a cache of the packs: one whose file fails its check (`checkLmdbFile`; mapping
   * a file cut short is a SIGBUS) is moved aside and indexed again from the packs.
   */
  private setAsideDamagedIndex(): void {
    // A path with an extension: lmdb-js keeps the environment in that one file (no subdirectory).
    const path = join(this.dir, 'index.mdb');
    const report = checkLmdbFile(path);
    if (!report.problem) return;
    const movedTo = `${path}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    renameSync(path, movedTo);
    log.warn(
      { file: report.file, problem: report.problem, movedTo },
      `blob pack index damaged (${report.problem}): moved to ${movedTo}; indexing the packs again`,
    );
  }

  /**
   * Indexes the records past each pack's indexed offset (written before a crash, or by a store that
   * is still writing: the seed's other threads), up to the first that is torn or whose bytes do not
   * match its hash, and moves the offset there. Synchronous, once per store: a start after a clean
   * stop finds every pack indexed to its end.
   */
  private indexPastMarks(index: RootDatabase<Buffer, Buffer>): void {
    for (const name of readdirSync(this.dir)) {
      const match = PACK_NAME.exec(name);
      if (!match) continue;
      const pack = Number(match[1]);
      const marked = index.get(markKey(pack));
      let offset = marked ? marked.readDoubleBE(0) : 0;
      // An index rebuilt from the packs must not hand out a pack number already used.
      if ((index.get(LAST_PACK)?.readUInt32BE(0) ?? 0) < pack) {
        const stored = Buffer.alloc(4);
        stored.writeUInt32BE(pack, 0);
        index.putSync(LAST_PACK, stored);
      }
      const fd = openSync(this.packPath(pack), 'r');
      try {
        const size = fstatSync(fd).size;
        if (size < offset) {
          // Its tail is gone (a truncated copy, a disk error): the blobs before `size` still serve, a read of one past it fails.
          const problem = `pack ${pack} is ${size} bytes but its index names ${offset}: the blobs past byte ${size} are lost`;
          this.shortPacks.push(problem);
          log.error({ pack: this.packPath(pack), size, indexedTo: offset }, problem);
        }
        if (size <= offset) continue;
        const found: Array<{ key: Buffer; location: Location }> = [];
        const header = Buffer.alloc(HEADER_BYTES);
        while (offset + HEADER_BYTES <= size) {
          readFully(fd, header, offset);
          const key = Buffer.from(header.subarray(0, HASH_BYTES));
          const length = header.readUInt32BE(HASH_BYTES);
          if (offset + HEADER_BYTES + length > size) break;
          const bytes = Buffer.allocUnsafe(length);
          readFully(fd, bytes, offset + HEADER_BYTES);
          const removed = key.every((byte) => byte === 0);
          if (!removed && !createHash('sha256').update(bytes).digest().equals(key)) break;
          if (!removed) found.push({ key, location: { pack, offset: offset + HEADER_BYTES, length } });
          offset += HEADER_BYTES + length;
        }
        index.transactionSync(() => {
          for (const { key, location } of found) if (!index.doesExist(key)) void index.put(key, encodeLocation(location));
          void index.put(markKey(pack), encodeOffset(offset));
        });
      } finally {
        closeSync(fd);
      }
    }
  }
}

function markKey(pack: number): Buffer {
  const key = Buffer.alloc(5);
  key[0] = 1;
  key.writeUInt32BE(pack, 1);
  return key;
}

function encodeOffset(offset: number): Buffer {
  const stored = Buffer.alloc(8);
  stored.writeDoubleBE(offset, 0);
  return stored;
}

function encodeLocation({ pack, offset, length }: Location): Buffer {
  const location = Buffer.alloc(LOCATION_BYTES);
  location.writeUInt32BE(pack, 0);
  location.writeDoubleBE(offset, 4);
  location.writeUInt32BE(length, 12);
  return location;
}

function decodeLocation(stored: Buffer): Location {
  return { pack: stored.readUInt32BE(0), offset: stored.readDoubleBE(4), length: stored.readUInt32BE(12) };
}

function writeFully(fd: number, bytes: Buffer, position: number): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}

function readFully(fd: number, buffer: Buffer, position: number, pack = 0): void {
  let done = 0;
  while (done < buffer.length) {
    const read = readSync(fd, buffer, done, buffer.length - done, position + done);
    if (read === 0) throw new PackTruncatedError(pack, position + buffer.length);
    done += read;
  }
}
