import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exited, spawnTypeScript } from '../../../../test/support/child-process';
import { DataDirectoryLockedError } from '../errors';
import { ProcessLock } from './process-lock';

const REGISTER = join(__dirname, '..', '..', '..', '..', 'scripts', 'register-ts.js');
const HOLD_LOCK = join(__dirname, '..', '..', '..', '..', 'test', 'support', 'children', 'hold-lock.ts');

/** Starts a child that holds the lock; resolves with it once it says so. */
function holdLock(directory: string): Promise<ReturnType<typeof spawnTypeScript>> {
  return new Promise((resolve, reject) => {
    const child = spawnTypeScript('hold-lock.ts', [directory], (line) => {
      if (line.startsWith('locked ')) resolve(child);
      else reject(new Error(`the child did not take the lock: ${line}`));
    });
    void exited(child).then(({ code }) => reject(new Error(`the child exited with ${code}`)));
  });
}

describe('the data directory lock', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'process-lock-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('given a live process holding the lock, when another takes it, then it is refused with what to do', async () => {
    const holder = await holdLock(directory);
    try {
      expect(() => ProcessLock.acquire(directory)).toThrow(DataDirectoryLockedError);
      expect(() => ProcessLock.acquire(directory)).toThrow(
        new RegExp(`in use by process ${holder.pid}; stop the other service using it, or choose another DATA_DIR`),
      );
    } finally {
      holder.kill('SIGKILL');
      await exited(holder);
    }
  });

  it('given the holder killed with SIGKILL, when the lock is taken again, then it is granted', async () => {
    const holder = await holdLock(directory);
    holder.kill('SIGKILL');
    expect(await exited(holder)).toMatchObject({ signal: 'SIGKILL' });
    const lock = ProcessLock.acquire(directory);
    lock.release();
  });

  it('given the lock held in this process, when taken a second time, then it is refused until released', () => {
    const lock = ProcessLock.acquire(directory);
    expect(() => ProcessLock.acquire(directory)).toThrow(DataDirectoryLockedError);
    lock.release();
    ProcessLock.acquire(directory).release();
  });

  it.each([
    ['the parent of the test runner', String(process.ppid)],
    ['pid 1', '1'],
    ['this process', String(process.pid)],
  ])('given a lock file left by the pid scheme naming %s, a live process, when the lock is taken, then it is granted', (_, pid) => {
    writeFileSync(join(directory, 'process.lock'), pid);
    const lock = ProcessLock.acquire(directory);
    lock.release();
  });

  it('given a holder that was PID 1 in its pid namespace, when it is killed with SIGKILL, then the lock is granted again', async () => {
    const probe = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true'], { encoding: 'utf8' });
    if (probe.error || probe.status !== 0) {
      console.log(`skipped: unshare --pid --fork --mount-proc does not work here (${probe.error?.message ?? probe.stderr.trim()})`);
      return;
    }
    // unshare forks, and its child becomes node: PID 1 of the new namespace, as in a container.
    const child = spawn('unshare', ['--pid', '--fork', '--mount-proc', process.execPath, '-r', REGISTER, HOLD_LOCK, directory], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout!.setEncoding('utf8').once('data', (chunk: string) => resolve(chunk.trim()));
      child.once('exit', (code) => reject(new Error(`the namespaced holder exited with ${code}`)));
    });
    expect(line).toBe('locked 1');
    expect(() => ProcessLock.acquire(directory)).toThrow(/in use by process 1;/);
    // unshare --fork waits for its child: killing the namespace's PID 1 ends the namespace and unshare.
    const pidOne = spawnSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' }).stdout.trim();
    process.kill(Number(pidOne), 'SIGKILL');
    await exited(child);
    const lock = ProcessLock.acquire(directory);
    lock.release();
  });
});
