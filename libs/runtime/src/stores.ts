import { join } from 'node:path';
import type { AppConfig } from '#platform/config';
import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';
import type { EventStore } from '#event-store/event-store.port';
import type * as KurrentDbAdapter from '#event-store/kurrentdb/kurrentdb-event-store';
import type * as MongoAdapter from '#read-store/mongodb/mongo-read-store';
import type * as GridFsAdapter from '#blob-store/gridfs/gridfs-blob-store';
import { MemoryReadStore } from '#read-store/memory/memory-read-store';
import type { ReadStore } from '#read-store/read-store.port';
import { FsBlobStore } from '#blob-store/fs/fs-blob-store';
import type { BlobStore } from '#blob-store/blob-store.port';
import { ReplayHeap, type ReplayMemoryGuard } from '#read-store/projections/replay-heap';
import { ReplayMappedPages } from '#read-store/projections/replay-mapped-pages';

export type StoreMode = 'embedded' | 'distributed';

export interface Stores {
  mode: StoreMode;
  events: EventStore;
  reads: ReadStore;
  blobs: BlobStore;
  /**
   * Embedded stores: unmaps the event log's and the read models' files and maps them again, so that
   * the pages a replay touched stop counting as resident memory (`LmdbEventStore.releaseMappedPages`,
   * `MemoryReadStore.releaseMappedPages`). Only between two commits of a replay alone on the stores
   * (`ReplayMappedPages`); absent in distributed mode.
   */
  releaseMappedPages?: () => Promise<void>;
  /**
   * Embedded stores: `listener` is told (once, or at once if it already happened) when the check of
   * the read-model file that runs after the start finds it damaged (`ReadModelFile.open`): the
   * process is to close and exit so that the next start rebuilds them. Absent in distributed mode.
   */
  onReadModelsDamaged?: (listener: (problem: string) => void) => void;
  close(): Promise<void>;
}

/**
 * The configured adapters (docs/architecture.md, Modes): `EVENTSTORE_URL` and `MONGODB_URL` absent means the
 * embedded stores in `DATA_DIR`. The two URLs go together: a half-distributed setup would keep
 * read models in one process's memory while other processes write the log. `bulk`: for the CLI's
 * batch work alone on the data directory (the embedded blob store's bulk mode, `FsBlobStoreOptions`).
 */
export async function openStores(config: AppConfig, options: { bulk?: boolean } = {}): Promise<Stores> {
  if (Boolean(config.eventStoreUrl) !== Boolean(config.mongodbUrl)) {
    throw new Error('set both EVENTSTORE_URL and MONGODB_URL for distributed mode, or neither for embedded mode');
  }
  if (config.eventStoreUrl && config.mongodbUrl) {
    // Loaded only here: their clients (gRPC, the MongoDB driver) take about half a second to load,
    // which embedded mode, the common start, never needs. The type imports above are erased.
    const { KurrentDbEventStore } = require('#event-store/kurrentdb/kurrentdb-event-store') as typeof KurrentDbAdapter;
    const { MongoReadStore } = require('#read-store/mongodb/mongo-read-store') as typeof MongoAdapter;
    const { GridFsBlobStore } = require('#blob-store/gridfs/gridfs-blob-store') as typeof GridFsAdapter;
    const events = KurrentDbEventStore.connect(config.eventStoreUrl, { batchLimitBytes: config.eventBatchLimitBytes });
    const reads = await MongoReadStore.connect(config.mongodbUrl);
    const blobs = await GridFsBlobStore.connect(config.mongodbUrl);
    return { mode: 'distributed', events, reads, blobs, close: closeAll(events, reads, blobs) };
  }
  // Refuses a damaged log (DamagedEventLogError: the log is the truth, nothing is rebuilt from it).
  const events = LmdbEventStore.open(join(config.dataDir, 'events'), { batchLimitBytes: config.eventBatchLimitBytes });
  // Read models and checkpoints persist next to the log, so a start resumes from the checkpoint; a
  // damaged file is moved aside and rebuilt from the log (`ReadModelFile.open`).
  let damaged: string | undefined;
  let onDamaged: ((problem: string) => void) | undefined;
  const reads = MemoryReadStore.open(join(config.dataDir, 'readmodels'), {
    syncChecksumLimit: config.readModelSyncCheckMb * 1024 * 1024,
    onDamaged: (problem) => {
      damaged = problem;
      onDamaged?.(problem);
    },
  });
  const onReadModelsDamaged = (listener: (problem: string) => void) => {
    onDamaged = listener;
    if (damaged !== undefined) listener(damaged);
  };
  const blobs = new FsBlobStore(join(config.dataDir, 'blobs'), { bulk: options.bulk === true });
  // At start, so that a pack whose tail is gone is reported then (the intact blobs still serve).
  blobs.checkPacks();
  const releaseMappedPages = async () => {
    await events.releaseMappedPages();
    await reads.releaseMappedPages();
  };
  return { mode: 'embedded', events, reads, blobs, releaseMappedPages, onReadModelsDamaged, close: closeAll(events, reads, blobs) };
}

/**
 * What keeps a replay's memory bounded on these stores (the runner's `replayMemory`): its heap
 * (`REPLAY_HEAP_MB`), and in embedded mode its mapped file pages (`REPLAY_MAPPED_MB`), released only
 * while `alone` says the replay has the stores to itself.
 */
export function replayMemoryGuards(config: AppConfig, stores: Stores, alone: () => boolean): ReplayMemoryGuard[] {
  const guards: ReplayMemoryGuard[] = [new ReplayHeap(config.replayHeapMb * 1024 * 1024)];
  if (stores.releaseMappedPages)
    guards.push(new ReplayMappedPages(config.replayMappedMb * 1024 * 1024, stores.releaseMappedPages, { active: alone }));
  return guards;
}

function closeAll(...stores: Array<{ close(): Promise<void> }>): () => Promise<void> {
  return async () => {
    for (const store of stores) await store.close();
  };
}
