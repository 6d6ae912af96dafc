import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * What the runner calls after each full batch of a replay (a rebuild, or catching up from far
 * behind), between two transactions, to keep the replay's memory bounded: `ReplayHeap`, and in
 * embedded mode `ReplayMappedPages`.
 */
export interface ReplayMemoryGuard {
  afterFullBatch(): void | Promise<void>;
}

/** Live heap × this = the limit after a collection, when that is above the target. */
const HEADROOM = 1.5;

/**
 * Keeps the heap of a replay near a target. While a long log is replayed, V8 lets the old
 * generation grow to several times what survived its last collection before it collects again: a
 * million-event replay held 1.7 GB of anonymous memory for read models of about 500 MB. After a
 * full batch, when the heap holds more than the limit, this collects at once (a full collection,
 * between two transactions); the limit is then the target, or 1.5 times what survived if that is
 * more, so a live set above the target is not collected again after every batch and the replay
 * never fails for want of heap (as a V8 `--max-old-space-size` would).
 */
export class ReplayHeap implements ReplayMemoryGuard {
  private limit: number;
  /** Full collections run so far. */
  collections = 0;

  constructor(
    private readonly targetBytes: number,
    private readonly heap: { used(): number; collect(): void } = v8Heap(),
  ) {
    this.limit = targetBytes;
  }

  afterFullBatch(): void {
    if (this.heap.used() <= this.limit) return;
    this.heap.collect();
    this.collections += 1;
    this.limit = Math.max(this.targetBytes, this.heap.used() * HEADROOM);
  }
}

/** This process's heap; `gc` is exposed at run time (the flag is read when `gc` is asked for, not at start). */
function v8Heap(): { used(): number; collect(): void } {
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as () => void;
  return { used: () => getHeapStatistics().used_heap_size, collect };
}
