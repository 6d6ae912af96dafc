import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventStore, LogSubscription, NewEvent, RecordedEvent } from '../../../event-store/src/event-store.port';
import { LmdbEventStore } from '../../../event-store/src/lmdb/lmdb-event-store';
import { MemoryReadStore } from '../memory/memory-read-store';
import type { Doc, ReadStore } from '../read-store.port';
import { documentProjection, positionKey, type ProjectedDoc, type Projection } from './projection';
import { CHECKPOINTS, ProjectionRunner } from './projection-runner';

/** Read models defined for these specs: one document per space, and a running total that is NOT idempotent on its own. */
interface SpaceDoc extends ProjectedDoc {
  title: string;
  renames: number;
}
type SpaceEvent = { type: 'SpaceCreated'; data: { title: string } } | { type: 'SpaceRenamed'; data: { title: string } } | { type: 'SpaceDeleted'; data: object };
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
    expect(await projector.status()).toMatchObject({ running: true, caughtUp: true, checkpoint: 6n, head: 6n, lagEvents: 0, lastError: null });
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

async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export type { RecordedEvent };
