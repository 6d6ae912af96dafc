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
 * collection on first use, and the rest in the background (`MemoryReadStore`, Loading).
 */
import { mkdirSync } from 'node:fs';
import { open, type RootDatabase } from 'lmdb';
import type { Doc } from '../read-store.port';

/** After every document id (ids are well-formed text below U+FFFF in practice): the end of a collection's keys. */
const LAST_ID = '\uffff';

export interface DocumentWrite {
  collection: string;
  id: string;
  /** The document as committed, or null when it was deleted. */
  doc: Doc | null;
}

export class ReadModelFile {
  private constructor(private readonly db: RootDatabase<Doc, [string, string]>) {}

  static open(directory: string): ReadModelFile {
    mkdirSync(directory, { recursive: true });
    // Shared structures keep each document shape once in the file instead of in every document:
    // without them, decoding the shape of every document was half of the time a start spent loading
    // the read models (1,000,000-event seed: 5.2 s of 10.8 s).
    return new ReadModelFile(open<Doc, [string, string]>({ path: directory, encoding: 'msgpack', noSync: true, sharedStructuresKey: Symbol.for('structures') }));
  }

  /** The names of the collections that hold documents: one seek per collection, no document read. */
  collectionNames(): string[] {
    const names: string[] = [];
    for (;;) {
      const after = names.at(-1);
      let next: [string, string] | undefined;
      for (const key of this.db.getKeys(after === undefined ? { limit: 1 } : { start: [after, LAST_ID], limit: 1 })) next = key;
      if (!next || !Array.isArray(next) || typeof next[0] !== 'string') return names;
      names.push(next[0]);
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

  /** Writes one commit: collections dropped first, then documents put or removed, all in one LMDB transaction. */
  write(writes: readonly DocumentWrite[], dropped: readonly string[] = []): Promise<void> {
    return this.db.transaction(() => {
      for (const collection of dropped) {
        for (const key of this.db.getKeys({ start: [collection] })) {
          if (key[0] !== collection) break;
          void this.db.remove(key);
        }
      }
      for (const { collection, id, doc } of writes) void (doc ? this.db.put([collection, id], doc) : this.db.remove([collection, id]));
    }) as Promise<void>;
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
