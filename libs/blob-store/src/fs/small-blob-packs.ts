import { closeSync, fdatasync, mkdirSync, openSync, read, readSync, writeSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { open as openLmdb, type RootDatabase } from 'lmdb';
import { fsyncPathSync } from '../../../platform/src/fsync';

const fdatasyncAsync = promisify(fdatasync);
const readAsync = promisify(read);

/** A pack file grows to about this size, then the next put starts another. */
export const PACK_MAX_BYTES = 1024 * 1024 * 1024;
/** Descriptors of pack files kept open for reads, at most (a service writes one pack per run that writes). */
const OPEN_PACKS = 128;
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
/** The index's key for the last pack number handed out (hash keys are 32 bytes: no clash). */
const LAST_PACK = Buffer.from([0]);
const LOCATION_BYTES = 16;

/** Where a small blob's bytes are: pack number, offset and length. */
interface Location {
  pack: number;
  offset: number;
  length: number;
}

interface QueuedPut {
  key: Buffer;
  bytes: Buffer;
  done: Promise<void>;
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
 * Puts of one event-loop turn are written together: appended to this store's pack, one
 * `fdatasync`, then their index entries in one LMDB transaction, itself flushed (no
 * `overlappingSync`) before the puts resolve. An index entry is therefore never durable before the
 * bytes it names; a crash in between leaves unnamed bytes at a pack's end, which nothing reads.
 * Each store writes a pack of its own, numbered by the index in a transaction, so the seed's
 * worker threads never write the same file.
 *
 * `bulk` (the CLI's seed and rebuild, alone on the directory): no `fdatasync`, the index opened
 * with `noSync`, reads synchronous; the caller flushes at the end (`FsBlobStore.flushToDisk`).
 */
export class SmallBlobPacks {
  private index: RootDatabase<Buffer, Buffer> | undefined;
  private writer: { pack: number; fd: number; size: number } | undefined;
  /** Open descriptors by pack number, with how many calls on the thread pool use each (closed only at zero). */
  private readonly packs = new Map<number, { fd: number; reading: number }>();
  private queue: QueuedPut[] = [];
  /** Directories whose entries for directories made here are still to be synced (with the first pack's). */
  private readonly madeDirectories: string[] = [];
  /** Puts queued or being written, by hash: a second put of the same bytes waits for the first. */
  private readonly unwritten = new Map<string, Promise<void>>();

  private readonly maxPackBytes: number;

  constructor(
    private readonly dir: string,
    private readonly bulk: boolean,
    options: { maxPackBytes?: number } = {},
  ) {
    this.maxPackBytes = options.maxPackBytes ?? PACK_MAX_BYTES;
  }

  /** Stores the bytes under `key` (the hash's 32 bytes) unless they are stored; resolves once durable (see the class). */
  put(key: Buffer, bytes: Buffer): Promise<void> {
    const id = key.toString('hex');
    const pending = this.unwritten.get(id);
    if (pending) return pending;
    if (this.locate(key)) return Promise.resolve();
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const done = new Promise<void>((ok, fail) => {
      resolve = ok;
      reject = fail;
    });
    this.queue.push({ key, bytes, done, resolve, reject });
    this.unwritten.set(id, done);
    const forget = () => this.unwritten.delete(id);
    done.then(forget, forget);
    // Every put of this turn (a tree's blobs arrive one microtask apart) is written by one flush.
    if (this.queue.length === 1) setImmediate(() => void this.flush());
    return done;
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
    const pack = this.pack(at.pack);
    if (this.bulk) {
      readFully(pack.fd, buffer, at.offset);
      return buffer;
    }
    pack.reading += 1;
    try {
      let done = 0;
      while (done < at.length) {
        const { bytesRead } = await readAsync(pack.fd, buffer, done, at.length - done, at.offset + done);
        if (bytesRead === 0) throw new Error(`pack ${at.pack} ends before the blob it names`);
        done += bytesRead;
      }
      return buffer;
    } finally {
      pack.reading -= 1;
    }
  }

  /**
   * Removes the blob: its index entry first (durably), then its bytes overwritten with zeros, so
   * that a purged body is gone from the disk's files, not only unnamed. The space is not reused.
   */
  async remove(key: Buffer): Promise<void> {
    await this.unwritten.get(key.toString('hex'))?.catch(() => undefined);
    const at = this.locate(key);
    if (!at) return;
    await this.openIndex().remove(key);
    const pack = this.pack(at.pack);
    pack.reading += 1;
    try {
      writeFully(pack.fd, Buffer.alloc(at.length), at.offset);
      if (!this.bulk) await fdatasyncAsync(pack.fd);
    } finally {
      pack.reading -= 1;
    }
  }

  /** Waits for the puts queued, then closes the index and the packs. */
  async close(): Promise<void> {
    while (this.unwritten.size > 0) await Promise.allSettled([...this.unwritten.values()]);
    const index = this.index;
    this.index = undefined;
    await index?.close();
    for (const { fd } of this.packs.values()) closeSync(fd);
    this.packs.clear();
    this.writer = undefined;
  }

  // ---------------------------------------------------------------------------------------------

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    try {
      const bytes = batch.reduce((total, put) => total + put.bytes.length, 0);
      const writer = this.writerFor(bytes);
      const locations = batch.map((put) => {
        const location = encodeLocation(writer.pack, writer.size, put.bytes.length);
        writeFully(writer.fd, put.bytes, writer.size);
        writer.size += put.bytes.length;
        return location;
      });
      if (!this.bulk) {
        const pack = this.pack(writer.pack);
        pack.reading += 1;
        try {
          await fdatasyncAsync(pack.fd);
        } finally {
          pack.reading -= 1;
        }
      }
      const index = this.openIndex();
      // One turn: one LMDB transaction, flushed before its puts resolve.
      await Promise.all(batch.map((put, i) => index.put(put.key, locations[i])));
      for (const put of batch) put.resolve();
    } catch (error) {
      // The pack's end is unknown now: the next flush writes another one.
      this.writer = undefined;
      for (const put of batch) put.reject(error);
    }
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
    this.index = openLmdb<Buffer, Buffer>({
      path: join(this.dir, 'index.mdb'),
      encoding: 'binary',
      keyEncoding: 'binary',
      compression: false,
      // A put resolves after its commit's flush (lmdb-js's overlappingSync would resolve it before); bulk work flushes once, at the end.
      overlappingSync: false,
      noSync: this.bulk,
    });
    return this.index;
  }
}

function encodeLocation(pack: number, offset: number, length: number): Buffer {
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

function readFully(fd: number, buffer: Buffer, position: number): void {
  let done = 0;
  while (done < buffer.length) {
    const read = readSync(fd, buffer, done, buffer.length - done, position + done);
    if (read === 0) throw new Error('a pack ends before the blob it names');
    done += read;
  }
}
