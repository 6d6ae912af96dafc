import { log } from '#platform/logging';
import type { Filter, ReadStoreChange, ReadStoreChangeListener, ReadObserver } from '../read-store.port';

/**
 * Who is told what the memory read store's commits changed, and who is told what is read outside
 * transactions. Both are called synchronously: a commit applies to memory synchronously, so a
 * listener learns of it before any read can see it (the HTTP response cache relies on that).
 */
export class ChangeNotifications {
  private listeners: ReadStoreChangeListener[] = [];
  private observer: ReadObserver | undefined;

  onChange(listener: ReadStoreChangeListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((each) => each !== listener);
    };
  }

  observeReads(observer: ReadObserver | undefined): void {
    this.observer = observer;
  }

  /** Whether anyone listens to changes: commits then gather what they wrote, documents before and after. */
  get listening(): boolean {
    return this.listeners.length > 0;
  }

  read(collection: string, id: string | null, filter?: Filter): void {
    this.observer?.(collection, id, filter);
  }

  changed(change: ReadStoreChange): void {
    if (change.size === 0) return;
    for (const listener of this.listeners) {
      // A listener's failure must not fail a commit already applied.
      try {
        listener(change);
      } catch (error) {
        log.error({ err: error }, 'a read store change listener failed');
      }
    }
  }
}
