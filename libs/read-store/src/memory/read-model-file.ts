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
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { fsyncPathSync } from '#platform/fsync';
import { LMDB_VALUES } from '#platform/lmdb-values';
import { listenToLmdbCommit } from '#platform/storage-full';
import type { Doc } from '../read-store.port';
import { log } from '#platform/logging';
import { END, LARGE_KEY_SPACE, LargeCollections, type KeyPart } from './large-collections';
import {
  checkReadModelFile,
  markReadModelFileDamaged,
  restoreSeal,
  sealReadModelFile,
  setAsideReadModels,
  unsealReadModelFile,
} from './read-model-integrity';
import { BackgroundChecksum } from './read-model-background-check';

/**
 * After every document id: the end of a collection's keys (U+10FFFF, the last code point; `'\uffff'`
 * left the documents of ids with characters above U+FFFF out of loading).
 */
const LAST_ID = END;
/** 64 GiB of address space for the map (see `open`). */
const MAP_SIZE = 2 ** 36;
/** At most this many keys kept (documents, index entries, registrations), a drop writes them to a new file (`dropByRewrite`). */
const REWRITE_KEPT_LIMIT = 100_000;
/** Keys copied per transaction of the new file: bounds its dirty pages. */
const COPY_CHUNK = 10_000;
/** Files up to this size have their checksum compared at open; larger ones in the background (`open`). */
const SYNC_CHECKSUM_LIMIT = 64 * 1024 * 1024;

/** A range of the file's keys, `start` inclusive, `end` exclusive. */
export interface KeyRange {
  start: KeyPart[];
  end: KeyPart[];
}

export interface ReadModelFileOptions {
  /** At most this many keys kept, a drop writes them to a new file (`dropByRewrite`); 100,000 when not given. */
  rewriteKeptLimit?: number;
  /** Files of at most this many bytes have their checksum compared at open, larger ones in the background (`open`); 64 MiB when not given. */
  syncChecksumLimit?: number;
  /** Told once when the background check finds the file damaged (see `open`). */
  onDamaged?: (problem: string) => void;
}

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

  /** Numbers the replacements of this process (`dropByRewrite`): each new file's directory has a name of its own. */
  private replacements = 0;

  /** The checksum being compared in the background (`open`), until it ends. */
  private checking: BackgroundChecksum | undefined;
  /** What the background check found wrong: nothing more is written, the file is not sealed. */
  private damage: string | undefined;
  /** The seal read at open, to write back at close while no write has reached the file. */
  private sealAtOpen: string | undefined;
  /** Set by the first write that reaches the file (or may have). */
  private changed = false;
  /** Set by `abandonCheck`: commits are no longer written (the file stays as sealed). */
  private abandoned = false;

  private constructor(
    private readonly directory: string,
    private readonly options: ReadModelFileOptions,
  ) {
    this.db = ReadModelFile.openDatabase(directory);
    this.large = new LargeCollections(this.db as unknown as RootDatabase<unknown, KeyPart[]>);
  }

  /**
   * Opens the file once it has passed its check (`read-model-integrity.ts`); a file that fails it,
   * or fails to open, is moved aside (`<name>.damaged-<timestamp>`, with a warning naming what was
   * wrong) and an empty one takes its place: read models are derived data, and a store without a
   * checkpoint replays the whole log into them.
   *
   * The meta check always runs here (mapping a file cut short is a SIGBUS); the checksum too for a
   * file of at most `syncChecksumLimit` bytes. A larger file is opened at once and its checksum
   * compared on a worker thread (`BackgroundChecksum`): reads are answered from the file meanwhile,
   * and commits wait in memory (answered from there) so that the file stays as sealed until the
   * check ends. A mismatch is logged, marks the file damaged (`DAMAGED`, which the next open sets
   * aside), fails `health` and is told to `onDamaged`: the process is to close and exit, and the
   * next start rebuilds from the log.
   */
  static open(directory: string, options: ReadModelFileOptions = {}): ReadModelFile {
    ReadModelFile.finishReplacement(directory);
    mkdirSync(directory, { recursive: true });
    const setAside = (problem: string) => {
      const movedTo = setAsideReadModels(directory);
      log.warn(
        { directory, movedTo, problem },
        `read models damaged (${problem}): moved to ${movedTo}; rebuilding them from the event log`,
      );
      mkdirSync(directory, { recursive: true });
    };
    const { problem, deferred } = checkReadModelFile(directory, options.syncChecksumLimit ?? SYNC_CHECKSUM_LIMIT);
    if (problem) setAside(problem);
    unsealReadModelFile(directory);
    let file: ReadModelFile | undefined;
    try {
      file = new ReadModelFile(directory, options);
      file.collectionNames();
      if (deferred) file.checkInBackground(BackgroundChecksum.start(deferred), deferred.sealText);
      return file;
    } catch (error) {
      if (file) void file.db.close().catch(() => undefined);
      setAside(`it does not open: ${(error as Error)?.message ?? String(error)}`);
      return new ReadModelFile(directory, options);
    }
  }

  /**
   * Puts the file in a state `dropByRewrite` leaves, after a crash cut one short: between its two
   * renames (the file moved to `<name>-old-<n>`, the new one complete in `<name>-next-<n>`), the new
   * one takes the name; any other new file was not complete, and old files are only left to remove.
   * Only names of that exact form are touched (`<n>` is `pid-milliseconds-count`).
   */
  private static finishReplacement(directory: string): void {
    const parent = dirname(directory);
    if (!existsSync(parent)) return;
    const base = basename(directory);
    const replaced = (entry: string) => {
      const match = /^(.*)-(next|old)-(\d+-\d+-\d+)$/.exec(entry);
      return match && match[1] === base ? { kind: match[2], suffix: match[3] } : undefined;
    };
    const entries = readdirSync(parent);
    if (!existsSync(directory)) {
      const moved = entries.map(replaced).find((found) => found?.kind === 'old');
      if (moved && entries.includes(`${base}-next-${moved.suffix}`)) renameSync(join(parent, `${base}-next-${moved.suffix}`), directory);
      else if (moved) renameSync(join(parent, `${base}-old-${moved.suffix}`), directory);
    }
    for (const entry of entries) if (replaced(entry)) rmSync(join(parent, entry), { recursive: true, force: true });
  }

  /** Commits wait for `check` (`ordered`), then land, or fail when it found the file damaged. */
  private checkInBackground(check: BackgroundChecksum, sealText: string): void {
    this.checking = check;
    this.sealAtOpen = sealText;
    const ended = check.outcome.then((outcome) => this.checkEnded(outcome));
    this.ordered = ended;
    void ended.then(() => {
      if (this.ordered === ended) this.ordered = undefined;
    });
  }

  private checkEnded(outcome: BackgroundChecksum['result']): void {
    if (this.checking === undefined) return;
    this.checking = undefined;
    if (outcome?.kind !== 'checked' || outcome.problem === undefined) return;
    this.damage = outcome.problem;
    try {
      markReadModelFileDamaged(this.directory, outcome.problem);
    } catch (error) {
      log.error({ err: error, directory: this.directory }, 'the read models could not be marked damaged');
    }
    log.error(
      { directory: this.directory, problem: outcome.problem },
      `read models damaged (${outcome.problem}), found after the start: marked ${join(this.directory, 'DAMAGED')}; they are rebuilt from the event log at the next start`,
    );
    this.options.onDamaged?.(outcome.problem);
  }

  /** What the background check found wrong with the file, if it did. */
  get damaged(): string | undefined {
    return this.damage;
  }

  /** Whether the background check is still running. */
  get checkPending(): boolean {
    return this.checking !== undefined;
  }

  /**
   * Stops a background check still running (closing): commits not written yet are dropped (the log
   * replays them at the next start) and the file keeps the seal it had at open.
   */
  abandonCheck(): void {
    const check = this.checking;
    if (!check) return;
    this.abandoned = true;
    check.abandon();
    this.checkEnded(check.result);
  }

  /** Before a write that cannot wait (`writeSync`, `dropByRewrite`): the check ended, and found nothing. */
  private checkedNow(): void {
    if (this.checking) this.checkEnded(this.checking.waitSync());
    if (this.abandoned) throw new Error('the read-model file is closing');
    if (this.damage !== undefined) throw new Error(`the read models are damaged: ${this.damage}`);
    this.changed = true;
  }

  private static openDatabase(directory: string): RootDatabase<Doc, [string, string]> {
    // Shared structures keep each document shape once in the file instead of in every document:
    // without them, decoding the shape of every document was half of the time a start spent loading
    // the read models (1,000,000-event seed: 5.2 s of 10.8 s).
    // A map reserved large at once (address space only; the file grows as written): when lmdb-js grew
    // it as the file grew, the pages read through the earlier maps stayed resident beside the new
    // one, and a rebuild's file-backed memory reached twice the file (1.45 GB mapped for 711 MB).
    return open<Doc, [string, string]>({
      path: directory,
      ...LMDB_VALUES,
      noSync: true,
      mapSize: MAP_SIZE,
      sharedStructuresKey: Symbol.for('structures'),
    });
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
   * after it wait for it to be written (`ordered`). A batch whose callback throws (a put refused)
   * throws here, its checkpoint left out of the file.
   */
  write(writes: readonly DocumentWrite[], dropped: readonly string[] = [], large?: () => void): Promise<void> {
    const commit = () => {
      large?.();
      this.apply(writes, dropped);
    };
    const write = () => {
      if (this.abandoned) return Promise.resolve();
      if (this.damage !== undefined) return Promise.reject(new Error(`the read models are damaged: ${this.damage}`));
      this.changed = true;
      if (dropped.length > 0) {
        // A callback that throws aborts the transaction, which rejects.
        const written = this.db.transaction(commit) as Promise<unknown> as Promise<void>;
        listenToLmdbCommit(this.db);
        return written;
      }
      // A batch cannot be aborted: lmdb-js writes what its callback queued before a throw, and the
      // throw would leave the batch's promise to nobody. So the throw is caught, the batch listened
      // to, and the error thrown here: the commit failed, its checkpoint is not in the file, and the
      // caller knows at once (the memory read store then writes the commit's keys again later).
      let thrown: { error: unknown } | undefined;
      const written = this.db.batch(() => {
        try {
          commit();
        } catch (error) {
          thrown = { error };
        }
      }) as Promise<unknown> as Promise<void>;
      listenToLmdbCommit(this.db);
      // Set by the callback, which has run by now (the type checker cannot know it has).
      const failure = thrown as { error: unknown } | undefined;
      if (failure) {
        written.catch(() => undefined);
        throw failure.error;
      }
      return written;
    };
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
    this.checkedNow();
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

  /**
   * Drops collections by writing what the file keeps into a new file that takes its place, when
   * that is at most `limit` keys: the dropped documents are not read (a replay from zero after an
   * upgrade dropped a million-event seed's read models key by key, mapping 1.5 GB of the old file
   * to do it), and the file shrinks to what is kept. Answers false, having changed nothing, when
   * more is kept (`rewriteKeptLimit`) or the file's directory cannot be renamed (a mount point); the
   * caller then drops key by key. Call it only once the commits handed to `write` before have been
   * written. From the count to the switch to the new file it runs synchronously (at most the limit's
   * keys copied): no read sees a file in between.
   *
   * One commit, as a drop is: the new file is complete and on disk before the renames (the file to
   * `<name>-old-<n>`, the new one to its name), and `open` finishes a replacement cut short between them.
   */
  async dropByRewrite(dropped: readonly string[]): Promise<boolean> {
    if (this.checking) await this.checking.outcome;
    this.checkedNow();
    const limit = this.options.rewriteKeptLimit ?? REWRITE_KEPT_LIMIT;
    const gone = new Set(dropped);
    const kept: KeyRange[] = [
      ...this.collectionNames()
        .filter((name) => !gone.has(name))
        .map((name) => ({ start: [name], end: [name, LAST_ID] })),
      ...this.large
        .collectionNames()
        .filter((name) => !gone.has(name))
        .flatMap((name) => this.large.ranges(name)),
    ];
    const source = this.db as unknown as RootDatabase<unknown, KeyPart[]>;
    let count = 0;
    for (const range of kept) {
      // Counted in LMDB (keys only), no further than the limit; a copy of the range: lmdb-js writes its options into it.
      count += source.getKeysCount({ ...range, limit: limit - count + 1 });
      if (count > limit) return false;
    }
    const parent = dirname(this.directory);
    const suffix = `${process.pid}-${Date.now()}-${++this.replacements}`;
    const next = `${this.directory}-next-${suffix}`;
    const old = `${this.directory}-old-${suffix}`;
    let target: RootDatabase<Doc, [string, string]> | undefined;
    try {
      mkdirSync(next);
      target = ReadModelFile.openDatabase(next);
      const copy = target as unknown as RootDatabase<unknown, KeyPart[]>;
      let chunk: Array<{ key: KeyPart[]; value: unknown }> = [];
      const flush = () => {
        const entries = chunk;
        chunk = [];
        copy.transactionSync(() => {
          for (const { key, value } of entries) copy.putSync(key, value);
        });
      };
      for (const range of kept) {
        for (const { key, value } of source.getRange({ ...range })) {
          chunk.push({ key, value });
          if (chunk.length === COPY_CHUNK) flush();
        }
      }
      flush();
      // The file opens without syncing its commits: its pages reach the disk here, before any rename.
      for (const name of readdirSync(next)) fsyncPathSync(join(next, name));
      fsyncPathSync(next);
    } catch (error) {
      await target?.close().catch(() => undefined);
      rmSync(next, { recursive: true, force: true });
      throw error;
    }
    try {
      renameSync(this.directory, old);
    } catch {
      await target.close();
      rmSync(next, { recursive: true, force: true });
      return false;
    }
    try {
      renameSync(next, this.directory);
    } catch (error) {
      // Back to the file as it was, so that the commits after this one land where the next open looks.
      renameSync(old, this.directory);
      await target.close();
      rmSync(next, { recursive: true, force: true });
      throw error;
    }
    fsyncPathSync(parent);
    const previous = this.db;
    this.db = target;
    this.large.useDatabase(target as unknown as RootDatabase<unknown, KeyPart[]>);
    for (const name of dropped) this.large.forget(name);
    await previous.close();
    // Left for the next open to remove if this fails: the new file is in place either way.
    await rm(old, { recursive: true, force: true }).catch(() => undefined);
    return true;
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

  /**
   * Closes the file and seals it (`sealReadModelFile`): the next open checks it was not changed
   * meanwhile. A file no write reached since open gets back the seal it had (no checksum to compute);
   * a damaged one gets none (its marker stands).
   */
  async close(): Promise<void> {
    this.abandonCheck();
    await this.db.close();
    if (this.damage !== undefined) return;
    if (!this.changed && this.sealAtOpen !== undefined) restoreSeal(this.directory, this.sealAtOpen);
    else sealReadModelFile(this.directory);
  }
}
