/** The collection handles of the memory read store: the reads they share, and the handle outside transactions. */
import type { Collection, Doc, Filter, FindOptions, Page, Update } from '../read-store.port';
import { parseUpdate } from './update-engine';
import type { MemoryReadStore } from './memory-read-store';
import { committedSource, firstMatch, readDoc, type DocSource } from './doc-source';
import { findIn } from './find-pages';
import { countIn } from './counts';
import { checkFilter, checkId, checkUpsertOption, cloneDocument } from './input-checks';
import { deleteIn, deleteManyIn, insertInto, putInto, updateIn, updateManyIn, type CollectionOverlay } from './collection-overlay';

/** The reads both collection views share; they differ only in which documents a read sees. */
export abstract class ReadableCollection<T extends Doc> {
  /** The documents a read sees; throws when the store or transaction is no longer usable. */
  protected abstract source(): DocSource;
  /** Whether reads hand out the stored documents, frozen (outside transactions), or copies (`handOut`). */
  protected abstract readonly shared: boolean;

  protected read<R>(run: (source: DocSource) => R): Promise<R> {
    try {
      return Promise.resolve(run(this.source()));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Tells the store's read observer, if any, what is read (`observeReads`). */
  protected noteRead(_id: string | null, _filter?: Filter): void {}

  get(id: string): Promise<T | null> {
    this.noteRead(id);
    return this.read((source) => readDoc<T>(source.lookup(checkId(id)), this.shared));
  }

  findOne(filter: Filter): Promise<T | null> {
    this.noteRead(null, filter);
    return this.read((source) => readDoc<T>(firstMatch(source, checkFilter(filter)), this.shared));
  }

  find(filter?: Filter, options?: FindOptions): Promise<Page<T>> {
    this.noteRead(null, filter);
    return this.read((source) => findIn<T>(source, filter, options, this.shared));
  }

  count(filter?: Filter): Promise<number> {
    this.noteRead(null, filter);
    return this.read((source) => countIn(source, filter));
  }
}

/** A collection outside any transaction: reads see committed state, each write is its own transaction. */
export class StoreCollection<T extends Doc> extends ReadableCollection<T> implements Collection<T> {
  protected readonly shared = true;
  constructor(
    private readonly store: MemoryReadStore,
    private readonly name: string,
  ) {
    super();
  }

  protected source(): DocSource {
    this.store.checkOpen();
    return committedSource(this.store.state(this.name));
  }

  protected override noteRead(id: string | null, filter?: Filter): void {
    this.store.notifications.read(this.name, typeof id === 'string' ? id : null, filter);
  }

  private write<R>(run: (overlay: CollectionOverlay) => R): Promise<R> {
    return this.store.writeOnce(this.name, run);
  }

  insert(doc: T): Promise<void> {
    return attempt(() => {
      const copy = cloneDocument(doc);
      return this.write((overlay) => insertInto(overlay, copy));
    });
  }

  put(doc: T): Promise<void> {
    return attempt(() => {
      const copy = cloneDocument(doc);
      return this.write((overlay) => putInto(overlay, copy));
    });
  }

  update(id: string, update: Update, options?: { upsert?: boolean }): Promise<T | null> {
    return attempt(() => {
      checkId(id);
      const upsert = checkUpsertOption(options);
      const parsed = parseUpdate(update);
      return this.write((overlay) => readDoc<T>(updateIn(overlay, id, parsed, upsert) ?? undefined));
    });
  }

  updateMany(filter: Filter, update: Update): Promise<number> {
    return attempt(() => {
      checkFilter(filter);
      const parsed = parseUpdate(update);
      return this.write((overlay) => updateManyIn(overlay, filter, parsed));
    });
  }

  delete(id: string): Promise<boolean> {
    return attempt(() => {
      checkId(id);
      return this.write((overlay) => deleteIn(overlay, id));
    });
  }

  deleteMany(filter: Filter): Promise<number> {
    return attempt(() => {
      checkFilter(filter);
      return this.write((overlay) => deleteManyIn(overlay, filter));
    });
  }
}

/** Turns a synchronous throw into a rejected promise. */
function attempt<R>(run: () => Promise<R>): Promise<R> {
  try {
    return run();
  } catch (error) {
    return Promise.reject(error);
  }
}
