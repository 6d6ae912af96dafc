/** A transaction of the memory read store: its overlays, and the collection handle that reads and writes through them. */
import { ReadStoreInputError } from '../errors';
import type { Collection, Doc, Filter, Update } from '../read-store.port';
import { parseUpdate } from './update-engine';
import type { MemoryReadStore } from './memory-read-store';
import { committedSource, readDoc, type DocSource } from './doc-source';
import { ReadableCollection } from './collection-views';
import { checkCollectionName, checkFilter, checkId, checkUpsertOption, cloneDocument, describeError } from './input-checks';
import { CollectionOverlay, deleteIn, deleteManyIn, insertInto, putInto, updateIn, updateManyIn } from './collection-overlay';

export class Transaction {
  readonly overlays = new Map<string, CollectionOverlay>();
  private readonly handles = new Map<string, TransactionalCollection<Doc>>();
  /** Set once the transaction can no longer be used (ended, or failed on a write). */
  ended = false;
  failure: unknown = undefined;

  constructor(readonly store: MemoryReadStore) {}

  overlay(name: string): CollectionOverlay {
    let overlay = this.overlays.get(name);
    if (!overlay) {
      overlay = new CollectionOverlay(name, this.store.state(name));
      this.overlays.set(name, overlay);
    }
    return overlay;
  }

  /** The overlay to read from (without creating one for a collection this transaction never wrote). */
  source(name: string): DocSource {
    return this.overlays.get(name) ?? committedSource(this.store.state(name));
  }

  handle<T extends Doc>(name: string): Collection<T> {
    let handle = this.handles.get(name);
    if (!handle) {
      handle = new TransactionalCollection(this, checkCollectionName(name));
      this.handles.set(name, handle);
    }
    return handle as unknown as Collection<T>;
  }

  check(): void {
    if (this.failure !== undefined) {
      throw new ReadStoreInputError(`the transaction was aborted by an earlier failed write: ${describeError(this.failure)}`);
    }
    if (this.ended) throw new ReadStoreInputError('the transaction has ended: use it only inside its work function');
    this.store.checkAlive();
  }

  /** Runs a write; a failed write aborts the whole transaction, as in MongoDB. */
  write<R>(run: () => R): R {
    this.check();
    try {
      return run();
    } catch (error) {
      this.failure = error;
      throw error;
    }
  }
}

/** A collection seen through a transaction. */
class TransactionalCollection<T extends Doc> extends ReadableCollection<T> implements Collection<T> {
  protected readonly shared = false;
  constructor(
    private readonly tx: Transaction,
    private readonly name: string,
  ) {
    super();
  }

  protected source(): DocSource {
    this.tx.check();
    return this.tx.source(this.name);
  }

  private write<R>(run: (overlay: CollectionOverlay) => R): Promise<R> {
    try {
      return Promise.resolve(this.tx.write(() => run(this.tx.overlay(this.name))));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  insert(doc: T): Promise<void> {
    return this.write((overlay) => insertInto(overlay, cloneDocument(doc)));
  }

  put(doc: T): Promise<void> {
    return this.write((overlay) => putInto(overlay, cloneDocument(doc)));
  }

  update(id: string, update: Update, options?: { upsert?: boolean }): Promise<T | null> {
    return this.write((overlay) => {
      checkId(id);
      const upsert = checkUpsertOption(options);
      return readDoc<T>(updateIn(overlay, id, parseUpdate(update), upsert) ?? undefined);
    });
  }

  updateMany(filter: Filter, update: Update): Promise<number> {
    return this.write((overlay) => updateManyIn(overlay, checkFilter(filter), parseUpdate(update)));
  }

  delete(id: string): Promise<boolean> {
    return this.write((overlay) => deleteIn(overlay, checkId(id)));
  }

  deleteMany(filter: Filter): Promise<number> {
    return this.write((overlay) => deleteManyIn(overlay, checkFilter(filter)));
  }
}
