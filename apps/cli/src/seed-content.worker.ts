import { parentPort, workerData } from 'node:worker_threads';
import { FsBlobStore } from '#blob-store/fs/fs-blob-store';
import { ContentSeedTrees } from './seed-content-builders';
import type { SeedContentJob, SeedContentReply, SeedContentWorkerData } from './seed-content';

/**
 * A worker thread of the seed (SeedContentWorkers): builds the revisions of one space at a time,
 * each on the tree of the one before, and writes their blobs into the blob directory, in bulk mode
 * as the seed's own store does.
 */
const { blobRoot } = workerData as SeedContentWorkerData;
const blobs = new FsBlobStore(blobRoot, { bulk: true });
const trees = new ContentSeedTrees(blobs);
const port = parentPort!;

port.on('message', (job: SeedContentJob) => {
  void build(job).then((reply) => port.postMessage(reply));
});

async function build(job: SeedContentJob): Promise<SeedContentReply> {
  try {
    const built = [];
    let base: string | null = null;
    for (const revision of job.revisions) {
      const tree = await trees.build(base, revision.edits, revision.now);
      built.push(tree);
      base = tree.tree;
    }
    if (job.flush) await blobs.flushToDisk();
    return { id: job.id, built };
  } catch (error) {
    return { id: job.id, error: error instanceof Error ? error.message : String(error) };
  }
}
