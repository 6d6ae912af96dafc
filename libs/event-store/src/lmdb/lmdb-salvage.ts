import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import * as lmdb from 'lmdb';
import { Encoder } from 'msgpackr';
import { checkLmdbEnvironment } from '#platform/lmdb-file-check';
import { LMDB_VALUES } from '#platform/lmdb-values';
import { assertStoredEvent, LmdbEventStore, type StoredEvent } from './lmdb-event-store';
import { ProcessLock } from './process-lock';

/**
 * Salvages a damaged embedded event log: copies every event up to the last intact one (positions
 * 1…n with none missing) into a fresh log.
 *
 * The damaged file is never mapped (a file cut short would be a SIGBUS) and its B-tree is not
 * walked: LMDB writes a commit's root and branch pages anywhere in the file, so losing the tail
 * often loses the root of an otherwise intact log. Instead every page is read with plain reads and
 * each leaf page of the `log` database (the only one keyed by numbers) yields its events; an event
 * stored on overflow pages is read from there. Superseded copies of a page (LMDB frees them, it does
 * not erase them) hold the same immutable events, so a position seen twice is one event. Values are
 * MessagePack records whose shapes the database keeps once (its shared structures, under
 * `Symbol.for('structures')`), decoded with the most complete copy of those found.
 *
 * The page layout is lmdb's (`mdb.c`): a header of 16 or 24 bytes (number, [transaction id,] pad,
 * flags, lower and upper bounds), then 2-byte node offsets from the header's end; a node is data
 * size (4 bytes), flags, key size, the key, then the data or, with F_BIGDATA, an overflow page number.
 */

const P_LEAF = 0x02;
const F_BIGDATA = 0x01;
const NODE_HEADER = 8;
const PAGES_PER_READ = 256;
const STRUCTURES_KEY = Symbol.for('structures');
/** lmdb's own key codec (ordered-binary), exported by the package though not declared in its types. */
const keys = lmdb as unknown as { keyValueToBuffer(key: unknown): Buffer; bufferToKeyValue(bytes: Buffer): unknown };
/** Events written to the new log per transaction. */
const WRITE_CHUNK = 10_000;

export interface SalvageResult {
  /** Events copied: positions 1 to `kept`. */
  kept: number;
  /** Distinct intact events found in the damaged file, past a gap included. */
  found: number;
  /** The highest position found intact, past any gap. */
  highestFound: number;
  /** The first position that is missing or does not decode (the copy stops before it), when any. */
  firstMissing?: number;
  /** What the damaged file's check said, when it failed. */
  problem?: string;
}

/**
 * Copies the intact prefix of the log in `source` (a data directory's `events`) into `target`,
 * which must not exist or be empty. Refuses a source held by a running service.
 */
export async function salvageEventLog(source: string, target: string): Promise<SalvageResult> {
  if (!existsSync(join(source, 'data.mdb'))) throw new Error(`no event log in ${source} (no data.mdb)`);
  if (existsSync(target) && readdirSync(target).length > 0) throw new Error(`${target} is not empty: salvage writes a fresh log`);
  const lock = ProcessLock.acquire(source);
  let events: Map<number, StoredEvent>;
  let problem: string | undefined;
  try {
    const report = checkLmdbEnvironment(source);
    problem = report.problem;
    events = readEvents(report.file, report.meta?.pageSize ?? 4096, report.meta?.headerBytes ?? 24);
  } finally {
    lock.release();
  }
  let kept = 0;
  while (events.has(kept + 1)) kept += 1;
  const highestFound = Math.max(0, ...events.keys());
  mkdirSync(target, { recursive: true });
  await writeLog(target, events, kept);
  return { kept, found: events.size, highestFound, firstMissing: kept < highestFound || problem ? kept + 1 : undefined, problem };
}

/** Every intact event of the file's `log` database, by position. */
function readEvents(file: string, pageSize: number, headerBytes: number): Map<number, StoredEvent> {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const pages = Math.floor(size / pageSize);
    const raw = new Map<number, Buffer[]>();
    const structures: Buffer[] = [];
    const structuresKey = keys.keyValueToBuffer(STRUCTURES_KEY);
    const chunk = Buffer.alloc(pageSize * PAGES_PER_READ);
    const readAt = (position: number, length: number): Buffer | undefined => {
      if (position + length > size) return undefined;
      const bytes = Buffer.alloc(length);
      return readSync(fd, bytes, 0, length, position) === length ? bytes : undefined;
    };
    for (let first = 2; first < pages; first += PAGES_PER_READ) {
      const count = Math.min(PAGES_PER_READ, pages - first);
      readSync(fd, chunk, 0, count * pageSize, first * pageSize);
      for (let i = 0; i < count; i++) {
        const page = chunk.subarray(i * pageSize, (i + 1) * pageSize);
        for (const node of leafNodes(page, first + i, pageSize, headerBytes)) {
          const value = node.overflow === undefined ? node.value : readAt(node.overflow * pageSize + headerBytes, node.size);
          if (!value) continue;
          if (node.key.equals(structuresKey)) {
            structures.push(Buffer.from(value));
            continue;
          }
          let position: unknown;
          try {
            position = keys.bufferToKeyValue(Buffer.from(node.key));
          } catch {
            continue;
          }
          if (typeof position !== 'number' || !Number.isSafeInteger(position) || position < 1) continue;
          const copies = raw.get(position) ?? [];
          copies.push(Buffer.from(value));
          raw.set(position, copies);
        }
      }
    }
    return decodeEvents(raw, structures);
  } finally {
    closeSync(fd);
  }
}

interface LeafNode {
  key: Buffer;
  size: number;
  value: Buffer;
  overflow?: number;
}

/** The nodes of a leaf page, none when the page is not a sound leaf page (its number, flags and bounds checked). */
function leafNodes(page: Buffer, pgno: number, pageSize: number, headerBytes: number): LeafNode[] {
  if (Number(page.readBigUInt64LE(0)) !== pgno || page.readUInt16LE(headerBytes - 6) !== P_LEAF) return [];
  const lower = page.readUInt16LE(headerBytes - 4);
  const count = lower >> 1;
  if (headerBytes + lower > pageSize) return [];
  const nodes: LeafNode[] = [];
  for (let i = 0; i < count; i++) {
    const at = headerBytes + page.readUInt16LE(headerBytes + 2 * i);
    if (at + NODE_HEADER > pageSize) continue;
    const size = page.readUInt16LE(at) | (page.readUInt16LE(at + 2) << 16);
    const flags = page.readUInt16LE(at + 4);
    const keySize = page.readUInt16LE(at + 6);
    const keyEnd = at + NODE_HEADER + keySize;
    if (keyEnd > pageSize) continue;
    const key = page.subarray(at + NODE_HEADER, keyEnd);
    if (flags & F_BIGDATA) {
      if (keyEnd + 8 > pageSize) continue;
      nodes.push({ key, size, value: Buffer.alloc(0), overflow: Number(page.readBigUInt64LE(keyEnd)) });
    } else if (flags === 0 && keyEnd + size <= pageSize) {
      nodes.push({ key, size, value: page.subarray(keyEnd, keyEnd + size) });
    }
  }
  return nodes;
}

function decodeEvents(raw: Map<number, Buffer[]>, structureCopies: Buffer[]): Map<number, StoredEvent> {
  const plain = new Encoder({});
  let structures: unknown[] = [];
  for (const copy of structureCopies) {
    try {
      const decoded = plain.decode(copy) as unknown;
      if (Array.isArray(decoded) && decoded.length >= structures.length) structures = decoded;
    } catch {
      // A damaged copy: another one serves.
    }
  }
  const decoder = new Encoder({ getStructures: () => structures, saveStructures: () => false, copyBuffers: true } as ConstructorParameters<
    typeof Encoder
  >[0]);
  const events = new Map<number, StoredEvent>();
  for (const [position, copies] of raw) {
    for (const copy of copies) {
      try {
        const event = decoder.decode(copy) as unknown;
        assertStoredEvent(event, position);
        events.set(position, event);
        break;
      } catch {
        // This copy is damaged: try the next.
      }
    }
  }
  return events;
}

/** Writes events 1…`kept` in the embedded log's layout, then opens it as a store (which indexes their types) to check it. */
async function writeLog(target: string, events: Map<number, StoredEvent>, kept: number): Promise<void> {
  const root = lmdb.open({ path: target, maxDbs: 6, ...LMDB_VALUES });
  const log = root.openDB<StoredEvent, number>({ name: 'log', ...LMDB_VALUES, sharedStructuresKey: STRUCTURES_KEY });
  const streams = root.openDB<number, string>({ name: 'streams', ...LMDB_VALUES });
  const streamIndex = root.openDB<number, [string, number]>({ name: 'stream-index', ...LMDB_VALUES });
  try {
    const revisions = new Map<string, number>();
    for (let start = 1; start <= kept; start += WRITE_CHUNK) {
      const end = Math.min(kept, start + WRITE_CHUNK - 1);
      root.transactionSync(() => {
        for (let position = start; position <= end; position++) {
          const event = events.get(position)!;
          log.putSync(position, event);
          streamIndex.putSync([event.stream, event.revision], position);
          revisions.set(event.stream, Math.max(revisions.get(event.stream) ?? -1, event.revision));
        }
      });
    }
    root.transactionSync(() => {
      for (const [stream, revision] of revisions) streams.putSync(stream, revision);
    });
  } finally {
    await root.close();
  }
  await LmdbEventStore.open(target).close();
}
