import { closeSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { tryLock, unlock } from 'fs-native-extensions';
import { DataDirectoryLockedError } from '../errors';

/**
 * An exclusive, process-level lock on a data directory. LMDB itself allows several processes on
 * one environment, but the embedded mode keeps in-process state (subscriptions, read models) that a
 * second writer would silently bypass, so a second process is refused instead.
 *
 * The lock is an advisory lock held by the kernel on `process.lock` (an open file description
 * lock on Linux, `flock` on macOS, `LockFileEx` on Windows, through `fs-native-extensions`): it is
 * released when its holder's descriptor closes, which the kernel does when the holder dies, however
 * it dies (kill -9, OOM). Nothing judges whether a pid is alive: in a container the service is
 * PID 1 at every start, and a pid is reused on a host, so a pid proves nothing. Being bound to the
 * open file description, a second open in the same process is refused too.
 *
 * The file's content (the holder's pid) only names the holder in the refusal; a file left by an
 * earlier version, whatever pid it names, does not block.
 */
export class ProcessLock {
  private constructor(private fd: number | undefined) {}

  static acquire(directory: string): ProcessLock {
    const path = join(directory, 'process.lock');
    // Close-on-exec (Node opens every file with it): a child process does not inherit the lock.
    const fd = openSync(path, 'a+', 0o600);
    let locked = false;
    try {
      locked = tryLock(fd);
    } finally {
      if (!locked) closeSync(fd);
    }
    if (!locked) {
      const holder = readHolder(path);
      throw new DataDirectoryLockedError(
        `the data directory ${directory} is in use by ${holder === null ? 'another process' : `process ${holder}`}; ` +
          'stop the other service using it, or choose another DATA_DIR',
      );
    }
    try {
      ftruncateSync(fd, 0);
      writeSync(fd, String(process.pid), 0);
    } catch {
      // Only informative: the lock is held either way.
    }
    return new ProcessLock(fd);
  }

  release(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      unlock(fd);
    } finally {
      closeSync(fd);
    }
  }
}

/** The pid the holder wrote, for the message; null when unreadable (the holder is still writing it). */
function readHolder(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}
