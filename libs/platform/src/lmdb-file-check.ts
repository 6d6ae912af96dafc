import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Checks an LMDB environment's `data.mdb` with plain reads, before anything maps it. LMDB maps the
 * file and trusts its meta pages: a file shorter than the last page they name (cut short by a full
 * disk, a bad copy, a crash of the file system) makes the first touch of a missing page a SIGBUS,
 * which kills the process without a word. Reading the two meta pages first turns that into an
 * answer the caller can act on.
 *
 * The meta pages are pages 0 and 1: a page header, then the meta (`MDB_meta` in lmdb's `mdb.c`):
 * magic 0xBEEFC0DE, version, fixed-map address, map size, the free and main databases (48 bytes
 * each, the first one's `md_pad` holding the page size), the last page used, the transaction id.
 * The page header is 16 bytes in LMDB 0.9 and 24 in the format lmdb-js 3 writes (it adds the page's
 * transaction id): the magic's position tells which.
 */

export const LMDB_MAGIC = 0xbeefc0de;
/** Pages (or share of the file) a sound file may lack at its end: see `checkLmdbFile`. */
const CUT_TOLERANCE_PAGES = 256;
const CUT_TOLERANCE_FRACTION = 0.01;
/** `md_root` of an empty database. */
const NO_ROOT = 0xffffffffffffffffn;
const SUPPORTED_VERSIONS = new Set([1, 2]);

export interface LmdbMeta {
  /** Bytes in the page header of this file's format (16 or 24). */
  headerBytes: number;
  pageSize: number;
  mapSize: number;
  lastPage: number;
  txnId: number;
  /** Root pages of the free and main databases (empty ones left out). */
  roots: number[];
}

export interface LmdbFileReport {
  /** The file checked. */
  file: string;
  /** What is wrong, or undefined when the file is sound (or absent: LMDB creates it). */
  problem?: string;
  /** The current meta page (the one with the higher transaction id), when one could be read. */
  meta?: LmdbMeta;
  size: number;
}

/** Checks `<directory>/data.mdb`; a missing or empty file is sound (LMDB creates it). */
export function checkLmdbEnvironment(directory: string): LmdbFileReport {
  return checkLmdbFile(join(directory, 'data.mdb'));
}

export function checkLmdbFile(file: string): LmdbFileReport {
  if (!existsSync(file)) return { file, size: 0 };
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return { file, size };
    const first = readMeta(fd, 0, size);
    if (typeof first === 'string') return { file, size, problem: `meta page 0: ${first}` };
    const second = readMeta(fd, first.pageSize, size, first.headerBytes);
    if (typeof second === 'string') return { file, size, problem: `meta page 1: ${second}` };
    const meta = second.txnId > first.txnId ? second : first;
    const needed = (meta.lastPage + 1) * meta.pageSize;
    const outside = meta.roots.find((root) => (root + 1) * meta.pageSize > size);
    if (outside !== undefined) {
      return { file, size, meta, problem: `the file is ${size} bytes but a database's root is page ${outside}, past its end (cut short)` };
    }
    // A sound file written by lmdb-js can end a few pages before the last page its meta names (pages
    // allocated, never written, referenced by nothing): seen at 28 pages of a 875 MB log. Only a
    // larger shortfall is a cut.
    if (needed - size > Math.max(CUT_TOLERANCE_PAGES * meta.pageSize, needed * CUT_TOLERANCE_FRACTION)) {
      return {
        file,
        size,
        meta,
        problem: `the file is ${size} bytes but its meta page names page ${meta.lastPage}, so it needs about ${needed} bytes (cut short)`,
      };
    }
    if (meta.mapSize > 0 && meta.mapSize < needed)
      return { file, size, meta, problem: `its map size ${meta.mapSize} is smaller than its last page (${needed} bytes)` };
    return { file, size, meta };
  } finally {
    closeSync(fd);
  }
}

function readMeta(fd: number, offset: number, size: number, headerBytes?: number): LmdbMeta | string {
  const buffer = Buffer.alloc(256);
  if (size < offset + buffer.length) return `the file is ${size} bytes, shorter than its two meta pages`;
  readSync(fd, buffer, 0, buffer.length, offset);
  const header = headerBytes ?? [24, 16].find((at) => buffer.readUInt32LE(at) === LMDB_MAGIC);
  if (header === undefined || buffer.readUInt32LE(header) !== LMDB_MAGIC) return 'no LMDB magic number (not an LMDB file, or overwritten)';
  const version = buffer.readUInt32LE(header + 4);
  if (!SUPPORTED_VERSIONS.has(version)) return `unknown LMDB data version ${version}`;
  const pageSize = buffer.readUInt32LE(header + 24);
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return `implausible page size ${pageSize}`;
  const mapSize = Number(buffer.readBigUInt64LE(header + 16));
  const lastPage = Number(buffer.readBigUInt64LE(header + 120));
  const txnId = Number(buffer.readBigUInt64LE(header + 128));
  if (!Number.isSafeInteger(lastPage) || lastPage < 1 || !Number.isSafeInteger(mapSize)) return `implausible last page ${lastPage}`;
  // Each database record is 48 bytes with its root page last: free at 24, main at 72.
  const roots = [header + 64, header + 112].map((at) => buffer.readBigUInt64LE(at)).filter((root) => root !== NO_ROOT);
  if (roots.some((root) => root > BigInt(lastPage))) return `a database's root page is past its last page ${lastPage}`;
  return { headerBytes: header, pageSize, mapSize, lastPage, txnId, roots: roots.map(Number) };
}
