import { closeSync, fsyncSync, openSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/**
 * fsync of a file or a directory through a descriptor of its own, so that its data, or the entries
 * created or renamed in a directory, survive a crash. Where a directory cannot be opened or synced
 * (Windows, some file systems), it is skipped: there is nothing more to be had there.
 */
export function fsyncPathSync(path: string): void {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(path, 'r');
    fsyncSync(descriptor);
  } catch (error) {
    if (!cannotSyncDirectory(error)) throw error;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/** `fsyncPathSync` through the promise API (off the event loop). */
export async function fsyncPath(path: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, 'r');
    await handle.sync();
  } catch (error) {
    if (!cannotSyncDirectory(error)) throw error;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** The errors of a system where directories cannot be opened (EISDIR) or synced (EPERM, EINVAL, EBADF). */
export function cannotSyncDirectory(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EISDIR' || code === 'EPERM' || code === 'EINVAL' || code === 'EBADF';
}
