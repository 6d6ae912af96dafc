/**
 * The embedded read store's documents on disk: one LMDB environment (in `DATA_DIR/readmodels` in
 * the service) holding every committed document under the key `[collection, _id]`. The memory read
 * store loads it (see below) and hands each commit's documents to it as one LMDB
 * transaction, in commit order, without waiting for the write (a write of the service waits for the
 * log's fsync only). The projection runner's checkpoint is a document of the same commit, so the
 * file always holds the read models of one commit with that commit's checkpoint: after a crash
 * (kill -9 included) a restart resumes from the last commit that reached the file and replays the
 * rest from the log.
 *
 * Commits are not flushed to disk one by one (`noSync`): an OS crash or power loss may lose the last
 * commits, which a restart replays from the log; it may also, per LMDB, damage the file on a file
 * system that does not keep the order of writes: `npm run cli -- rebuild` (or removing
 * `readmodels`) rebuilds it from the log.
 *
 * Only documents are stored; indexes (unique, equality lookups, sorted) are rebuilt in memory from
 * them: the projections declare them again at every start. The memory read store loads each
 * collection on first use, and the rest in the background (`MemoryReadStore`, Loading). Large
 * collections are the exception: never loaded, their documents and index entries are read from
 * the file as needed (`large-collections.ts`): a commit's writes to them go into the commit's own
 * LMDB transaction (`write`'s `large`), and the memory read store answers them from memory until
 * that transaction is written.
 */
import { mkdirSync } from 'node:fs';
import { open, type RootDatabase } from 'lmdb';
import { LMDB_VALUES } from '../../../platform/src/lmdb-values';
import type { Doc } from '../read-store.port';
import { END, LARGE_KEY_SPACE, LargeCollections, type KeyPart } from './large-collections';

/**
 * After every document id: the end of a collection's keys (U+10FFFF, the last code point; `'\uffff'`
 * left the documents of ids with characters above U+FFFF out of loading).
 */
const LAST_ID = END;
/** 64 GiB of address space for the map (see `open`). */
const MAP_SIZE = 2 ** 36;

export interface DocumentWrite {
  collection: string;
  id: string;
  /** The document as committed, or null when it was deleted. */
  doc: Doc | null;
}

export class ReadModelFile {
  /** The large collections kept in this file. */
  readonly large: LargeCollections;

  /** Not readonly: `releaseMappedPages` opens it again. */
  private db: RootDatabase<Doc, [string, string]>;
  /** Set while a commit that drops collections, or one handed over after it, is not written yet (`write`). */
  private ordered: Promise<void> | undefined;

  private constructor(private readonly directory: string) {
    this.db = ReadModelFile.openDatabase(directory);
    this.large = new LargeCollections(this.db as unknown as RootDatabase<unknown, KeyPart[]>);
  }

  static open(directory: string): ReadModelFile {
    mkdirSync(directory, { recursive: true });
    return new ReadModelFile(directory);
  }

  private static openDatabase(directory: string): RootDatabase<Doc, [string, string]> {
    // Shared structures keep each document shape once in the file instead of in every document:
    // without them, decoding the shape of every document was half of the time a start spent loading
    // the read models (1,000,000-event seed: 5.2 s of 10.8 s).
    // A map reserved large at once (address space only; the file grows as written): when lmdb-js grew
    // it as the file grew, the pages read through the earlier maps stayed resident beside the new
    // one, and a rebuild's file-backed memory reached twice the file (1.45 GB mapped for 711 MB).
    return open<Doc, [string, string]>({ path: directory, ...LMDB_VALUES, noSync: true, mapSize: MAP_SIZE, sharedStructuresKey: Symbol.for('structures') });
  }

  /**
   * Writes what was handed to `write`, unmaps the file and maps it again, so that the pages reads and
   * writes touched stop counting as this process's resident memory (a rebuild touches nearly all of
   * a file of 1.7 GB for a million events). lmdb-js offers no `madvise`; closing the environment is
   * the way to drop them. Only for a replay alone on the file, between two commits
   * (`ReplayMappedPages`): a read or write while it runs fails.
   */
  async releaseMappedPages(): Promise<void> {
    try {
      await this.db.close();
    } finally {
      this.db = ReadModelFile.openDatabase(this.directory);
      this.large.useDatabase(this.db as unknown as RootDatabase<unknown, KeyPart[]>);
    }
  }

  /** The names of the collections that hold documents: one seek per collection, no document read. */
  collectionNames(): string[] {
    const names: string[] = [];
    let after: string | undefined;
    for (;;) {
      let next: [string, string] | undefined;
      for (const key of this.db.getKeys(after === undefined ? { limit: 1 } : { start: [after, LAST_ID], limit: 1 })) next = key;
      if (!next || !Array.isArray(next) || typeof next[0] !== 'string') return names;
      after = next[0];
      // The large collections' key spaces hold no collection to load: passed over.
      if (!after.startsWith(LARGE_KEY_SPACE)) names.push(after);
    }
  }

  /** Up to `limit` documents of a collection in `_id` order, those after `afterId` (exclusive) when given. */
  loadCollection(collection: string, afterId: string | undefined, limit: number): Doc[] {
    const docs: Doc[] = [];
    for (const { key, value } of this.db.getRange({ start: [collection, afterId ?? ''], end: [collection, LAST_ID], limit: limit + 1 })) {
      if (key[1] === afterId) continue;
      docs.push(value);
      if (docs.length === limit) break;
    }
    return docs;
  }

  /**
   * Writes one commit: collections dropped first, then `large` (the commit's writes to large
   * collections, `this.large`) run, then documents put or removed, all in one LMDB transaction.
   *
   * A commit that drops nothing is handed to LMDB as a batch (`db.batch`): this thread only encodes
   * its keys and values, and lmdb-js's write thread applies them to the B-tree (most of the cost of
   * a put into a large file) as one transaction. Nothing in it may read the file: a read sees what
   * is written, not the commits still queued (`large` reads nothing of theirs). A commit that drops
   * collections must read their keys inside the transaction, so it runs as a transaction callback;
   * lmdb-js runs queued callbacks after the batches queued with them, so the commits handed over
   * after it wait for it to be written (`ordered`).
   */
  write(writes: readonly DocumentWrite[], dropped: readonly string[] = [], large?: () => void): Promise<void> {
    const commit = () => {
      large?.();
      this.apply(writes, dropped);
    };
    const write = () => (dropped.length > 0 ? this.db.transaction(commit) : this.db.batch(commit)) as Promise<unknown> as Promise<void>;
    if (this.ordered === undefined && dropped.length === 0) return write();
    const written = this.ordered === undefined ? write() : this.ordered.then(write);
    const settled = written.then(
      () => undefined,
      () => undefined,
    );
    this.ordered = settled;
    void settled.then(() => {
      if (this.ordered === settled) this.ordered = undefined;
    });
    return written;
  }

  /**
   * `write` at once, in one synchronous transaction that first runs `large` (its writes to large
   * collections, `this.large`): all of it lands, or nothing and this throws. Call it only once the
   * commits handed to `write` before have been written, so that commits land in order.
   */
  writeSync<R>(writes: readonly DocumentWrite[], dropped: readonly string[], large: () => R): R {
    const result = this.db.transactionSync(() => {
      const written = large();
      this.apply(writes, dropped, true);
      return written;
    });
    // lmdb-js moves its read snapshot past a synchronous commit only in a later microtask: reads
    // right after this one (a commit answers with what it replaced, a read follows) must see it.
    this.db.resetReadTxn();
    return result;
  }

  private apply(writes: readonly DocumentWrite[], dropped: readonly string[], sync = false): void {
    const remove = (key: [string, string]) => void (sync ? this.db.removeSync(key) : this.db.remove(key));
    for (const collection of dropped) {
      for (const key of this.db.getKeys({ start: [collection] })) {
        if (key[0] !== collection) break;
        remove(key);
      }
    }
    for (const { collection, id, doc } of writes) {
      if (!doc) remove([collection, id]);
      else if (sync) this.db.putSync([collection, id], doc);
      else void this.db.put([collection, id], doc);
    }
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
