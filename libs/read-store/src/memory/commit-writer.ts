/** How the memory read store hands its commits to the read models' file, and catches up once a full disk has space again. */
import { log } from '#platform/logging';
import { asStorageFull, StorageFullError } from '#platform/storage-full';
import type { Doc } from '../read-store.port';
import type { CollectionState } from './collection-state';
import type { DocumentWrite, ReadModelFile } from './read-model-file';
import { UnwrittenCommits } from './unwritten-commits';
import { describeError } from './input-checks';

/** A commit's writes to large collections, run inside the commit's LMDB transaction. */
export interface LargeHandOver {
  run: () => void;
  /** Called once the file has written them. */
  written: () => void;
  touched: Array<{ state: CollectionState; ids: string[] }>;
}

/** What the writer needs of its store. */
export interface CommitWriterHost {
  /** Whether `close()` has been called: no new attempt is scheduled then. */
  closing(): boolean;
  /** Whether accepted work has drained: nothing is written any more. */
  closed(): boolean;
  /** Runs `run` in the store's queue, between two commits. */
  enqueue(run: () => Promise<void>): Promise<void>;
  /** A collection's committed document held in memory, null when it is gone. */
  committed(collection: string, id: string): Doc | null;
  /** Large collections' writes the file holds now: they leave `pending`. */
  released(large: ReadonlyArray<{ state: CollectionState; ids: readonly string[] }>): void;
}

export class CommitWriter {
  /** Set when a commit could not be written to the file: committed memory is then ahead of the disk, so no more writes. */
  private failure: unknown = undefined;
  /** Set while commits could not be written to the file for lack of space: their keys, written once it is back. */
  private unwritten: UnwrittenCommits | undefined;
  /** The last commit handed to the file (settles once LMDB has written it). */
  private last: Promise<void> = Promise.resolve();

  constructor(
    private readonly file: ReadModelFile | undefined,
    private readonly host: CommitWriterHost,
  ) {}

  /** Settles once every commit handed to the file so far has been written (or failed). */
  get written(): Promise<void> {
    return this.last;
  }

  /** Why the file can take no more commits, once a write failed otherwise than for lack of space; undefined while it can. */
  get broken(): unknown {
    return this.failure;
  }

  /** What `health()` reports while the file is behind memory; undefined when it is not. */
  problem(): string | undefined {
    if (this.failure !== undefined) return `the read models could not be written to disk: ${describeError(this.failure)}`;
    if (this.unwritten)
      return `the read models are not written to disk (kept in memory, retried): ${this.unwritten.cause.message} (${describeError(this.unwritten.cause.cause)})`;
    return undefined;
  }

  /**
   * Hands a commit to the file, if there is one, without waiting for it: LMDB writes the commits
   * in the order they were handed over, each with its checkpoint in the same LMDB transaction, so
   * the file always holds some commit's whole state and a restart resumes from that commit's
   * checkpoint (replaying from the log what had not reached the file). A failed write stops every
   * later call (memory is ahead of the disk); `close()` waits for the writes handed over.
   */
  persist(writes: DocumentWrite[], dropped: string[] = [], large?: LargeHandOver): void {
    if (!this.file || (writes.length === 0 && dropped.length === 0 && !large)) return;
    // Behind the memory for lack of space: the keys wait for `writeUnwritten`, in the order of nothing.
    if (this.unwritten && dropped.length === 0) return this.unwritten.note(writes, large?.touched);
    const failed = (error: unknown): void => {
      const full = asStorageFull('read store', error);
      if (!(full instanceof StorageFullError) || dropped.length > 0) {
        this.failure ??= error;
        return;
      }
      if (!this.unwritten) {
        log.error(
          { err: full.cause },
          'the read models could not be written to disk for lack of space; kept in memory, written once space is back',
        );
        this.unwritten = new UnwrittenCommits(full);
        this.scheduleUnwritten();
      }
      this.unwritten.note(writes, large?.touched);
    };
    try {
      this.last = this.file.write(writes, dropped, large?.run).then(large?.written, failed);
    } catch (error) {
      // Refused before LMDB took it (a put, or a large collection's write inside the batch): memory
      // is committed already, so this commit takes the path of one that failed later, at once (the
      // commits after it wait with it), and never fails the transaction that made it.
      failed(error);
    }
  }

  /** The next attempt at `writeUnwritten`, after a backoff; it runs between two commits. */
  private scheduleUnwritten(): void {
    const unwritten = this.unwritten;
    if (!unwritten || this.host.closing()) return;
    setTimeout(() => {
      if (this.host.closing() || this.unwritten !== unwritten) return;
      void this.host.enqueue(() => this.writeUnwritten()).catch(() => undefined);
    }, unwritten.nextDelay()).unref();
  }

  /**
   * Writes what the file missed since a commit failed for lack of space (`UnwrittenCommits`),
   * once the commits handed to the file before have settled; on success the file holds memory's
   * state again and commits are handed to it as before, else the next attempt is scheduled.
   */
  private async writeUnwritten(): Promise<void> {
    await this.last;
    const unwritten = this.unwritten;
    if (!unwritten || !this.file || this.host.closed() || this.failure !== undefined) return;
    try {
      const large = unwritten.writeTo(this.file, (collection, id) => this.host.committed(collection, id));
      this.unwritten = undefined;
      this.host.released(large as Array<{ state: CollectionState; ids: string[] }>);
      log.info('the read models are written to disk again');
    } catch (error) {
      const full = asStorageFull('read store', error);
      if (full instanceof StorageFullError) unwritten.cause = full;
      else log.error({ err: error }, 'the read models could not be written to disk; retried');
      this.scheduleUnwritten();
    }
  }
}
