import { availableParallelism } from 'node:os';
import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SeedEdits, SeedTree } from './seed-content-builders';

/** One revision of a space's content: its edits on the revision before (the empty tree for the first). */
export interface SeedRevision {
  edits: SeedEdits;
  /** The pages' `updatedAt`. */
  now: string;
}

/** @internal The messages between SeedContentWorkers and seed-content.worker. */
export interface SeedContentWorkerData {
  blobRoot: string;
}
/** @internal */
export interface SeedContentJob {
  id: number;
  revisions: SeedRevision[];
  /** Then make every blob the worker wrote durable and indexed (`FsBlobStore.flushToDisk`). */
  flush?: boolean;
}
/** @internal */
export type SeedContentReply = { id: number; built: SeedTree[] } | { id: number; error: string };

/** Builds a space's revisions: their trees and bodies written to the blob store, the trees' roots returned in order. */
export interface SeedContent {
  build(revisions: SeedRevision[]): Promise<SeedTree[]>;
}

/** Worker threads the seed builds content on by default: one per core, a few at most. */
export function defaultSeedWorkers(): number {
  return Math.min(4, availableParallelism());
}

interface SeedWorker {
  thread: Worker;
  pending: Map<number, { resolve: (built: SeedTree[]) => void; reject: (error: Error) => void }>;
  /** Why it can take no more work (it failed or exited), once it cannot. */
  failed: Error | null;
}

/**
 * The seed's content builders: worker threads that each build a space's trees and write its blobs
 * (canonical JSON, hashing and a file per blob: two thirds of a seed's time when the main thread
 * did it), while the main thread decides and appends the events. A job goes to the worker with the
 * fewest in hand. Every worker writes into the same content-addressed directory, so two that write
 * the same blob write the same bytes.
 */
export class SeedContentWorkers implements SeedContent {
  private readonly workers: SeedWorker[];
  private nextId = 0;

  private constructor(blobRoot: string, count: number) {
    this.workers = Array.from({ length: count }, () => startWorker({ blobRoot }));
  }

  static start(blobRoot: string, count: number): SeedContentWorkers {
    if (!Number.isInteger(count) || count < 1) throw new RangeError(`the seed needs at least one content worker, got ${count}`);
    return new SeedContentWorkers(blobRoot, count);
  }

  build(revisions: SeedRevision[]): Promise<SeedTree[]> {
    const live = this.workers.filter((worker) => worker.failed === null);
    if (live.length === 0) return Promise.reject(this.workers[0].failed!);
    const worker = live.reduce((least, candidate) => (candidate.pending.size < least.pending.size ? candidate : least));
    return this.send(worker, revisions, false);
  }

  /** Makes what every worker wrote durable and indexed (each worker's blob store flushed), after the builds in hand. */
  async flush(): Promise<void> {
    await Promise.all(this.workers.map((worker) => (worker.failed ? Promise.reject(worker.failed) : this.send(worker, [], true))));
  }

  private send(worker: SeedWorker, revisions: SeedRevision[], flush: boolean): Promise<SeedTree[]> {
    const id = this.nextId++;
    return new Promise<SeedTree[]>((resolve, reject) => {
      worker.pending.set(id, { resolve, reject });
      worker.thread.postMessage({ id, revisions, flush } satisfies SeedContentJob);
    });
  }

  /** Stops every worker; builds still pending fail. */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.thread.terminate()));
  }
}

const WORKER_SCRIPT = join(__dirname, `seed-content.worker${extname(__filename)}`);
/** Run from the TypeScript sources (Jest), the worker loads them as the tests' child processes do. */
const REGISTER_TYPESCRIPT = join(__dirname, '..', '..', '..', 'scripts', 'register-ts.js');

function startWorker(workerData: SeedContentWorkerData): SeedWorker {
  const fromSources = WORKER_SCRIPT.endsWith('.ts');
  const thread = fromSources
    ? new Worker(`require(${JSON.stringify(REGISTER_TYPESCRIPT)}); require(${JSON.stringify(WORKER_SCRIPT)});`, { eval: true, workerData })
    : new Worker(WORKER_SCRIPT, { workerData });
  const worker: SeedWorker = { thread, pending: new Map(), failed: null };
  const fail = (error: Error): void => {
    worker.failed ??= error;
    for (const { reject } of worker.pending.values()) reject(worker.failed);
    worker.pending.clear();
  };
  thread.on('message', (reply: SeedContentReply) => {
    const waiting = worker.pending.get(reply.id);
    if (!waiting) return;
    worker.pending.delete(reply.id);
    if ('error' in reply) waiting.reject(new Error(`building a space's content failed: ${reply.error}`));
    else waiting.resolve(reply.built);
  });
  thread.on('error', (error) => fail(new Error(`a content worker of the seed failed: ${error.message}`)));
  thread.on('exit', (code) => fail(new Error(`a content worker of the seed stopped (exit code ${code})`)));
  return worker;
}
