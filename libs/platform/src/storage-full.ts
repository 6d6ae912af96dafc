/**
 * A write the server could not store for lack of space: the disk or the quota is full (ENOSPC,
 * EDQUOT), an LMDB map is full, or an LMDB commit failed (nothing of a failed commit is kept).
 * Answered 507 Insufficient Storage; nothing of the write was stored, so the client may retry once
 * space is freed, and the service carries on by itself when it is.
 */
export class StorageFullError extends Error {
  override readonly name = 'StorageFullError';
  constructor(
    /** Which store, for the logs and `/health`. */
    readonly store: string,
    override readonly cause?: unknown,
  ) {
    super('the server has no space left to store this write; nothing was stored');
  }
}

const NO_SPACE_CODES = new Set(['ENOSPC', 'EDQUOT']);
/** errno values as LMDB reports them (a number `code`): ENOSPC, EDQUOT on Linux, and MDB_MAP_FULL. */
const NO_SPACE_ERRNOS = new Set([28, 122, -30792]);

/** Whether `error` says the disk, a quota or an LMDB map is full. */
export function isNoSpaceError(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && NO_SPACE_CODES.has(code)) return true;
  if (typeof code === 'number' && NO_SPACE_ERRNOS.has(code)) return true;
  return typeof message === 'string' && /no space left on device|disk quota exceeded|MDB_MAP_FULL/i.test(message);
}

/**
 * Whether `error` is lmdb-js's failed commit. Its own cause is a second promise
 * (`commitError`) that rejects too, and takes the process down unhandled unless someone listens:
 * this listens to it.
 */
export function isLmdbCommitFailure(error: unknown): boolean {
  const commitError = (error as { commitError?: unknown } | null)?.commitError;
  if (!(commitError instanceof Promise)) return false;
  commitError.catch(() => undefined);
  return true;
}

/** `error` as a StorageFullError when it says the write could not be stored, as it is otherwise. */
export function asStorageFull(store: string, error: unknown): unknown {
  if (error instanceof StorageFullError) return error;
  return isNoSpaceError(error) || isLmdbCommitFailure(error) ? new StorageFullError(store, error) : error;
}

/**
 * lmdb-js starts each event turn's batch with a commit promise of its own that nobody is handed:
 * when that commit fails, it rejects unhandled. Call this in the turn of a write, after queuing it:
 * the next turn listens to that promise (the rejection reaches the write's own caller anyway).
 */
export function listenToLmdbCommit(root: { committed: PromiseLike<unknown> }): void {
  if (listening.has(root)) return;
  listening.add(root);
  setImmediate(() => {
    listening.delete(root);
    root.committed.then(undefined, (error: unknown) => isLmdbCommitFailure(error));
  });
}

/** Environments with a listener queued for this turn: one is enough. */
const listening = new WeakSet<object>();
