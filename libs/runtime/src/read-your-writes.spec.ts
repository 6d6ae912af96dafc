import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';
import { MemoryReadStore } from '#read-store/memory/memory-read-store';
import { CHECKPOINTS, ProjectionRunner } from '#read-store/projections/projection-runner';
import type { Projection } from '#read-store/projections/projection';
import type { ReadStore } from '#read-store/read-store.port';
import { configureLogging } from '#platform/logging';
import { Metrics } from './metrics';
import { CheckpointPollingReadYourWrites, InProcessReadYourWrites, WriteNotShownError } from './read-your-writes';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function counterValue(counter: Metrics['readYourWritesTimeouts']): Promise<number> {
  return (await counter.get()).values.reduce((sum, value) => sum + value.value, 0);
}

async function waitCount(histogram: Metrics['readYourWritesWait']): Promise<number> {
  return (await histogram.get()).values.find((value) => value.metricName === 'read_your_writes_wait_seconds_count')?.value ?? 0;
}

/** Settles to 'resolved' or 'pending' without waiting for the promise. */
async function state(promise: Promise<unknown>): Promise<'resolved' | 'pending'> {
  const marker = Symbol('pending');
  const result = await Promise.race([
    promise.then(() => 'resolved' as const),
    new Promise<typeof marker>((resolve) => setImmediate(() => resolve(marker))),
  ]);
  return result === marker ? 'pending' : result;
}

beforeAll(() => configureLogging('silent'));

describe('CheckpointPollingReadYourWrites (distributed mode: the projector is another process)', () => {
  let reads: MemoryReadStore;
  let metrics: Metrics;

  beforeEach(() => {
    reads = new MemoryReadStore();
    metrics = new Metrics();
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await reads.close();
  });

  const putCheckpoint = (position: bigint, name = 'main') =>
    reads.collection(CHECKPOINTS).put({ _id: name, position: position.toString(), updatedAt: new Date().toISOString() });

  it('resolves once the checkpoint document reaches the position, and not before', async () => {
    const readYourWrites = new CheckpointPollingReadYourWrites(reads, 5000, metrics, 1);
    await putCheckpoint(3n);
    const waiting = readYourWrites.wait(5n);
    await sleep(20);
    expect(await state(waiting)).toBe('pending');

    await putCheckpoint(4n);
    await sleep(20);
    expect(await state(waiting)).toBe('pending');

    await putCheckpoint(5n);
    await waiting;
    expect(await counterValue(metrics.readYourWritesTimeouts)).toBe(0);
    expect(await waitCount(metrics.readYourWritesWait)).toBe(1);
  });

  it('resolves when the checkpoint has gone past the position', async () => {
    const readYourWrites = new CheckpointPollingReadYourWrites(reads, 5000, metrics, 1);
    const waiting = readYourWrites.wait(5n);
    await putCheckpoint(9n);
    await waiting;
    expect(await counterValue(metrics.readYourWritesTimeouts)).toBe(0);
  });

  it('answers at once for a write that appended nothing, without reading the checkpoint', async () => {
    const get = jest.spyOn(reads.collection(CHECKPOINTS), 'get');
    const readYourWrites = new CheckpointPollingReadYourWrites(reads, 5000, metrics, 1);
    await readYourWrites.wait(undefined);
    expect(get).not.toHaveBeenCalled();
    expect(await waitCount(metrics.readYourWritesWait)).toBe(0);
  });

  describe('a checkpoint that moves back or disappears (a rebuild)', () => {
    /** A fake checkpoint source: `get` answers what the test last set (or throws its error). */
    function fakeCheckpoints(): {
      reads: ReadStore;
      set(position: bigint | null): void;
      fail(error: Error | null): void;
      readCount: () => number;
    } {
      let position: bigint | null = null;
      let failure: Error | null = null;
      let count = 0;
      const collection = {
        get: async (id: string) => {
          count++;
          if (failure) throw failure;
          return id === 'main' && position !== null ? { _id: 'main', position: position.toString() } : null;
        },
      };
      return {
        reads: { collection: () => collection } as unknown as ReadStore,
        set: (next) => {
          position = next;
        },
        fail: (error) => {
          failure = error;
        },
        readCount: () => count,
      };
    }

    it('given a checkpoint once past the position, when a wait starts, then it reads the checkpoint again', async () => {
      const source = fakeCheckpoints();
      const readYourWrites = new CheckpointPollingReadYourWrites(source.reads, 5000, metrics, 1);
      source.set(10n);
      await readYourWrites.wait(10n);
      const before = source.readCount();
      await readYourWrites.wait(7n);
      expect(source.readCount()).toBeGreaterThan(before);
    });

    it('given a checkpoint moved back below the position, when waiting, then the wait lasts until the rebuilt checkpoint reaches it', async () => {
      const source = fakeCheckpoints();
      const readYourWrites = new CheckpointPollingReadYourWrites(source.reads, 5000, metrics, 1);
      source.set(10n);
      await readYourWrites.wait(10n);
      source.set(2n);
      const waiting = readYourWrites.wait(7n);
      await sleep(20);
      expect(await state(waiting)).toBe('pending');
      source.set(7n);
      await waiting;
      expect(await counterValue(metrics.readYourWritesTimeouts)).toBe(0);
    });

    it('given a checkpoint removed, when waiting, then the wait lasts until it is written again past the position', async () => {
      const source = fakeCheckpoints();
      const readYourWrites = new CheckpointPollingReadYourWrites(source.reads, 5000, metrics, 1);
      source.set(10n);
      await readYourWrites.wait(10n);
      source.set(null);
      const waiting = readYourWrites.wait(5n);
      await sleep(20);
      expect(await state(waiting)).toBe('pending');
      source.set(5n);
      await waiting;
    });

    it('given read errors after a checkpoint past the position, when waiting, then the remembered position answers nothing', async () => {
      const source = fakeCheckpoints();
      const readYourWrites = new CheckpointPollingReadYourWrites(source.reads, 5000, metrics, 1);
      source.set(10n);
      await readYourWrites.wait(10n);
      source.fail(new Error('no primary'));
      const waiting = readYourWrites.wait(5n);
      await sleep(20);
      expect(await state(waiting)).toBe('pending');
      source.set(3n);
      source.fail(null);
      await sleep(20);
      expect(await state(waiting)).toBe('pending');
      source.set(6n);
      await waiting;
    });

    it('given a checkpoint moved back while a wait polls, then that wait is not answered by the earlier position', async () => {
      const source = fakeCheckpoints();
      const readYourWrites = new CheckpointPollingReadYourWrites(source.reads, 5000, metrics, 1);
      source.set(4n);
      const waiting = readYourWrites.wait(5n);
      await sleep(10);
      source.set(1n);
      await sleep(10);
      expect(await state(waiting)).toBe('pending');
      source.set(5n);
      await waiting;
    });
  });

  it('times out when the checkpoint never gets there: the write answers anyway and the time-out is counted', async () => {
    const readYourWrites = new CheckpointPollingReadYourWrites(reads, 50, metrics, 1);
    await putCheckpoint(1n);
    const started = Date.now();
    await readYourWrites.wait(2n);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(await counterValue(metrics.readYourWritesTimeouts)).toBe(1);

    await readYourWrites.wait(3n);
    expect(await counterValue(metrics.readYourWritesTimeouts)).toBe(2);
    expect(await waitCount(metrics.readYourWritesWait)).toBe(2);
  });

  it('times out when there is no checkpoint at all (no projector running)', async () => {
    const readYourWrites = new CheckpointPollingReadYourWrites(reads, 30, metrics, 1);
    await readYourWrites.wait(1n);
    expect(await counterValue(metrics.readYourWritesTimeouts)).toBe(1);
  });

  it('keeps polling through read errors until its deadline', async () => {
    const collection = reads.collection(CHECKPOINTS);
    const real = collection.get.bind(collection);
    let failures = 0;
    jest.spyOn(collection, 'get').mockImplementation(async (id: string) => {
      if (failures < 3) {
        failures += 1;
        throw new Error('connection reset');
      }
      return real(id);
    });
    const readYourWrites = new CheckpointPollingReadYourWrites(reads, 5000, metrics, 1);
    await putCheckpoint(2n);
    await readYourWrites.wait(2n);
    expect(failures).toBe(3);
    expect(await counterValue(metrics.readYourWritesTimeouts)).toBe(0);
  });

  it('follows the checkpoint it is given a name for', async () => {
    const readYourWrites = new CheckpointPollingReadYourWrites(reads, 5000, metrics, 1, 'other');
    await putCheckpoint(8n, 'main');
    const waiting = readYourWrites.wait(8n);
    await sleep(20);
    expect(await state(waiting)).toBe('pending');
    await putCheckpoint(8n, 'other');
    await waiting;
  });

  it('shares one poll loop between many concurrent waiters', async () => {
    const intervalMs = 10;
    const get = jest.spyOn(reads.collection(CHECKPOINTS), 'get');
    const readYourWrites = new CheckpointPollingReadYourWrites(reads, 5000, metrics, intervalMs);
    const waiters = Array.from({ length: 200 }, (_, i) => readYourWrites.wait(BigInt(1 + (i % 20))));
    await sleep(50);
    // One loop: one read per interval at most, however many waiters (200 separate loops would have made >= 200).
    const readsWhileWaiting = get.mock.calls.length;
    expect(readsWhileWaiting).toBeGreaterThanOrEqual(1);
    expect(readsWhileWaiting).toBeLessThanOrEqual(50 / intervalMs + 2);

    await putCheckpoint(10n);
    await Promise.all(waiters.slice(0, 10)); // positions 1..10
    await putCheckpoint(20n);
    await Promise.all(waiters);
    expect(get.mock.calls.length).toBeLessThan(40);
    expect(await counterValue(metrics.readYourWritesTimeouts)).toBe(0);
    expect(await waitCount(metrics.readYourWritesWait)).toBe(200);

    // With no waiter left the loop ends: nothing polls in the background.
    const afterDone = get.mock.calls.length;
    await sleep(5 * intervalMs);
    expect(get.mock.calls.length).toBe(afterDone);
  });
});

describe('InProcessReadYourWrites (embedded mode: the projector runs in this process)', () => {
  let metrics: Metrics;

  beforeEach(() => {
    metrics = new Metrics();
  });

  const fakeRunner = (applied: boolean) => ({ waitFor: jest.fn(async (_position: bigint, _timeoutMs: number) => applied) });

  it("delegates to the runner's waitFor with its timeout", async () => {
    const runner = fakeRunner(true);
    const readYourWrites = new InProcessReadYourWrites(runner as unknown as ProjectionRunner, 1234, metrics);
    await readYourWrites.wait(42n);
    // The time left is the deadline minus now: at most the configured 1234 ms, a little less under load.
    expect(runner.waitFor).toHaveBeenCalledWith(42n, expect.any(Number));
    const timeoutMs = runner.waitFor.mock.calls[0][1];
    expect(timeoutMs).toBeLessThanOrEqual(1234);
    expect(timeoutMs).toBeGreaterThan(1000);
    expect(await counterValue(metrics.readYourWritesTimeouts)).toBe(0);
    expect(await waitCount(metrics.readYourWritesWait)).toBe(1);
  });

  it('counts a time-out when the runner did not apply the position in time', async () => {
    const runner = fakeRunner(false);
    const readYourWrites = new InProcessReadYourWrites(runner as unknown as ProjectionRunner, 10, metrics);
    await readYourWrites.wait(42n);
    expect(await counterValue(metrics.readYourWritesTimeouts)).toBe(1);
  });

  it('given projections failing (their batch retried) past the time-out, then the wait answers 503: the write is stored, not shown yet', async () => {
    const runner = { ...fakeRunner(false), failure: 'no space left on device' };
    const readYourWrites = new InProcessReadYourWrites(runner as unknown as ProjectionRunner, 10, metrics);
    const waiting = readYourWrites.wait(42n);
    await expect(waiting).rejects.toBeInstanceOf(WriteNotShownError);
    await expect(waiting).rejects.toMatchObject({
      status: 503,
      message: 'the write was stored, but the read models cannot show it yet; read it again later rather than repeating the write',
      headers: { 'Retry-After': '5' },
    });
    expect(await counterValue(metrics.readYourWritesTimeouts)).toBe(1);
  });

  it('given projections that applied the write (a later batch failing) and a failing reactor, then the wait answers as timed out, without an error', async () => {
    const runner = { ...fakeRunner(true), failure: 'a later batch failed' };
    const reactor = { name: 'cascade', handles: ['Happened'], waitFor: jest.fn(async () => ({ passed: false, appended: null })) };
    await new InProcessReadYourWrites(runner as unknown as ProjectionRunner, 10, metrics, [reactor]).wait(42n);
    expect(await counterValue(metrics.readYourWritesTimeouts)).toBe(1);
  });

  it('does not wait for a write that appended nothing', async () => {
    const runner = fakeRunner(true);
    await new InProcessReadYourWrites(runner as unknown as ProjectionRunner, 10, metrics).wait(undefined);
    expect(runner.waitFor).not.toHaveBeenCalled();
  });

  it('waits for a real runner to apply the appended events', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'read-your-writes-'));
    const events = LmdbEventStore.open(directory);
    const reads = new MemoryReadStore();
    const notes: Projection = {
      name: 'notes',
      collections: ['notes'],
      async apply(event, tx) {
        await tx.collection('notes').put({ _id: event.streamId, text: (event.data as { text: string }).text });
      },
    };
    const runner = new ProjectionRunner(events, reads, [notes]);
    try {
      await runner.start();
      const readYourWrites = new InProcessReadYourWrites(runner, 5000, metrics);
      const { position } = await events.appendToStream('note-1', [{ type: 'NoteWritten', data: { text: 'hello' } }], 'no_stream');
      await readYourWrites.wait(position);
      expect(await reads.collection('notes').get('note-1')).toEqual({ _id: 'note-1', text: 'hello' });
      expect(await counterValue(metrics.readYourWritesTimeouts)).toBe(0);
    } finally {
      await runner.stop();
      await events.close();
      await reads.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
