import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventStore, LogSubscription, NewEvent, RecordedEvent } from '#event-store/event-store.port';
import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';
import { ReadStoreTransactionTooLargeError } from '../errors';
import { MemoryReadStore } from '../memory/memory-read-store';
import type { Doc, ReadStore, ReadStoreTransaction } from '../read-store.port';
import { documentProjection, multiDocumentProjection, positionKey, type ProjectedDoc, type Projection } from './projection';
import { CHECKPOINTS, ProjectionRunner } from './projection-runner';

/** Read models defined for these specs: one document per space, and a running total that is NOT idempotent on its own. */
interface SpaceDoc extends ProjectedDoc {
  title: string;
  renames: number;
}
type SpaceEvent =
  | { type: 'SpaceCreated'; data: { title: string } }
  | { type: 'SpaceRenamed'; data: { title: string } }
  | { type: 'SpaceDeleted'; data: object };
const spaces = documentProjection<SpaceEvent, SpaceDoc>({
  name: 'spaces',
  collection: 'spaces',
  handles: ['SpaceCreated', 'SpaceRenamed', 'SpaceDeleted'],
  indexes: [{ fields: { title: 1 } }],
  documentId: (event) => event.streamId.slice('space-'.length),
  evolve(doc, event) {
    switch (event.type) {
      case 'SpaceCreated':
        return { _id: '', title: event.data.title, renames: 0 };
      case 'SpaceRenamed':
        return doc && { ...doc, title: event.data.title, renames: doc.renames + 1 };
      default:
        return null;
    }
  },
});
const totals: Projection = {
  name: 'totals',
  collections: ['totals'],
  async apply(_event, tx) {
    await tx.collection('totals').update('all', { $inc: { events: 1 } }, { upsert: true });
  },
};

const created = (title: string): NewEvent => ({ type: 'SpaceCreated', data: { title } });
const renamed = (title: string): NewEvent => ({ type: 'SpaceRenamed', data: { title } });

describe('ProjectionRunner', () => {
  let directory: string;
  let events: LmdbEventStore;
  let reads: MemoryReadStore;
  const runners: ProjectionRunner[] = [];
  const runner = (store: EventStore = events, options: ConstructorParameters<typeof ProjectionRunner>[3] = {}) => {
    const created = new ProjectionRunner(store, reads, [spaces, totals], { backoff: { initialMs: 1, maxMs: 10 }, ...options });
    runners.push(created);
    return created;
  };

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'projection-runner-'));
    events = LmdbEventStore.open(directory);
    reads = new MemoryReadStore();
  });
  afterEach(async () => {
    for (const r of runners.splice(0)) await r.stop();
    await events.close();
    await reads.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const total = async () => (await reads.collection('totals').get('all'))?.events;
  const appendMany = async (count: number) => {
    for (let i = 0; i < count; i++) {
      await events.appendToStream(`space-s${i}`, [created(`Space ${i}`), renamed(`Space ${i}!`)], 'no_stream');
    }
  };

  it('given events in the log, when started, then the read models hold them once caught up', async () => {
    await appendMany(3);
    const projector = runner();
    await projector.start();
    await projector.whenCaughtUp();
    expect(await reads.collection('spaces').get('s1')).toEqual({ _id: 's1', title: 'Space 1!', renames: 1, _position: positionKey(4n) });
    expect(await total()).toBe(6);
    expect(await projector.status()).toMatchObject({
      running: true,
      caughtUp: true,
      checkpoint: 6n,
      head: 6n,
      lagEvents: 0,
      lastError: null,
    });
  });

  it('given a live append, when waiting for its position, then the read model shows it (read-your-writes)', async () => {
    const projector = runner();
    await projector.start();
    await projector.whenCaughtUp();
    const { position } = await events.appendToStream('space-live', [created('Live')], 'no_stream');
    await expect(projector.waitFor(position, 5000)).resolves.toBe(true);
    expect(await reads.collection('spaces').get('live')).toMatchObject({ title: 'Live' });
    await events.appendToStream('space-live', [{ type: 'SpaceDeleted', data: {} }], 0);
    await projector.waitFor((await events.headPosition())!, 5000);
    expect(await reads.collection('spaces').get('live')).toBeNull();
  });

  it('given a live append after catch-up, then onApplied is told of its events once they are committed', async () => {
    const told: string[] = [];
    const projector = runner(events, { onApplied: (applied) => told.push(...applied.map((event) => event.type)) });
    await projector.start();
    await projector.whenCaughtUp();
    const { position } = await events.appendToStream('space-live', [created('Live'), renamed('Live!')], 'no_stream');
    await projector.waitFor(position, 5000);
    expect(told).toEqual(['SpaceCreated', 'SpaceRenamed']);
  });

  it('given events already in the log, when replayed at start or in a rebuild, then onApplied is not told of them (they are not live)', async () => {
    await appendMany(3);
    const told: RecordedEvent[] = [];
    const projector = runner(events, { onApplied: (applied) => told.push(...applied) });
    await projector.start();
    await projector.whenCaughtUp();
    await projector.rebuild();
    expect(told).toEqual([]);
  });

  it('given a position that never comes, when waiting, then it answers false after the timeout', async () => {
    const projector = runner();
    await projector.start();
    await expect(projector.waitFor(1_000n, 20)).resolves.toBe(false);
  });

  it('given a crash between the read-model writes and the checkpoint, then after retrying every event counts exactly once', async () => {
    await appendMany(50);
    let crashes = 0;
    const projector = runner(events, {
      batchSize: 7,
      beforeCheckpoint: (last) => {
        if (last.position === 21n && crashes++ < 2) throw new Error('simulated crash before the checkpoint');
      },
    });
    await projector.start();
    await projector.whenCaughtUp();
    expect(crashes).toBe(3);
    expect(await total()).toBe(100);
    expect((await reads.collection(CHECKPOINTS).get('main'))?.position).toBe('100');
  });

  it('given a process that died before its checkpoint, when a new runner starts on the same read store, then nothing is doubled or lost', async () => {
    await appendMany(20);
    const dying = runner(events, {
      batchSize: 10,
      beforeCheckpoint: (last) => {
        if (last.position > 20n) throw new Error('the process dies here');
      },
    });
    await dying.start();
    await waitUntil(async () => (await dying.status()).lastError !== null);
    await dying.stop();
    expect(await total()).toBe(20);
    const restarted = runner(events, { batchSize: 10 });
    await restarted.start();
    await restarted.whenCaughtUp();
    expect(await total()).toBe(40);
  });

  it('given a dropped subscription, then it resubscribes from its checkpoint with no gap and no duplicate', async () => {
    await appendMany(30);
    const flaky = droppingAfter(events, [7, 25]);
    const projector = runner(flaky.store, { batchSize: 4 });
    await projector.start();
    await projector.whenCaughtUp();
    await appendMany(0);
    await events.appendToStream('space-late', [created('Late')], 'no_stream');
    await projector.waitFor((await events.headPosition())!, 5000);
    expect(flaky.subscriptions()).toBe(3);
    expect(await total()).toBe(61);
    expect((await projector.status()).lastError).toBeNull();
  });

  it('given a store refusing large transactions, then the batch halves until it fits, each event applied once, checkpoint right', async () => {
    await appendMany(50);
    const limited = refusingLargeTransactions(reads, 20); // 2 writes per event: at most 9 events + checkpoint
    const warnings: Array<{ events: number; retryWith: number }> = [];
    const projector = new ProjectionRunner(events, limited.store, [spaces, totals], {
      batchSize: 64,
      backoff: { initialMs: 1, maxMs: 10 },
      logger: { warn: (_m, context) => warnings.push(context as { events: number; retryWith: number }), error: () => undefined },
    });
    runners.push(projector);
    await projector.start();
    await projector.whenCaughtUp();
    expect(await total()).toBe(100);
    expect((await reads.collection(CHECKPOINTS).get('main'))?.position).toBe('100');
    expect(await reads.collection('spaces').count()).toBe(50);
    expect(warnings.slice(0, 3).map((w) => [w.events, w.retryWith])).toEqual([
      [64, 32],
      [32, 16],
      [16, 8],
    ]);
    expect(Math.max(...limited.committed())).toBeLessThanOrEqual(9);
    expect(limited.committed().reduce((a, b) => a + b, 0)).toBe(100);
    expect((await projector.status()).lastError).toBeNull();
  });

  it('given one event too large for any transaction, then it is applied on its own without one, its multi-document writes in chunks, once', async () => {
    await appendMany(5);
    // Event 8 renames space-s3 while 1,200 tag documents carry its name: one updateMany over all of them.
    for (let index = 0; index < 1200; index++)
      await reads.collection('tags').put({ _id: `tag-${String(index).padStart(4, '0')}`, space: 'space-s3', title: 'old' });
    const tags = multiDocumentProjection<SpaceEvent>({
      name: 'tags',
      collections: ['tags'],
      handles: ['SpaceRenamed'],
      async apply(event, documents) {
        if (event.type === 'SpaceRenamed')
          await documents.collection('tags').updateMany({ space: event.streamId }, { $set: { title: event.data.title } });
      },
    });
    const limited = refusingLargeTransactions(reads, 20, [8n]);
    const projector = new ProjectionRunner(events, limited.store, [spaces, totals, tags], {
      batchSize: 64,
      backoff: { initialMs: 1, maxMs: 5 },
    });
    runners.push(projector);
    await projector.start();
    await projector.whenCaughtUp();
    expect(projector.position()).toBe(10n);
    expect(await total()).toBe(10);
    expect(await reads.collection('tags').count({ title: 'Space 3!' })).toBe(1200);
    expect((await projector.status()).lastError).toBeNull();
  });

  it('given an event applied twice to a document projection, then the second application is a no-op', async () => {
    await events.appendToStream('space-x', [created('X'), renamed('Y')], 'no_stream');
    const recorded = await events.readAll();
    for (const pass of [1, 2]) {
      await reads.transaction(async (tx) => {
        for (const event of recorded) await spaces.apply(event, tx);
      });
      expect(await reads.collection('spaces').get('x')).toMatchObject({ title: 'Y', renames: 1 });
      expect(pass).toBeGreaterThan(0);
    }
  });

  describe('the apply mode: replaying from empty read models', () => {
    /** A projection that records, per event, whether the runner said it replays from empty read models. */
    const recorder = () => {
      const applied: Array<[string, boolean]> = [];
      const projection: Projection = {
        name: 'recorder',
        collections: ['recorded'],
        apply: async (event, _tx, _resources, mode) =>
          void applied.push([(event.data as { title: string }).title, mode?.replayFromEmpty === true]),
      };
      return { projection, applied };
    };
    const recordingRunner = (projection: Projection, options: ConstructorParameters<typeof ProjectionRunner>[3] = {}) => {
      const created = new ProjectionRunner(events, reads, [projection], { backoff: { initialMs: 1, maxMs: 10 }, ...options });
      runners.push(created);
      return created;
    };

    /** Space A projected by a run of the code `build` that then stopped, and space B appended since. */
    const projectedBy = async (build: string) => {
      await events.appendToStream('space-a', [created('A')], 'no_stream');
      const before = recordingRunner(recorder().projection, { rebuildWhenChanged: true, build });
      await before.start();
      await before.whenCaughtUp();
      await before.stop();
      await events.appendToStream('space-b', [created('B')], 'no_stream');
    };

    it('given a rebuild, then every event of it is applied as a replay from empty, and a live event after it is not', async () => {
      await events.appendToStream('space-a', [created('A'), renamed('A!')], 'no_stream');
      const { projection, applied } = recorder();
      const projector = recordingRunner(projection);
      await projector.rebuild();
      await projector.start();
      await projector.whenCaughtUp();
      const { position } = await events.appendToStream('space-b', [created('B')], 'no_stream');
      await projector.waitFor(position, 5000);
      expect(applied).toEqual([
        ['A', true],
        ['A!', true],
        ['B', false],
      ]);
    });

    it('given a start that drops read models of other projections, then its catch-up is a replay from empty, and what follows is live', async () => {
      await projectedBy('earlier code');

      const { projection, applied } = recorder();
      const projector = recordingRunner(projection, { rebuildWhenChanged: true, build: 'this code' });
      await projector.start();
      await projector.whenCaughtUp();
      const { position } = await events.appendToStream('space-c', [created('C')], 'no_stream');
      await projector.waitFor(position, 5000);
      expect(applied).toEqual([
        ['A', true],
        ['B', true],
        ['C', false],
      ]);
    });

    it('given a failed batch during a replay from empty, then the retry is applied live (a batch may have been written in part)', async () => {
      await projectedBy('earlier code');

      const applied: Array<[string, boolean]> = [];
      let failures = 1;
      const failingOnce: Projection = {
        name: 'recorder',
        collections: ['recorded'],
        apply: async (event, _tx, _resources, mode) => {
          const title = (event.data as { title: string }).title;
          applied.push([title, mode?.replayFromEmpty === true]);
          if (title === 'B' && failures-- > 0) throw new Error('failing once');
        },
      };
      const projector = recordingRunner(failingOnce, { rebuildWhenChanged: true, build: 'this code' });
      await projector.start();
      await projector.whenCaughtUp();
      expect(applied).toEqual([
        ['A', true],
        ['B', true],
        ['A', false],
        ['B', false],
      ]);
    });

    it('given a start from a checkpoint of the same projections, then its catch-up is live: the read models hold earlier events', async () => {
      await projectedBy('this code');

      const { projection, applied } = recorder();
      const projector = recordingRunner(projection, { rebuildWhenChanged: true, build: 'this code' });
      await projector.start();
      await projector.whenCaughtUp();
      expect(applied).toEqual([['B', false]]);
    });
  });

  it('given a replay memory guard, when rebuilding 40 events in batches of 16, then it is told after the two full batches only', async () => {
    await appendMany(20);
    let told = 0;
    await runner(events, { batchSize: 16, replayMemory: [{ afterFullBatch: () => void (told += 1) }] }).rebuild();
    expect(told).toBe(2);
  });

  it('given a replay memory guard, when catching up on 40 events and then applying a live one, then it is told after the two full batches only', async () => {
    await appendMany(20);
    let told = 0;
    const projector = runner(events, { batchSize: 16, replayMemory: [{ afterFullBatch: () => void (told += 1) }] });
    await projector.start();
    await events.appendToStream('space-late', [created('Late')], 'no_stream');
    await projector.waitFor((await events.headPosition())!, 5000);
    expect(await total()).toBe(41);
    expect(told).toBe(2);
  });

  it('given a rebuild cut short while it dropped the read models, when a runner starts on them, then it replays the log into fresh ones', async () => {
    const projector = runner(events, { rebuildWhenChanged: true });
    await projector.start();
    await appendMany(5);
    await projector.waitFor((await events.headPosition())!, 5000);
    await projector.stop();
    const live = await snapshot(reads, ['spaces', 'totals']);
    // Killed after dropping the first collection, as a process stopped during MongoDB's drops (one after the other) is.
    const killedDuringDrops = new Proxy(reads, {
      get(target, property) {
        if (property === 'dropCollections') {
          return async (names: readonly string[]) => {
            await target.dropCollections(names.slice(0, 1));
            throw new Error('killed');
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    await expect(new ProjectionRunner(events, killedDuringDrops, [spaces, totals]).rebuild()).rejects.toThrow('killed');
    const restarted = runner(events, { rebuildWhenChanged: true });
    await restarted.start();
    await restarted.whenCaughtUp();
    expect(await snapshot(reads, ['spaces', 'totals'])).toEqual(live);
  });

  it('given live read models, when rebuilt from position zero, then the rebuilt read models equal the live ones', async () => {
    const projector = runner(events, { batchSize: 16 });
    await projector.start();
    await appendMany(40);
    await events.appendToStream('space-s3', [{ type: 'SpaceDeleted', data: {} }], 1);
    await events.appendToStream('space-s5', [renamed('Again')], 1);
    await projector.waitFor((await events.headPosition())!, 5000);
    const live = await snapshot(reads, ['spaces', 'totals']);
    const progress: number[] = [];
    const { applied } = await projector.rebuild((p) => progress.push(p.fraction));
    expect(applied).toBe(82);
    expect(await snapshot(reads, ['spaces', 'totals'])).toEqual(live);
    expect(progress.at(-1)).toBe(1);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    await projector.start();
    await events.appendToStream('space-after', [created('After rebuild')], 'no_stream');
    await projector.waitFor((await events.headPosition())!, 5000);
    expect(await total()).toBe(83);
  });
});

async function snapshot(store: ReadStore, collections: string[]): Promise<Record<string, Doc[]>> {
  const result: Record<string, Doc[]> = {};
  for (const name of collections) result[name] = (await store.collection(name).find({}, { limit: 1000 })).items;
  return result;
}

/**
 * A read store that refuses, as too large, a transaction of more than `maxWrites` writes (the
 * checkpoint included), or one applying an event at a position of `alwaysTooLarge`; `committed` lists the
 * events per committed transaction (from checkpoint moves).
 */
function refusingLargeTransactions(
  inner: ReadStore,
  maxWrites: number,
  alwaysTooLarge: readonly bigint[] = [],
): { store: ReadStore; committed: () => number[] } {
  const committed: number[] = [];
  let checkpoint = 0n;
  const store = Object.create(inner) as ReadStore;
  store.transaction = (work) =>
    inner.transaction(async (tx) => {
      let writes = 0;
      let last = checkpoint;
      const counting: ReadStoreTransaction = {
        collection: <T extends Doc = Doc>(name: string) => {
          const collection = tx.collection<T>(name);
          const counted = Object.create(collection) as typeof collection;
          for (const method of ['insert', 'put', 'update', 'updateMany', 'delete', 'deleteMany'] as const) {
            (counted as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
              writes++;
              if (name === CHECKPOINTS && method === 'put') last = BigInt((args[0] as { position: string }).position);
              return (collection[method] as (...a: unknown[]) => Promise<unknown>)(...args);
            };
          }
          return counted;
        },
      };
      const result = await work(counting);
      const tooLargeEvent = alwaysTooLarge.some((position) => position > checkpoint && position <= last);
      if (writes > maxWrites || tooLargeEvent) throw new ReadStoreTransactionTooLargeError(`transaction too large: ${writes} writes`);
      committed.push(Number(last - checkpoint));
      checkpoint = last;
      return result;
    });
  return { store, committed: () => committed };
}

/** An event store whose n-th subscriptions fail after delivering the given number of events. */
function droppingAfter(store: EventStore, dropAfter: number[]): { store: EventStore; subscriptions: () => number } {
  let opened = 0;
  const wrapped = Object.create(store) as EventStore;
  wrapped.subscribeToAll = (options) => {
    const inner = store.subscribeToAll(options);
    const limit = dropAfter[opened++];
    let delivered = 0;
    const iterator = inner[Symbol.asyncIterator]();
    const subscription: LogSubscription = {
      close: () => inner.close(),
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          if (limit !== undefined && delivered === limit) throw new Error('connection dropped');
          const result = await iterator.next();
          if (!result.done && result.value.kind === 'event') delivered++;
          return result;
        },
        return: async () => {
          await inner.close();
          return { done: true, value: undefined };
        },
      }),
    };
    return subscription;
  };
  return { store: wrapped, subscriptions: () => opened };
}

async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export type { RecordedEvent };
