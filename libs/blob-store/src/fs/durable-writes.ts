import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * Writes small blobs durably on worker threads, each put as one message each way. Done with the
 * promise API, a put is about ten thread-pool calls in sequence (stat, open, write, fsync, close,
 * mkdir, rename, open, fsync and close of the directory), and each completion waits its turn in
 * the event loop: under load (the API benchmark's mixed workload) a content write, which stores
 * three or four blobs, spent most of its 200–280 ms p50 in those turns. A worker runs the same
 * sequence with synchronous calls, off the event loop, and answers once.
 *
 * Up to `MAX_WORKERS` threads, started as puts find every running one busy, so that fsyncs run in
 * parallel (the file system merges concurrent ones into one journal commit): one fewer than the
 * cores, four at most, so that they leave a core to the event loop. On two cores, one thread: in
 * the mixed workload there, four threads raised the reads' p99 by about 10 ms over one (57–66
 * against 52–56 ms), the writes' p99 about the same (200–225 against 195–218 ms). A thread keeps
 * the process alive only while it has writes to answer, and stops once idle for `IDLE_MS`.
 */
const MAX_WORKERS = Math.max(1, Math.min(4, availableParallelism() - 1));
/** A thread with nothing to write for this long stops (memory back when idle; none left behind by a store never closed). */
const IDLE_MS = 10_000;

/** What a worker is asked: write `bytes` to `tmpPath`, sync it, move it to `finalPath`, sync the directories. */
interface DurableWrite {
  id: number;
  root: string;
  tmpPath: string;
  finalPath: string;
  bytes: Uint8Array;
}

interface DurableWriteAnswer {
  id: number;
  error?: { message: string; code?: string };
}

/**
 * The worker, plain JavaScript evaluated by `Worker` (the same under Jest, which runs the
 * TypeScript sources, and from `dist`). Mirrors `FsBlobStore.writeBlob`: a blob already there is
 * left as it is; new fan-out directories are synced in their parents; on a failure, the temporary
 * is removed if this write created it. Its `syncDirectory` tolerates the errors of
 * `cannotSyncDirectory` (`libs/platform/src/fsync.ts`), written out since evaluated source cannot import.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
function syncDirectory(directory) {
  let fd;
  try {
    fd = fs.openSync(directory, 'r');
    fs.fsyncSync(fd);
  } catch (error) {
    if (!['EISDIR', 'EPERM', 'EINVAL', 'EBADF'].includes(error && error.code)) throw error;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
parentPort.on('message', ({ id, root, tmpPath, finalPath, bytes }) => {
  // Set once this write created the temporary (never another's, which 'wx' refuses) until it is moved.
  let created = false;
  try {
    if (!fs.statSync(finalPath, { throwIfNoEntry: false })?.isFile()) {
      const fd = fs.openSync(tmpPath, 'wx', 0o600);
      created = true;
      try {
        let offset = 0;
        while (offset < bytes.length) offset += fs.writeSync(fd, bytes, offset, bytes.length - offset);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      const directory = path.dirname(finalPath);
      const outer = path.dirname(directory);
      const made = fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
      fs.renameSync(tmpPath, finalPath);
      created = false;
      syncDirectory(directory);
      if (made !== undefined) for (const parent of made === outer ? [root, outer] : [outer]) syncDirectory(parent);
    }
    parentPort.postMessage({ id });
  } catch (error) {
    if (created) try { fs.unlinkSync(tmpPath); } catch {}
    parentPort.postMessage({ id, error: { message: String(error && error.message), code: error && error.code } });
  }
});
`;

interface DurableWorker {
  thread: Worker;
  pending: Map<number, { resolve: () => void; reject: (error: Error) => void }>;
  /** Set while it has nothing to write: stops it when it fires. */
  idle?: NodeJS.Timeout;
}

export class DurableWrites {
  private readonly workers: DurableWorker[] = [];
  private nextId = 0;
  private readonly idleMs: number;

  constructor(options: { idleMs?: number } = {}) {
    this.idleMs = options.idleMs ?? IDLE_MS;
  }

  /** The threads running now. */
  get threads(): number {
    return this.workers.length;
  }

  /** Writes `bytes` to `tmpPath` (created, never overwritten), syncs it and moves it to `finalPath` under `root`, durably. */
  write(root: string, tmpPath: string, finalPath: string, bytes: Uint8Array): Promise<void> {
    const worker = this.pick();
    clearTimeout(worker.idle);
    worker.idle = undefined;
    const id = ++this.nextId;
    return new Promise<void>((resolve, reject) => {
      // Referenced while it has writes to answer: an unreferenced thread would let the process exit first.
      if (worker.pending.size === 0) worker.thread.ref();
      worker.pending.set(id, { resolve, reject });
      const message: DurableWrite = { id, root, tmpPath, finalPath, bytes };
      worker.thread.postMessage(message);
    });
  }

  /** Stops the threads; writes still under way fail. */
  async close(): Promise<void> {
    const stopping = this.workers.splice(0);
    for (const worker of stopping) clearTimeout(worker.idle);
    await Promise.all(stopping.map((worker) => worker.thread.terminate()));
  }

  /** Stops a thread that stayed idle. */
  private retire(worker: DurableWorker): void {
    if (worker.pending.size > 0) return;
    const index = this.workers.indexOf(worker);
    if (index !== -1) this.workers.splice(index, 1);
    void worker.thread.terminate();
  }

  /** An idle worker, else a new one while there are fewer than MAX_WORKERS, else the least busy. */
  private pick(): DurableWorker {
    const idle = this.workers.find((worker) => worker.pending.size === 0);
    if (idle) return idle;
    if (this.workers.length < MAX_WORKERS) return this.start();
    return this.workers.reduce((least, worker) => (worker.pending.size < least.pending.size ? worker : least));
  }

  private start(): DurableWorker {
    const worker: DurableWorker = { thread: new Worker(WORKER_SOURCE, { eval: true }), pending: new Map() };
    worker.thread.on('message', ({ id, error }: DurableWriteAnswer) => {
      const waiting = worker.pending.get(id);
      if (!waiting) return;
      worker.pending.delete(id);
      if (worker.pending.size === 0) {
        worker.thread.unref();
        worker.idle = setTimeout(() => this.retire(worker), this.idleMs).unref();
      }
      if (error === undefined) return waiting.resolve();
      waiting.reject(Object.assign(new Error(error.message), error.code === undefined ? {} : { code: error.code }));
    });
    const fail = (reason: Error) => {
      const index = this.workers.indexOf(worker);
      if (index !== -1) this.workers.splice(index, 1);
      for (const { reject } of worker.pending.values()) reject(reason);
      worker.pending.clear();
    };
    worker.thread.on('error', fail);
    worker.thread.on('exit', (code) => fail(new Error(`the blob store's write thread stopped (exit code ${code})`)));
    this.workers.push(worker);
    return worker;
  }
}
