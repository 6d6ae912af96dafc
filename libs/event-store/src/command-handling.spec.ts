import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DomainError } from '#platform/errors';
import { handleCommand, loadAggregate } from './command-handling';
import type { Decider } from './decider';
import type { EventStore } from './event-store.port';
import { WrongExpectedRevisionError } from './errors';
import { LmdbEventStore } from './lmdb/lmdb-event-store';

/** A counter aggregate defined for these specs only. */
type CounterEvent = { type: 'CounterOpened'; data: { limit: number } } | { type: 'CounterIncremented'; data: { by: number } };
type CounterCommand = { kind: 'open'; limit: number } | { kind: 'increment'; by: number };
interface CounterState {
  open: boolean;
  value: number;
  limit: number;
}

const counter: Decider<CounterCommand, CounterEvent, CounterState> = {
  initialState: () => ({ open: false, value: 0, limit: 0 }),
  evolve: (state, event) =>
    event.type === 'CounterOpened' ? { ...state, open: true, limit: event.data.limit } : { ...state, value: state.value + event.data.by },
  decide(command, state) {
    if (command.kind === 'open') return state.open ? [] : [{ type: 'CounterOpened', data: { limit: command.limit } }];
    if (!state.open) return DomainError.notFound('no such counter');
    if (state.value + command.by > state.limit) return DomainError.conflict(`the counter would pass its limit ${state.limit}`);
    return [{ type: 'CounterIncremented', data: { by: command.by } }];
  },
};

describe('handleCommand', () => {
  let directory: string;
  let store: LmdbEventStore;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'command-handling-'));
    store = LmdbEventStore.open(directory);
  });
  afterEach(async () => {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const run = (command: CounterCommand, extra: Partial<Parameters<typeof handleCommand>[0]> = {}) =>
    handleCommand({ store, stream: 'counter-1', decider: counter, command, ...extra } as Parameters<
      typeof handleCommand<CounterCommand, CounterEvent, CounterState>
    >[0]);

  it('given no stream, when a creating command is handled, then its events are appended with no_stream', async () => {
    const outcome = await run({ kind: 'open', limit: 10 }, { metadata: { actor: { type: 'user', id: 'u1' } } });
    expect(outcome).toMatchObject({ events: [{ type: 'CounterOpened', data: { limit: 10 } }], revision: 0, state: { open: true } });
    const [event] = await store.readStream('counter-1');
    expect(event).toMatchObject({ type: 'CounterOpened', metadata: { actor: { type: 'user', id: 'u1' } } });
  });

  it('given events, when a command is handled, then it decides on the folded state', async () => {
    await run({ kind: 'open', limit: 10 });
    await run({ kind: 'increment', by: 4 });
    const outcome = await run({ kind: 'increment', by: 6 });
    expect(outcome.state.value).toBe(10);
    await expect(run({ kind: 'increment', by: 1 })).rejects.toEqual(DomainError.conflict('the counter would pass its limit 10'));
    expect(await store.streamRevision('counter-1')).toBe(2);
  });

  it('given a decider that decides nothing, then nothing is appended', async () => {
    await run({ kind: 'open', limit: 10 });
    const outcome = await run({ kind: 'open', limit: 99 });
    expect(outcome).toMatchObject({ events: [], revision: 0, state: { limit: 10 } });
    expect(outcome.position).toBeUndefined();
  });

  it('given no stream, when a command needs one, then the domain error is thrown and nothing is appended', async () => {
    await expect(run({ kind: 'increment', by: 1 })).rejects.toMatchObject({ status: 404 });
    expect(await store.streamRevision('counter-1')).toBeNull();
  });

  it('given a concurrent writer, when the append conflicts, then it reloads and decides again on the new state', async () => {
    await run({ kind: 'open', limit: 10 });
    const racing = interfering(store, 1, async () => {
      await store.appendToStream('counter-1', [{ type: 'CounterIncremented', data: { by: 8 } }], 0);
    });
    const outcome = await handleCommand({ store: racing, stream: 'counter-1', decider: counter, command: { kind: 'increment', by: 2 } });
    expect(outcome.state.value).toBe(10);
    expect(outcome.revision).toBe(2);
    // and the re-decision enforces the rule against the other writer's event
    const again = interfering(store, 1, async () => {
      await store.appendToStream('counter-1', [{ type: 'CounterIncremented', data: { by: 0 } }], 2);
    });
    await expect(
      handleCommand({ store: again, stream: 'counter-1', decider: counter, command: { kind: 'increment', by: 1 } }),
    ).rejects.toMatchObject({ status: 409 });
  });

  it('given a writer that always wins, then it gives up after the bounded retries with the typed conflict', async () => {
    await run({ kind: 'open', limit: 100 });
    let revision = 0;
    const racing = interfering(store, Infinity, async () => {
      await store.appendToStream('counter-1', [{ type: 'CounterIncremented', data: { by: 1 } }], revision++);
    });
    const error = await handleCommand({
      store: racing,
      stream: 'counter-1',
      decider: counter,
      command: { kind: 'increment', by: 1 },
      maxRetries: 2,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(WrongExpectedRevisionError);
    expect(revision).toBe(3); // the first attempt and two retries
  });

  it('given If-Match with the current revision, then it applies; with a stale one, then 412 and nothing is appended', async () => {
    await run({ kind: 'open', limit: 10 });
    await expect(run({ kind: 'increment', by: 1 }, { ifMatch: 0 })).resolves.toMatchObject({ revision: 1 });
    await expect(run({ kind: 'increment', by: 1 }, { ifMatch: 0 })).rejects.toMatchObject({ status: 412 });
    expect(await store.streamRevision('counter-1')).toBe(1);
  });

  it('loads long streams across pages', async () => {
    await run({ kind: 'open', limit: 1_000_000 });
    for (let i = 0; i < 5; i++) {
      await store.appendToStream(
        'counter-1',
        Array.from({ length: 500 }, () => ({ type: 'CounterIncremented', data: { by: 1 } })),
        'stream_exists',
      );
    }
    const { state, revision } = await loadAggregate(store, 'counter-1', counter);
    expect(state.value).toBe(2500);
    expect(revision).toBe(2500);
  });
});

/** A store whose first `times` appends are preceded by another writer's append. */
function interfering(store: EventStore, times: number, otherWriter: () => Promise<void>): EventStore {
  let remaining = times;
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'appendToStream') {
        return async (...args: Parameters<EventStore['appendToStream']>) => {
          if (remaining-- > 0) await otherWriter();
          return target.appendToStream(...args);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
