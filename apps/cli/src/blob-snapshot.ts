import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { open as openLmdb } from 'lmdb';
import { BLOB_HASH } from '#blob-store/blob-store.port';

/**
 * Reads every blob of an embedded blob directory (`DATA_DIR/blobs`) without opening it as a store,
 * so that it works while the service writes to it: blobs are immutable and content-addressed, so a
 * blob present under its hash is complete and stays valid.
 *
 * The pack format is `small-blob-packs.ts`'s: records of hash (32 bytes), length (4 bytes, big
 * endian) and bytes, appended; the index (`packs/index.mdb`) holds, per pack, the offset up to which
 * its records are committed (key `[1, pack number]`). Each record's bytes are checked against its
 * hash here. Before that offset a record whose bytes no longer match (zeroed by a purge, the length
 * left in place) is skipped; past it, records were appended after the index's last commit (the
 * service indexes them after answering the put) and the first that does not match is a torn tail
 * being written, where the pack ends for this copy.
 */

const HEADER_BYTES = 36;
const HASH_BYTES = 32;
const PACK_NAME = /^(\d+)\.pack$/;
const FAN_OUT = /^[0-9a-f]{2}$/;

export type SnapshotBlob = { hash: string; size: number } & ({ bytes: Buffer; path?: undefined } | { path: string; bytes?: undefined });

/** Every blob of `rootDir`, each once: small ones with their bytes, files by path. */
export function* blobsIn(rootDir: string): Generator<SnapshotBlob> {
  if (!existsSync(rootDir)) return;
  const seen = new Set<string>();
  for (const blob of packedBlobs(join(rootDir, 'packs'))) {
    if (seen.has(blob.hash)) continue;
    seen.add(blob.hash);
    yield blob;
  }
  for (const outer of readdirSync(rootDir)
    .filter((name) => FAN_OUT.test(name))
    .sort()) {
    for (const inner of readdirSync(join(rootDir, outer))
      .filter((name) => FAN_OUT.test(name))
      .sort()) {
      for (const name of readdirSync(join(rootDir, outer, inner)).sort()) {
        if (!BLOB_HASH.test(name) || !name.startsWith(outer + inner) || seen.has(name)) continue;
        const path = join(rootDir, outer, inner, name);
        const info = statSync(path, { throwIfNoEntry: false });
        if (!info?.isFile()) continue; // removed meanwhile by a purge
        seen.add(name);
        yield { hash: name, size: info.size, path };
      }
    }
  }
}

function* packedBlobs(dir: string): Generator<SnapshotBlob> {
  if (!existsSync(dir)) return;
  const marks = indexedOffsets(join(dir, 'index.mdb'));
  const packs = readdirSync(dir)
    .map((name) => PACK_NAME.exec(name))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => Number(match[1]))
    .sort((a, b) => a - b);
  for (const pack of packs) yield* packRecords(join(dir, `${pack}.pack`), marks.get(pack) ?? 0);
}

/** The offset up to which each pack is indexed, read from a snapshot of the index. */
function indexedOffsets(path: string): Map<number, number> {
  const marks = new Map<number, number>();
  if (!existsSync(path)) return marks;
  const index = openLmdb<Buffer, Buffer>({ path, encoding: 'binary', keyEncoding: 'binary', compression: false, readOnly: true });
  try {
    for (const { key, value } of index.getRange({ start: Buffer.from([1]), end: Buffer.from([2]) })) {
      if (key.length === 5 && value.length === 8) marks.set(key.readUInt32BE(1), value.readDoubleBE(0));
    }
  } finally {
    void index.close();
  }
  return marks;
}

function* packRecords(path: string, indexed: number): Generator<SnapshotBlob> {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return;
  }
  try {
    const size = fstatSync(fd).size;
    const header = Buffer.alloc(HEADER_BYTES);
    let offset = 0;
    while (offset + HEADER_BYTES <= size) {
      readFully(fd, header, offset);
      const key = header.subarray(0, HASH_BYTES);
      const length = header.readUInt32BE(HASH_BYTES);
      if (offset + HEADER_BYTES + length > size) break;
      const bytes = Buffer.allocUnsafe(length);
      readFully(fd, bytes, offset + HEADER_BYTES);
      const matches = createHash('sha256').update(bytes).digest().equals(key);
      // A purge zeroes the hash (then the bytes), never the length: such a record is skipped.
      const removed = key.every((byte) => byte === 0);
      if (!matches && !removed && offset >= indexed) break;
      offset += HEADER_BYTES + length;
      if (matches) yield { hash: key.toString('hex'), size: length, bytes };
    }
  } finally {
    closeSync(fd);
  }
}

function readFully(fd: number, buffer: Buffer, position: number): void {
  let done = 0;
  while (done < buffer.length) {
    const read = readSync(fd, buffer, done, buffer.length - done, position + done);
    if (read === 0) throw new Error('a pack ends before the record it holds');
    done += read;
  }
}
