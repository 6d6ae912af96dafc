import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Decider } from '#event-store/decider';
import type { RecordedEvent } from '#event-store/event-store.port';
import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';
import { MemoryReadStore } from '#read-store/memory/memory-read-store';
import { CHECKPOINTS, ProjectionRunner } from '#read-store/projections/projection-runner';
import type { Projection } from '#read-store/projections/projection';
import { systemClock } from '#platform/clock';
import { configureLogging } from '#platform/logging';
import { CommandRunner } from './command-runner';
import { Metrics } from './metrics';
import { CheckpointPollingReadYourWrites, InProcessReadYourWrites } from './read-your-writes';
import { readReactorProgress, REACTORS_CHECKPOINT, ReactorCheckpoints } from './reactor-checkpoint';
import { ReactorDispatcher } from './reactor-dispatcher';
import { ReactorRunner, type Reactor, type ReactorRunnerOptions, type Services } from './reactor';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until `check` holds (or fails the test after 20 s: generous, for a busy CI machine). */
async function eventually(check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met within 20 s');
    await sleep(5);
  }
}

async function counter(metric: Metrics['reactorFailures'] | Metrics['readYourWritesTimeouts']): Promise<number> {
  return (await metric.get()).values.reduce((sum, value) => sum + value.value, 0);
}

/** A stream that is marked at most once: `Mark` on a marked stream appends nothing (the idempotent command). */
type MarkEvent = { type: 'Marked'; data: { id: string } };
const markDecider: Decider<{ kind: 'Mark'; id: string }, MarkEvent, { marked: boolean }> = {
  initialState: () => ({ marked: false }),
  evolve: () => ({ marked: true }),
  decide: (command, state) => (state.marked ? [] : [{ type: 'Marked', data: { id: command.id } }]),
};
/** Orders: each `Order` appends `Ordered` (what the reactors react to). */
type OrderEvent = { type: 'Ordered'; data: { id: string } };
const orderDecider: Decider<{ kind: 'Order'; id: string }, OrderEvent, null> = {
  initialState: () => null,
  evolve: () => null,
  decide: (command) => [{ type: 'Ordered', data: { id: command.id } }],
};
/** Notes: the second hop of a cascade. */
type NoteEvent = { type: 'Noted'; data: { id: string } };
const noteDecider: Decider<{ kind: 'Note'; id: string }, NoteEvent, { noted: boolean }> = {
  initialState: () => ({ noted: false }),
  evolve: () => ({ noted: true }),
  decide: (command, state) => (state.noted ? [] : [{ type: 'Noted', data: { id: command.id } }]),
};

/** Read model of what was marked and noted. */
const marks: Projection = {
  name: 'marks',
  collections: ['marks'],
  handles: ['Marked', 'Noted'],
  async apply(event, tx) {
    const id = (event.data as { id: string }).id;
    const current = (await tx.collection('marks').get(id)) ?? { _id: id };
    await tx.collection('marks').put({ ...current, [event.type]: true });
  },
};

const noServices: Services = {
  get() {
    throw new Error('no services in this test');
  },
};

describe('ReactorRunner', () => {
  let directory: string;
  let events: LmdbEventStore;
  let reads: MemoryReadStore;
  let metrics: Metrics;
  let projections: ProjectionRunner;
  let dispatcher: ReactorDispatcher;
  let reactorRunners: ReactorRunner[];
  let commands: CommandRunner;
  const reactions: RecordedEvent[] = [];

  /** Marks the order it sees. */
  const marker: Reactor = {
    name: 'marker',
    handles: ['Ordered'],
    async react(event, { commands: run, caller }) {
      reactions.push(event);
      const { id } = event.data as { id: string };
      await run.run(`mark-${id}`, markDecider, { kind: 'Mark', id }, { caller });
    },
  };

  function runnerFor(reactor: Reactor, options: ReactorRunnerOptions = {}): ReactorRunner {
    const runner = new ReactorRunner(events, reads, reactor, commands, noServices, {
      projections,
      metrics,
      stream: dispatcher,
      retry: { initialMs: 10, maxMs: 40 },
      ...options,
    });
    reactorRunners.push(runner);
    return runner;
  }

  const order = (id: string, requestId = `request-${id}`) =>
    commands.run(
      `order-${id}`,
      orderDecider,
      { kind: 'Order', id },
      { caller: { kind: 'admin', requestId } as never, requestId },
      { wait: false },
    );
  const streamTypes = async (stream: string) => (await events.readStream(stream)).map((event) => event.type);
  /** The position saved for a reactor (what a restart resumes from). */
  const saved = async (name: string) => (await readReactorProgress(reads, [name])).get(name)?.position ?? null;

  beforeAll(() => configureLogging('silent'));

  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'reactor-'));
    events = LmdbEventStore.open(directory);
    reads = new MemoryReadStore();
    metrics = new Metrics();
    projections = new ProjectionRunner(events, reads, [marks]);
    dispatcher = new ReactorDispatcher(projections);
    reactorRunners = [];
    commands = new CommandRunner(events, new InProcessReadYourWrites(projections, 2000, metrics, reactorRunners), systemClock, metrics);
    reactions.length = 0;
    await projections.start();
  });

  afterEach(async () => {
    for (const runner of reactorRunners) await runner.stop();
    await projections.stop();
    await events.close();
    await reads.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('issues commands in reaction to the events it handles, stamped with the event as cause and its correlation', async () => {
    const runner = runnerFor(marker);
    const first = await order('a', 'req-1');
    await runner.start();
    await order('b', 'req-2');
    await eventually(async () => (await streamTypes('mark-b')).length === 1);
    expect(await streamTypes('mark-a')).toEqual(['Marked']);
    expect(reactions.map((event) => event.type)).toEqual(['Ordered', 'Ordered']);

    const [marked] = await events.readStream('mark-a');
    const [ordered] = await events.readStream('order-a');
    expect(ordered.position).toBe(first.position);
    expect(marked.metadata).toMatchObject({
      causationId: ordered.id,
      correlationId: 'req-1',
      source: 'system',
      actor: { type: 'system', id: 'reactor-marker' },
    });
    // Its checkpoint is its own.
    await eventually(async () => (await saved('marker')) === runner.position()?.toString());
  });

  it('keeps its checkpoint across a restart: what it reacted to is not delivered again', async () => {
    await order('a');
    const runner = runnerFor(marker);
    await runner.start();
    await runner.whenCaughtUp();
    expect(reactions).toHaveLength(1);
    await runner.stop();

    const again = runnerFor(marker);
    await again.start();
    await again.whenCaughtUp();
    expect(reactions).toHaveLength(1);
    await order('b');
    await eventually(() => reactions.length === 2);
    expect((reactions[1].data as { id: string }).id).toBe('b');
  });

  it('a crash between a reaction and its checkpoint delivers the event again, and the command appends nothing the second time', async () => {
    await order('a');
    let crashes = 0;
    const runner = runnerFor(marker, {
      backoff: { initialMs: 5, maxMs: 10 },
      afterReaction: () => {
        if (crashes++ === 0) throw new Error('crashed before the checkpoint');
      },
    });
    await runner.start();
    await eventually(() => runner.position() !== null);
    expect(reactions).toHaveLength(2); // delivered twice
    expect(await streamTypes('mark-a')).toEqual(['Marked']); // appended once

    // The same after a real restart with no checkpoint saved: a fresh runner on a fresh read store.
    await runner.stop();
    const fresh = new ReactorRunner(events, new MemoryReadStore(), marker, commands, noServices, { projections });
    reactorRunners.push(fresh);
    await fresh.start();
    await fresh.whenCaughtUp();
    expect(reactions).toHaveLength(3);
    expect(await streamTypes('mark-a')).toEqual(['Marked']);
  });

  it('retries a failing reaction with backoff, counting each failure, without moving its checkpoint or holding writes up', async () => {
    let failures = 0;
    const flaky: Reactor = {
      name: 'flaky',
      handles: ['Ordered'],
      async react(event, context) {
        if (failures < 3) {
          failures++;
          throw new Error('downstream unavailable');
        }
        await marker.react(event, context);
      },
    };
    const runner = runnerFor(flaky, { retry: { initialMs: 40, maxMs: 80 } });
    await runner.start();
    await runner.whenCaughtUp();
    const before = runner.position();
    const started = Date.now();
    await order('a');
    await eventually(() => failures >= 1);
    expect(runner.isFailing()).toBe(true);
    expect(runner.position()).toBe(before);
    expect((await runner.status()).failing).toBe('downstream unavailable');
    // A write waiting for its cascade does not sit out the retries: it answers (as timed out) at once.
    const waitStarted = Date.now();
    const timeouts = await counter(metrics.readYourWritesTimeouts);
    await commands.waitFor((await events.headPosition())!);
    expect(Date.now() - waitStarted).toBeLessThan(500);
    expect(await counter(metrics.readYourWritesTimeouts)).toBe(timeouts + 1);

    await eventually(async () => (await streamTypes('mark-a')).length === 1);
    // 40 + 80 + 80 ms of backoff between the four attempts.
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(await counter(metrics.reactorFailures)).toBe(3);
    await eventually(() => runner.position() !== before);
    expect(runner.isFailing()).toBe(false);
    await eventually(async () => (await readReactorProgress(reads, ['flaky'])).get('flaky')?.failing === null);
  });

  it('reports its lag while behind, and none once caught up', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow: Reactor = {
      name: 'slow',
      handles: ['Ordered'],
      async react() {
        await gate;
      },
    };
    const runner = runnerFor(slow);
    await order('a');
    await order('b');
    await order('c');
    await runner.start();
    await eventually(async () => (await runner.status()).lagEvents === 3);
    expect((await runner.status()).caughtUp).toBe(false);
    release();
    await runner.whenCaughtUp();
    expect(await runner.status()).toMatchObject({ caughtUp: true, lagEvents: 0, failing: null });
  });

  it('skips the events it does not handle, moving its checkpoint past them', async () => {
    const runner = runnerFor(marker);
    await commands.run('note-x', noteDecider, { kind: 'Note', id: 'x' }, { caller: { kind: 'admin' } as never }, { wait: false });
    await runner.start();
    await runner.whenCaughtUp();
    expect(reactions).toHaveLength(0);
    expect(runner.position()).toBe(await events.headPosition());
    expect(await saved('marker')).toBe(String(await events.headPosition()));
  });

  it('while running, passes a live event it does not handle at once (a write waiting for it is not held up)', async () => {
    const runner = runnerFor(marker);
    await runner.start();
    await runner.whenCaughtUp();
    const { position } = await commands.run(
      'note-y',
      noteDecider,
      { kind: 'Note', id: 'y' },
      { caller: { kind: 'admin' } as never },
      { wait: false },
    );
    expect(await runner.waitFor(position!, 5_000)).toEqual({ passed: true, appended: null });
    expect(reactions).toHaveLength(0);
  });

  it('saves checkpoints in batches: a burst of reactions, by several reactors, is written once, not once per reactor and event', async () => {
    const watcher: Reactor = { name: 'watcher', handles: ['Ordered'], react: async (event) => void reactions.push(event) };
    const checkpoints = new ReactorCheckpoints(reads, 60_000);
    const runners = [runnerFor(watcher, { checkpoints }), runnerFor(marker, { checkpoints })];
    for (const runner of runners) await runner.start();
    await Promise.all(runners.map((runner) => runner.whenCaughtUp()));
    const put = jest.spyOn(reads.collection(CHECKPOINTS), 'put');
    for (let i = 0; i < 20; i++) await order(`w${i}`);
    await eventually(() => runners.every((runner) => runner.position() === projections.position()));
    expect(reactions).toHaveLength(40);
    expect(put).not.toHaveBeenCalled();

    await Promise.all(runners.map((runner) => runner.stop()));
    expect(put.mock.calls.map(([doc]) => doc._id)).toEqual([REACTORS_CHECKPOINT]);
    expect(await saved('watcher')).toBe(String(await events.headPosition()));
    expect(await saved('marker')).toBe(String(await events.headPosition()));
  });

  describe('the shared stream', () => {
    it('hands the reactors the events the projections committed: no reactor reads the log once it has joined', async () => {
      const subscribe = jest.spyOn(events, 'subscribeToAll');
      const runners = [runnerFor(marker), runnerFor({ name: 'watcher', handles: ['Ordered'], react: async () => undefined })];
      for (const runner of runners) await runner.start();
      await Promise.all(runners.map((runner) => runner.whenCaughtUp()));
      for (const id of ['a', 'b', 'c']) await order(id);
      await eventually(async () => (await streamTypes('mark-c')).length === 1);
      expect(subscribe).not.toHaveBeenCalled();
      expect(reactions.map((event) => (event.data as { id: string }).id)).toEqual(['a', 'b', 'c']);
    });

    it('a reactor that starts behind reads the log on its own up to where it joined, then takes the shared stream', async () => {
      await order('a');
      await order('b');
      const subscribe = jest.spyOn(events, 'subscribeToAll');
      const runner = runnerFor(marker);
      await runner.start();
      await runner.whenCaughtUp();
      expect(subscribe).toHaveBeenCalledTimes(1);
      await order('c');
      await eventually(() => reactions.length === 3);
      expect(subscribe).toHaveBeenCalledTimes(1);
      expect(reactions.map((event) => (event.data as { id: string }).id)).toEqual(['a', 'b', 'c']);
    });

    it('a stuck reactor holds up neither the projections nor the other reactors; past its queue it catches up from the log, missing nothing and reacting once to each event', async () => {
      dispatcher = new ReactorDispatcher(projections, 2);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const seenByStuck: string[] = [];
      const stuck: Reactor = {
        name: 'stuck',
        handles: ['Ordered'],
        async react(event) {
          await gate;
          seenByStuck.push((event.data as { id: string }).id);
        },
      };
      const runners = [runnerFor(stuck, { projectionsTimeoutMs: 60_000 }), runnerFor(marker)];
      for (const runner of runners) await runner.start();
      await Promise.all(runners.map((runner) => runner.whenCaughtUp()));
      const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
      for (const id of ids) await order(id);
      await eventually(async () => (await streamTypes('mark-f')).length === 1);
      expect(await reads.collection('marks').get('f')).toMatchObject({ Marked: true });
      expect(seenByStuck).toEqual([]);

      release();
      await eventually(() => seenByStuck.length === ids.length);
      expect(seenByStuck).toEqual(ids);
      await order('g');
      await eventually(() => seenByStuck.length === ids.length + 1);
      expect(seenByStuck).toEqual([...ids, 'g']);
    });
  });

  describe('read-your-writes with cascades (in process)', () => {
    /** Second hop: a mark is noted. */
    const noter: Reactor = {
      name: 'noter',
      handles: ['Marked'],
      async react(event, { commands: run, caller }) {
        const { id } = event.data as { id: string };
        await sleep(20); // slower than the write's own projection
        await run.run(`note-${id}`, noteDecider, { kind: 'Note', id }, { caller });
      },
    };

    it('a write answers once the read models show its events and every cascade they set off, hop after hop', async () => {
      const slowMarker: Reactor = { ...marker, react: async (event, context) => (await sleep(20), marker.react(event, context)) };
      for (const runner of [runnerFor(slowMarker), runnerFor(noter)]) await runner.start();
      await Promise.all(reactorRunners.map((runner) => runner.whenCaughtUp()));

      await commands.run('order-a', orderDecider, { kind: 'Order', id: 'a' }, { caller: { kind: 'admin' } as never });
      expect(await reads.collection('marks').get('a')).toMatchObject({ Marked: true, Noted: true });
      expect(await counter(metrics.readYourWritesTimeouts)).toBe(0);
    });

    it('a write none of whose events a reactor handles does not wait for the reactors', async () => {
      let release!: () => void;
      const blocked: Reactor = { name: 'blocked', handles: ['Ordered'], react: () => new Promise<void>((resolve) => (release = resolve)) };
      const runner = runnerFor(blocked);
      await runner.start();
      await runner.whenCaughtUp();
      await order('a'); // the reactor is now busy with it
      await eventually(() => release !== undefined);
      const started = Date.now();
      await commands.run('note-y', noteDecider, { kind: 'Note', id: 'y' }, { caller: { kind: 'admin' } as never });
      expect(Date.now() - started).toBeLessThan(500);
      expect(await reads.collection('marks').get('y')).toMatchObject({ Noted: true });
      release();
    });

    it('inside a reaction, commands wait for the projections only (never for the reactors, themselves included)', async () => {
      const runner = runnerFor(marker);
      await runner.start();
      await runner.whenCaughtUp();
      const started = Date.now();
      await order('a');
      await eventually(async () => (await reads.collection('marks').get('a')) !== null);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(await counter(metrics.readYourWritesTimeouts)).toBe(0);
    });
  });
});

describe('CheckpointPollingReadYourWrites with reactors (distributed mode)', () => {
  let reads: MemoryReadStore;
  let metrics: Metrics;
  const reactors = [
    { name: 'marker', handles: ['Ordered'] },
    { name: 'noter', handles: ['Marked'] },
  ];

  beforeAll(() => configureLogging('silent'));
  beforeEach(() => {
    reads = new MemoryReadStore();
    metrics = new Metrics();
  });
  afterEach(async () => reads.close());

  const put = (id: string, position: bigint, extra: object = {}) =>
    reads.collection(CHECKPOINTS).put({ _id: id, position: position.toString(), updatedAt: new Date().toISOString(), ...extra });
  /** What the projector saves: every reactor's progress in one document. */
  const progress = async (name: string, position: bigint, extra: { appended: string | null; failing: string | null }) => {
    const shared = (await reads.collection(CHECKPOINTS).get(REACTORS_CHECKPOINT)) ?? { _id: REACTORS_CHECKPOINT, reactors: {} };
    const reactorsSaved = { ...(shared.reactors as object), [name]: { position: position.toString(), ...extra } };
    await reads.collection(CHECKPOINTS).put({ ...shared, reactors: reactorsSaved, updatedAt: new Date().toISOString() });
  };
  const pending = async (promise: Promise<unknown>) => {
    const marker = Symbol('pending');
    return (await Promise.race([promise.then(() => 'done'), sleep(20).then(() => marker)])) === marker;
  };

  it('waits for the projections, then the reactors, then the projections again up to what the reactions appended', async () => {
    const readYourWrites = new CheckpointPollingReadYourWrites(reads, 5000, metrics, 1, 'main', reactors);
    const waiting = readYourWrites.wait(5n, 'r', { types: ['Ordered'] });
    await put('main', 5n);
    await progress('noter', 5n, { appended: null, failing: null });
    expect(await pending(waiting)).toBe(true); // the marker has not reacted yet
    await progress('marker', 6n, { appended: '8', failing: null });
    expect(await pending(waiting)).toBe(true); // its reaction appended at 8: the projections must show it
    await put('main', 8n);
    expect(await pending(waiting)).toBe(true); // and the reactions to what it appended must be done
    await progress('noter', 8n, { appended: null, failing: null });
    await progress('marker', 8n, { appended: '8', failing: null });
    await waiting;
    expect((await metrics.readYourWritesTimeouts.get()).values[0]?.value ?? 0).toBe(0);
  });

  it('does not wait for a failing reactor: the write answers, counted as timed out', async () => {
    const readYourWrites = new CheckpointPollingReadYourWrites(reads, 5000, metrics, 1, 'main', reactors);
    await put('main', 5n);
    await progress('marker', 3n, { appended: null, failing: 'downstream unavailable' });
    const started = Date.now();
    await readYourWrites.wait(5n, 'r', { types: ['Ordered'] });
    expect(Date.now() - started).toBeLessThan(1000);
    expect((await metrics.readYourWritesTimeouts.get()).values[0]?.value).toBe(1);
  });

  it('reads a reactor\u2019s own checkpoint document (saved by an older projector) when the shared one does not name it', async () => {
    const readYourWrites = new CheckpointPollingReadYourWrites(reads, 5000, metrics, 1, 'main', reactors);
    const waiting = readYourWrites.wait(5n, 'r', { types: ['Ordered'] });
    await put('main', 5n);
    expect(await pending(waiting)).toBe(true);
    await put('reactor-marker', 5n, { appended: null, failing: null });
    await waiting;
    expect((await metrics.readYourWritesTimeouts.get()).values[0]?.value ?? 0).toBe(0);
  });

  it('without cascades, the projections only', async () => {
    const readYourWrites = new CheckpointPollingReadYourWrites(reads, 5000, metrics, 1, 'main', reactors);
    await put('main', 5n);
    await readYourWrites.wait(5n, 'r', { cascades: false });
    expect((await metrics.readYourWritesTimeouts.get()).values[0]?.value ?? 0).toBe(0);
  });
});
