/**
 * The embedded read store: named collections of JSON documents held in process memory, queried with
 * MongoDB syntax through mingo, persisted through LMDB when opened on a file. How it stores, indexes,
 * counts and isolates transactions: docs/read-side.md, The embedded read store. This file holds the
 * store (queue, commits, loading, indexes); reads are in doc-source.ts, find-pages.ts and counts.ts,
 * transactions in transaction.ts and collection-overlay.ts, the hand-over to the file in commit-writer.ts.
 */
import { ReadStoreInputError, ReadStoreUnavailableError } from '../errors';
import type {
  Collection,
  Doc,
  DocumentChange,
  IndexSpec,
  ReadObserver,
  ReadStore,
  ReadStoreChangeListener,
  ReadStoreTransaction,
} from '../read-store.port';
import { MaintainedCounts } from './maintained-counts';
import { ReadModelFile, type DocumentWrite, type ReadModelFileOptions } from './read-model-file';
import { ChangeNotifications } from './change-notifications';
import type { LargeWrite } from './large-collections';
import { CollectionState } from './collection-state';
import { duplicateKey, indexDefinition, indexKeys, type IndexDefinition } from './index-definition';
import { CollectionOverlay } from './collection-overlay';
import { Transaction } from './transaction';
import { StoreCollection } from './collection-views';
import { checkCollectionName, describeError } from './input-checks';
import { CommitWriter } from './commit-writer';

/** Documents read from the file per step of loading: a few milliseconds of the event loop. */
const LOAD_CHUNK = 2000;
/** Pending documents of large collections past which a transaction's commit waits for the file (back-pressure). */
const MAX_PENDING_LARGE = 20_000;

export class MemoryReadStore implements ReadStore {
  private readonly collections = new Map<string, CollectionState>();
  private readonly handles = new Map<string, StoreCollection<Doc>>();
  /** Tail of the queue that serializes transactions and writes. */
  private tail: Promise<void> = Promise.resolve();
  /** Queued or running queue entries; 0 means a write may run at once. */
  private pending = 0;
  /** Set by `close()`: new calls are refused, work already accepted still runs. */
  private closing = false;
  /** Set once accepted work has drained: nothing runs any more. */
  private closed = false;
  /** Moved before every change to committed state (which is synchronous, so no read sees a change under an old version). */
  private version = 0;
  /** Hands commits to the file, if any (`commit-writer.ts`). */
  private readonly writer: CommitWriter;
  /** Commits that wrote to a large collection, numbered (`CollectionState.pending`). */
  private commits = 0;
  /** Documents pending in large collections, all together. */
  private pendingLarge = 0;

  /**
   * Loading. Collections of the file not yet in memory, with what the background has loaded of
   * each so far. A collection is loaded whole the first time anything uses it; the background,
   * once started (`loadInBackground`), loads the others a chunk per event-loop turn. So a start with
   * large read models (1,000,000 events: 660,000 audit events) answers as soon as the collections
   * it needs are in, instead of decoding every document first; the memory ends the same once the
   * background is done.
   */
  private readonly unloaded = new Map<string, { state: CollectionState; afterId: string | undefined }>();
  /** Indexes declared on a collection not loaded yet: created when it loads. */
  private readonly pendingIndexes = new Map<string, IndexDefinition[]>();
  private backgroundLoad: NodeJS.Timeout | undefined;
  private backgroundStarted = false;
  /** @internal Told of every change to committed contents and of every read outside transactions. */
  readonly notifications = new ChangeNotifications();

  /**
   * With `file`, its documents are loaded (see Loading), every commit is written to it
   * (`read-model-file.ts`), and collections declared large live in it (`declareLarge`).
   */
  constructor(private readonly file?: ReadModelFile) {
    this.writer = new CommitWriter(file, {
      closing: () => this.closing,
      closed: () => this.closed,
      enqueue: (run) => this.enqueue(run),
      committed: (collection, id) => this.collections.get(collection)?.docs.get(id) ?? null,
      released: (large) => {
        for (const { state, ids } of large) for (const id of ids) if (state.pending.delete(id)) this.pendingLarge--;
      },
    });
    if (!file) return;
    for (const name of file.large.collectionNames()) this.collections.set(name, new CollectionState(name, file.large));
    for (const name of file.collectionNames()) {
      // Left in the main file by a move to the large file that a crash cut short: the large file has them.
      if (this.collections.has(name)) this.writer.persist([], [name]);
      else this.unloaded.set(name, { state: new CollectionState(name), afterId: undefined });
    }
  }

  /**
   * Starts loading the collections nothing has used yet, a chunk per event-loop turn (idempotent).
   * The service asks once its read models have caught up: loading alongside the start made a start
   * after a clean stop about a tenth slower. Without it, each collection still loads on first use.
   */
  loadInBackground(): void {
    if (this.backgroundStarted) return;
    this.backgroundStarted = true;
    this.scheduleBackgroundLoad();
  }

  /**
   * With a file: once the transactions queued before it and the writes handed to the file are done,
   * unmaps the file and maps it again (`ReadModelFile.releaseMappedPages`); transactions queued after
   * it wait. Only for a replay alone on the store, between two commits (the CLI's `rebuild`, the
   * service's catch-up at start: `ReplayMappedPages`): a read of a large collection or a background
   * load while it runs would fail. A no-op without a file.
   */
  releaseMappedPages(): Promise<void> {
    this.checkOpen();
    return this.enqueue(async () => {
      await this.writer.written;
      await this.file?.releaseMappedPages();
    });
  }

  /** Whether every collection of the file is in memory (large collections stay on disk). */
  get loaded(): boolean {
    return this.unloaded.size === 0;
  }

  /** A store whose documents persist in an LMDB environment in `directory` (the embedded service's read models). */
  static open(directory: string, options?: ReadModelFileOptions): MemoryReadStore {
    return new MemoryReadStore(ReadModelFile.open(directory, options));
  }

  contentVersion(): number {
    return this.version;
  }

  onChange(listener: ReadStoreChangeListener): () => void {
    return this.notifications.onChange(listener);
  }

  observeReads(observer: ReadObserver | undefined): void {
    this.notifications.observeReads(observer);
  }

  collection<T extends Doc = Doc>(name: string): Collection<T> {
    let handle = this.handles.get(name);
    if (!handle) {
      handle = new StoreCollection(this, checkCollectionName(name));
      this.handles.set(name, handle);
    }
    return handle as unknown as Collection<T>;
  }

  transaction<R>(work: (tx: ReadStoreTransaction) => Promise<R>): Promise<R> {
    try {
      this.checkOpen();
    } catch (error) {
      return Promise.reject(error);
    }
    if (typeof work !== 'function') return Promise.reject(new ReadStoreInputError('transaction work must be a function'));
    return this.enqueue(async () => {
      const tx = new Transaction(this);
      const handle: ReadStoreTransaction = { collection: <T extends Doc = Doc>(name: string) => tx.handle<T>(name) };
      let result: R;
      try {
        result = await work(handle);
      } finally {
        tx.ended = true;
      }
      if (tx.failure !== undefined) throw tx.failure;
      this.checkAlive();
      this.commit([...tx.overlays.values()]);
      // Back-pressure: a replay commits faster than LMDB writes, and pending documents are memory.
      if (this.pendingLarge > MAX_PENDING_LARGE) await this.writer.written;
      return result;
    });
  }

  ensureIndex(collection: string, index: IndexSpec): Promise<void> {
    try {
      this.checkOpen();
      checkCollectionName(collection);
      const definition = indexDefinition(index);
      return this.enqueue(async () => {
        // A large collection's entries are made from its documents in the file: the commits handed over first must be there.
        if (this.collections.get(collection)?.large) await this.writer.written;
        this.createIndex(collection, definition);
      });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Without a file (a store in memory only), a large collection is held in memory like any other.
   * With one, its documents move from memory into the file's large collections, where its declared
   * indexes are kept too.
   */
  declareLarge(name: string): Promise<void> {
    try {
      this.checkOpen();
      checkCollectionName(name);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.enqueue(async () => {
      this.checkAlive();
      if (!this.file) return;
      const large = this.file.large;
      const current = this.state(name);
      if (current?.large) return;
      if (current?.unique.length) throw new ReadStoreInputError(`'${name}' has a unique index: a large collection takes none`);
      await this.writer.written;
      this.checkAlive();
      const moved = current !== undefined && current.docs.size > 0;
      this.file.writeSync([], moved ? [name] : [], () => {
        large.declare(name);
        for (const definition of current?.indexes ?? []) large.ensureIndex(name, definition.key);
        if (moved)
          large.write(
            name,
            Array.from(current.docs, ([id, doc]) => ({ id, before: undefined, after: doc })),
          );
      });
      const state = new CollectionState(name, large);
      state.indexes.push(...(current?.indexes ?? []));
      // Declared just now, it holds what moved and nothing else: its count is kept from here, so
      // counting it never walks the file (a rebuild's audit log: 1.6 GB of pages read to count it).
      state.counts.set(MaintainedCounts.keyOf(undefined)!, undefined, null, moved ? current.docs.size : 0);
      this.version++;
      this.collections.set(name, state);
      this.notifications.changed(new Map([[name, null]]));
    });
  }

  dropCollections(names: readonly string[]): Promise<void> {
    let dropped: string[];
    try {
      this.checkOpen();
      if (!Array.isArray(names)) throw new ReadStoreInputError('collection names must be an array');
      dropped = [...new Set(names.map((name) => checkCollectionName(name)))];
    } catch (error) {
      return Promise.reject(error);
    }
    return this.enqueue(async () => {
      this.checkAlive();
      if (dropped.length === 0) return;
      const file = this.file;
      if (file) {
        // One commit, written before the memory changes: what is queued first must be in the file.
        await this.writer.written;
        this.checkAlive();
        if (!(await file.dropByRewrite(dropped))) {
          const large = dropped.filter((name) => this.collections.get(name)?.large);
          file.writeSync([], dropped, () => {
            for (const name of large) file.large.drop(name);
          });
        }
      }
      this.version++;
      for (const name of dropped) {
        this.collections.delete(name);
        this.unloaded.delete(name);
        this.pendingIndexes.delete(name);
      }
      this.notifications.changed(new Map(dropped.map((name) => [name, null])));
    });
  }

  /** Resolves once every commit handed to the file so far has been written (a large collection's pending writes included). */
  async whenWritten(): Promise<void> {
    await this.writer.written;
  }

  async listCollections(): Promise<string[]> {
    this.checkOpen();
    return [...new Set([...this.collections.keys(), ...this.unloaded.keys()])].sort();
  }

  async health(): Promise<{ ok: boolean; detail?: string }> {
    // Found by the check that runs after the start (`ReadModelFile.open`): the process is closing.
    const damaged = this.file?.damaged;
    if (damaged !== undefined) return { ok: false, detail: `readModels: damaged, rebuilding on restart (${damaged})` };
    const problem = this.writer.problem();
    if (problem !== undefined) return { ok: false, detail: problem };
    if (this.closing) return { ok: false, detail: 'the memory read store is closed' };
    // Still answering: a collection not in memory yet is loaded on first use. Said so that whoever
    // watches memory or the first requests' times knows the loading is not over.
    if (this.unloaded.size > 0) {
      const rest = this.backgroundStarted ? 'loading in the background' : 'each loaded on first use';
      return { ok: true, detail: `${this.unloaded.size} read model collection(s) not in memory yet, ${rest}` };
    }
    return { ok: true };
  }

  /** Refuses new calls, lets transactions and writes already accepted finish, then drops all data. */
  async close(): Promise<void> {
    if (this.closing) {
      await this.tail;
      return;
    }
    this.closing = true;
    // A checksum still being compared in the background would hold the commits queued behind it.
    this.file?.abandonCheck();
    await this.tail;
    this.closed = true;
    clearTimeout(this.backgroundLoad);
    this.unloaded.clear();
    this.collections.clear();
    this.handles.clear();
    await this.writer.written;
    await this.file?.close();
  }

  // -- internals used by transactions and collection handles -------------------------------------

  /** @internal Refuses a new call once `close()` has been called. */
  checkOpen(): void {
    if (this.closing) throw new ReadStoreUnavailableError('the memory read store is closed');
  }

  /** @internal Refuses to run anything once the store has closed (accepted work may finish while closing). */
  checkAlive(): void {
    if (this.closed) throw new ReadStoreUnavailableError('the memory read store is closed');
    if (this.writer.broken !== undefined)
      throw new ReadStoreUnavailableError(`the read models could not be written to disk: ${describeError(this.writer.broken)}`);
  }

  /**
   * Applies overlays to committed state, synchronously, and hands their writes to the file. A large
   * collection's writes become pending (reads take them from there) and go to the file in the
   * commit's own LMDB transaction, which then moves the collection's index entries; once written,
   * those still current leave `pending`.
   */
  private commit(overlays: readonly CollectionOverlay[]): void {
    const written = overlays.filter((overlay) => overlay.writes.size > 0);
    const large = written.filter((overlay) => overlay.base?.large);
    const changes: DocumentWrite[] = [];
    const change = new Map<string, DocumentChange[]>();
    for (const overlay of written) {
      if (overlay.base?.large) continue;
      changes.push(...overlay.changes());
      const state = this.stateForWrite(overlay.name);
      if (this.notifications.listening)
        change.set(
          overlay.name,
          Array.from(overlay.writes, ([id, after]) => ({ id, before: state.get(id) ?? null, after })),
        );
      overlay.commitTo(state);
    }
    if (large.length === 0) {
      this.writer.persist(changes);
      return this.notifications.changed(change);
    }
    const commit = ++this.commits;
    const handed = large.map((overlay) => {
      const state = this.stateForWrite(overlay.name);
      const writes: LargeWrite[] = [];
      for (const [id, after] of overlay.writes) {
        const before = state.get(id);
        writes.push({ id, before, after });
        if (this.notifications.listening)
          change.set(overlay.name, [...(change.get(overlay.name) ?? []), { id, before: before ?? null, after }]);
        state.counts.apply(before, after);
        if (!state.pending.has(id)) this.pendingLarge++;
        state.pending.set(id, { doc: after, commit });
      }
      return { state, writes };
    });
    this.writer.persist(changes, [], {
      touched: handed.map(({ state, writes }) => ({ state, ids: writes.map(({ id }) => id) })),
      run: () => handed.forEach(({ state, writes }) => state.large!.write(state.name, writes)),
      written: () =>
        handed.forEach(({ state, writes }) => {
          for (const { id } of writes) {
            if (state.pending.get(id)?.commit !== commit) continue;
            state.pending.delete(id);
            this.pendingLarge--;
          }
        }),
    });
    this.notifications.changed(change);
  }

  /** @internal Committed state of a collection, if it exists. */
  state(name: string): CollectionState | undefined {
    if (this.unloaded.has(name)) this.finishLoading(name);
    return this.collections.get(name);
  }

  /** @internal Committed state of a collection, created when missing. */
  stateForWrite(name: string): CollectionState {
    this.version++;
    let state = this.state(name);
    if (!state) {
      state = new CollectionState(name);
      this.collections.set(name, state);
    }
    return state;
  }

  /** @internal A write outside any transaction: a one-operation transaction, run at once when the queue is idle. */
  writeOnce<R>(name: string, run: (overlay: CollectionOverlay) => R): Promise<R> {
    try {
      this.checkOpen();
    } catch (error) {
      return Promise.reject(error);
    }
    const once = (): R => {
      this.checkAlive();
      const overlay = new CollectionOverlay(name, this.state(name));
      const result = run(overlay);
      this.commit([overlay]);
      return result;
    };
    if (this.pending === 0) {
      try {
        return Promise.resolve(once());
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.enqueue(async () => once());
  }

  /** Loads the rest of a collection from the file, makes it visible, then creates the indexes declared meanwhile. */
  private finishLoading(name: string): void {
    const partial = this.unloaded.get(name);
    if (!partial) return;
    while (this.loadChunk(name, partial, LOAD_CHUNK)) {
      // until the collection is complete
    }
    this.unloaded.delete(name);
    this.collections.set(name, partial.state);
    const pending = this.pendingIndexes.get(name) ?? [];
    this.pendingIndexes.delete(name);
    for (const definition of pending) this.createIndex(name, definition);
  }

  /** Adds up to `size` more documents of a collection being loaded; false once it has them all. */
  private loadChunk(name: string, partial: { state: CollectionState; afterId: string | undefined }, size: number): boolean {
    const docs = this.file!.loadCollection(name, partial.afterId, size);
    for (const doc of docs) partial.state.docs.set(doc._id, doc);
    if (docs.length > 0) partial.afterId = docs[docs.length - 1]._id;
    return docs.length === size;
  }

  /** One chunk of the first collection not loaded yet per event-loop turn, until every collection is in. */
  private scheduleBackgroundLoad(): void {
    if (this.unloaded.size === 0 || this.closing) return;
    this.backgroundLoad = setTimeout(() => {
      this.backgroundLoad = undefined;
      const next = this.unloaded.entries().next();
      if (next.done || this.closing || this.writer.broken !== undefined) return;
      const [name, partial] = next.value;
      if (!this.loadChunk(name, partial, LOAD_CHUNK)) this.finishLoading(name);
      this.scheduleBackgroundLoad();
    }, 0);
    this.backgroundLoad.unref();
  }

  private enqueue<R>(run: () => Promise<R>): Promise<R> {
    this.pending++;
    const result = this.tail.then(run);
    const settled = (): void => {
      this.pending--;
    };
    this.tail = result.then(settled, settled);
    return result;
  }

  private createIndex(name: string, definition: IndexDefinition): void {
    this.checkAlive();
    if (definition.fields.length === 1 && definition.fields[0] === '_id') return;
    if (this.unloaded.has(name)) {
      // Declared at every start for every collection: kept until the collection loads, so declaring does not load it.
      const pending = this.pendingIndexes.get(name) ?? [];
      const same = pending.find((d) => d.key === definition.key);
      if (same && same.canonical !== definition.canonical)
        throw new ReadStoreInputError(`an index on ${definition.key} already exists in '${name}' with different options`);
      if (!same) this.pendingIndexes.set(name, [...pending, definition]);
      return;
    }
    const existing = this.collections.get(name)?.indexes.find((d) => d.key === definition.key);
    if (existing) {
      if (existing.canonical === definition.canonical) return;
      throw new ReadStoreInputError(`an index on ${definition.key} already exists in '${name}' with different options`);
    }
    const state = this.collections.get(name);
    if (state?.large) {
      if (definition.unique) throw new ReadStoreInputError(`'${name}' is a large collection: it takes no unique index`);
      // Entries derive from the large collection's documents in the file (`ensureIndex` waited for the commits handed over).
      // Declared at every start: an index the file keeps needs no transaction (a synchronous one
      // would wait for the file's checksum, compared in the background after the start).
      if (state.large.hasIndex(name, definition.key)) state.large.ensureIndex(name, definition.key);
      else this.file!.writeSync([], [], () => state.large!.ensureIndex(name, definition.key));
      this.version++;
      state.indexes.push(definition);
      return;
    }
    if (definition.unique) {
      const entries = new Map<string, string>();
      for (const doc of state?.docs.values() ?? []) {
        for (const key of indexKeys(definition, doc) ?? []) {
          const owner = entries.get(key);
          if (owner !== undefined && owner !== doc._id) throw duplicateKey(name, definition, key);
          entries.set(key, doc._id);
        }
      }
      const target = this.stateForWrite(name);
      target.indexes.push(definition);
      target.unique.push({ definition, entries });
    } else {
      this.stateForWrite(name).indexes.push(definition);
    }
  }
}
