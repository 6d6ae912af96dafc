import type { StorageFullError } from '#platform/storage-full';
import type { Doc } from '../read-store.port';
import type { LargeWrite } from './large-collections';
import type { DocumentWrite, ReadModelFile } from './read-model-file';

/** First wait before writing again, then doubled up to `MAX_RETRY_MS`. */
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;

/** A large collection as the memory read store keeps it: what `UnwrittenCommits` needs of it. */
export interface LargeState {
  readonly name: string;
  /** The committed document (its pending version, else the file's). */
  get(id: string): Doc | undefined;
}

/**
 * The keys of the commits that did not reach the read models' file since one of them failed for
 * lack of space. Memory holds every commit (the read models go on answering and the projections go
 * on applying events); the file stays at the commits written before. Read models are derived: once
 * space is back, the current documents of these keys are written with the checkpoint (a document
 * of every commit, so one of these keys) in one transaction, and the file holds memory's state
 * again. Should the process stop before, the next start resumes from the checkpoint in the file and
 * replays the rest from the log.
 */
export class UnwrittenCommits {
  private readonly documents = new Map<string, Set<string>>();
  private readonly large = new Map<LargeState, Set<string>>();
  private retryMs = FIRST_RETRY_MS;

  constructor(public cause: StorageFullError) {}

  /** Adds a commit's keys: its documents, and the ids it wrote in large collections. */
  note(writes: readonly DocumentWrite[], large: ReadonlyArray<{ state: LargeState; ids: readonly string[] }> = []): void {
    for (const { collection, id } of writes) {
      let ids = this.documents.get(collection);
      if (!ids) this.documents.set(collection, (ids = new Set()));
      ids.add(id);
    }
    for (const { state, ids } of large) {
      let known = this.large.get(state);
      if (!known) this.large.set(state, (known = new Set()));
      for (const id of ids) known.add(id);
    }
  }

  /** How long to wait before the next attempt: doubled at each call, up to 30 s. */
  nextDelay(): number {
    const delay = this.retryMs;
    this.retryMs = Math.min(MAX_RETRY_MS, this.retryMs * 2);
    return delay;
  }

  /**
   * Writes the current version of every key (`current`: a document, or null when it is gone) in one
   * synchronous transaction, or throws having written nothing. Call it between two commits, once the
   * commits handed to the file before have settled. A large collection's document is written over
   * the one the file holds now, whose index entries it moves.
   */
  writeTo(file: ReadModelFile, current: (collection: string, id: string) => Doc | null): Array<{ state: LargeState; ids: string[] }> {
    const writes: DocumentWrite[] = [];
    for (const [collection, ids] of this.documents) for (const id of ids) writes.push({ collection, id, doc: current(collection, id) });
    const written = [...this.large].map(([state, ids]) => ({ state, ids: [...ids] }));
    file.writeSync(writes, [], () => {
      for (const { state, ids } of written) {
        const large: LargeWrite[] = ids.map((id) => ({ id, before: file.large.get(state.name, id), after: state.get(id) ?? null }));
        file.large.write(state.name, large);
      }
    });
    return written;
  }
}
