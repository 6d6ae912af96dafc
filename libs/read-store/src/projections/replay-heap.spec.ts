import { ConfigError, loadConfig } from '#platform/config';
import { ReplayHeap } from './replay-heap';

const MB = 1024 * 1024;

/** A heap whose use the spec sets, and whose collection leaves `live` behind. */
function fakeHeap(live: number) {
  const heap = {
    inUse: 0,
    live,
    collections: 0,
    used: () => heap.inUse,
    collect: () => void ((heap.collections += 1), (heap.inUse = heap.live)),
  };
  return heap;
}

describe('ReplayHeap', () => {
  it('given a heap under the target, when a full batch is done, then nothing is collected', () => {
    const heap = fakeHeap(100 * MB);
    const guard = new ReplayHeap(384 * MB, heap);
    heap.inUse = 384 * MB;
    guard.afterFullBatch();
    expect(heap.collections).toBe(0);
  });

  it('given a heap over the target, when a full batch is done, then it is collected at once', () => {
    const heap = fakeHeap(100 * MB);
    const guard = new ReplayHeap(384 * MB, heap);
    heap.inUse = 385 * MB;
    guard.afterFullBatch();
    expect(heap.collections).toBe(1);
    expect(guard.collections).toBe(1);
  });

  it('given a live set above the target, then the next collection waits until the heap is 1.5 times that live set', () => {
    const heap = fakeHeap(400 * MB);
    const guard = new ReplayHeap(384 * MB, heap);
    heap.inUse = 500 * MB;
    guard.afterFullBatch();
    heap.inUse = 599 * MB;
    guard.afterFullBatch();
    expect(heap.collections).toBe(1);
    heap.inUse = 601 * MB;
    guard.afterFullBatch();
    expect(heap.collections).toBe(2);
  });

  it('given a live set that shrank back, then the limit returns to the target', () => {
    const heap = fakeHeap(400 * MB);
    const guard = new ReplayHeap(384 * MB, heap);
    heap.inUse = 500 * MB;
    guard.afterFullBatch();
    heap.live = 50 * MB;
    heap.inUse = 601 * MB;
    guard.afterFullBatch();
    heap.inUse = 390 * MB;
    guard.afterFullBatch();
    expect(heap.collections).toBe(3);
  });

  it('collects this process’s heap when given no other', () => {
    const guard = new ReplayHeap(1);
    guard.afterFullBatch();
    expect(guard.collections).toBe(1);
  });
});

describe('REPLAY_HEAP_MB', () => {
  it('is 384 MiB unless set', () => {
    expect(loadConfig({}).replayHeapMb).toBe(384);
    expect(loadConfig({ REPLAY_HEAP_MB: '1024' }).replayHeapMb).toBe(1024);
  });

  it('refuses a target under 64 MiB', () => {
    expect(() => loadConfig({ REPLAY_HEAP_MB: '10' })).toThrow(ConfigError);
  });
});
