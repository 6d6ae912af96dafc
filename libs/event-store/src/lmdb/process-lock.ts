import { closeSync, linkSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { DataDirectoryLockedError } from '../errors';

/**
 * An exclusive, process-level lock on a data directory. LMDB itself allows several processes on
 * one environment, but the embedded mode keeps in-process state (subscriptions, read models) that a
 * second writer would silently bypass, so a second process is refused instead.
 *
 * The lock is a file holding the owner's pid, created atomically with link(2). A lock whose pid is
 * no longer alive (the owner was killed) is stale and taken over.
 */
export class ProcessLock {
  private constructor(private readonly path: string) {}

  static acquire(directory: string): ProcessLock {
    const path = join(directory, 'process.lock');
    for (let attempt = 0; attempt < 3; attempt++) {
      if (tryCreate(path)) return new ProcessLock(path);
      const owner = readOwner(path);
      if (owner !== null && (owner === process.pid || isAlive(owner))) {
        throw new DataDirectoryLockedError(
          `the data directory ${directory} is in use by process ${owner}; stop it or choose another DATA_DIR`,
        );
      }
      removeIfOwnedBy(path, owner);
    }
    throw new DataDirectoryLockedError(`could not lock the data directory ${directory}`);
  }

  release(): void {
    removeIfOwnedBy(this.path, process.pid);
  }
}

function tryCreate(path: string): boolean {
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(fd, String(process.pid));
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(temporary);
  }
}

function readOwner(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeIfOwnedBy(path: string, pid: number | null): void {
  if (readOwner(path) !== pid) return;
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
