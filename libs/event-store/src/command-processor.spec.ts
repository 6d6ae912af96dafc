import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DomainError } from '#platform/errors';
import { CommandProcessor } from './command-processor';
import type { Decider } from './decider';
import { LmdbEventStore } from './lmdb/lmdb-event-store';

/** A bounded counter, defined for these specs only. */
type Event = { type: 'Opened'; data: { limit: number } } | { type: 'Added'; data: { by: number } };
type Command = { kind: 'open'; limit: number } | { kind: 'add'; by: number };
interface State {
  open: boolean;
  value: number;
  limit: number;
}
let evolveCalls = 0;
const counter: Decider<Command, Event, State> = {
  initialState: () => ({ open: false, value: 0, limit: 0 }),
  evolve: (state, event) => {
    evolveCalls++;
    return event.type === 'Opened' ? { ...state, open: true, limit: event.data.limit } : { ...state, value: state.value + event.data.by };
  },
  decide(command, state) {
    if (command.kind === 'open') return state.open ? [] : [{ type: 'Opened', data: { limit: command.limit } }];
    if (state.value + command.by > state.limit) return DomainError.conflict('over the limit');
    return [{ type: 'Added', data: { by: command.by } }];
  },
};

describe('CommandProcessor', () => {
  let directory: string;
  let store: LmdbEventStore;
  let processor: CommandProcessor;
  let appends: number;
  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'command-processor-'));
    store = LmdbEventStore.open(directory);
    const append = store.appendToStream.bind(store);
    appends = 0;
    store.appendToStream = (...args) => {
      appends++;
      return append(...args);
    };
    processor = new CommandProcessor(store);
    await processor.submit({ stream: 'counter-1', decider: counter, command: { kind: 'open', limit: 10 } });
    appends = 0;
  });
  afterEach(async () => {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('given commands that fit the batch limit alone but not together, then each is appended on its own', async () => {
    const pad = (bytes: number) => ({ pad: 'x'.repeat(bytes) });
    const outcomes = await Promise.allSettled([
      processor.submit({ stream: 'counter-1', decider: counter, command: { kind: 'add', by: 1 }, metadata: pad(600_000) }),
      processor.submit({ stream: 'counter-1', decider: counter, command: { kind: 'add', by: 2 }, metadata: pad(2_000_000) }),
      processor.submit({ stream: 'counter-1', decider: counter, command: { kind: 'add', by: 3 }, metadata: pad(600_000) }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ name: 'EventStoreInputError' });
    expect((await store.readStream('counter-1')).map((e) => e.data)).toEqual([{ limit: 10 }, { by: 1 }, { by: 3 }]);
  });

  it('given concurrent commands on one stream, then they are decided in order and appended in one batch', async () => {
    const outcomes = await Promise.all(
      [1, 2, 3].map((by) => processor.submit({ stream: 'counter-1', decider: counter, command: { kind: 'add', by }, metadata: { by } })),
    );
    expect(appends).toBe(1);
    expect(outcomes.map((o) => [o.revision, o.state.value])).toEqual([
      [1, 1],
      [2, 3],
      [3, 6],
    ]);
    expect(new Set(outcomes.map((o) => o.position)).size).toBe(1);
    expect((await store.readStream('counter-1')).map((e) => e.metadata)).toEqual([{}, { by: 1 }, { by: 2 }, { by: 3 }]);
  });

  it('given a batch where one command breaks a rule, then only that one fails', async () => {
    const results = await Promise.allSettled(
      [5, 9, 4].map((by) => processor.submit({ stream: 'counter-1', decider: counter, command: { kind: 'add', by } })),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(DomainError.conflict('over the limit'));
    expect(await store.streamRevision('counter-1')).toBe(2);
  });

  it('given If-Match in a batch, then it is checked against the revision the commands before it left', async () => {
    const [first, second] = await Promise.allSettled([
      processor.submit({ stream: 'counter-1', decider: counter, command: { kind: 'add', by: 1 }, ifMatch: 0 }),
      processor.submit({ stream: 'counter-1', decider: counter, command: { kind: 'add', by: 1 }, ifMatch: 0 }),
    ]);
    expect(first.status).toBe('fulfilled');
    expect((second as PromiseRejectedResult).reason).toMatchObject({ status: 412 });
  });

  it('given a stale If-Match on a command the decider refuses, then the refusal answers, not 412 (RFC 9110, 13.2.1)', async () => {
    await processor.submit({ stream: 'counter-1', decider: counter, command: { kind: 'add', by: 1 } });
    await expect(processor.submit({ stream: 'counter-1', decider: counter, command: { kind: 'add', by: 50 }, ifMatch: 0 })).rejects.toEqual(
      DomainError.conflict('over the limit'),
    );
  });

  it('given a stale If-Match on a command the decider accepts, then 412 and nothing is appended', async () => {
    await processor.submit({ stream: 'counter-1', decider: counter, command: { kind: 'add', by: 1 } });
    await expect(
      processor.submit({ stream: 'counter-1', decider: counter, command: { kind: 'add', by: 1 }, ifMatch: 0 }),
    ).rejects.toMatchObject({ status: 412 });
    expect(await store.streamRevision('counter-1')).toBe(1);
  });

  it('given events appended by someone else, then the cached state catches up before deciding', async () => {
    await processor.submit({ stream: 'counter-1', decider: counter, command: { kind: 'add', by: 2 } });
    await store.appendToStream('counter-1', [{ type: 'Added', data: { by: 7 } }], 1);
    await expect(processor.submit({ stream: 'counter-1', decider: counter, command: { kind: 'add', by: 2 } })).rejects.toEqual(
      DomainError.conflict('over the limit'),
    );
    const outcome = await processor.submit({ stream: 'counter-1', decider: counter, command: { kind: 'add', by: 1 } });
    expect(outcome.state.value).toBe(10);
  });

  it('given a cached stream, then a command folds only the new events, not the whole stream', async () => {
    for (let i = 0; i < 5; i++) await processor.submit({ stream: 'counter-1', decider: counter, command: { kind: 'add', by: 1 } });
    evolveCalls = 0;
    await processor.submit({ stream: 'counter-1', decider: counter, command: { kind: 'add', by: 1 } });
    expect(evolveCalls).toBe(1);
  });

  it('given a conflict from another writer between load and append, then the batch is re-decided', async () => {
    const append = store.appendToStream;
    let interfered = false;
    store.appendToStream = async (stream, events, expected) => {
      if (!interfered) {
        interfered = true;
        await append(stream, [{ type: 'Added', data: { by: 8 } }], 'any');
      }
      return append(stream, events, expected);
    };
    const results = await Promise.allSettled(
      [1, 1, 1].map((by) => processor.submit({ stream: 'counter-1', decider: counter, command: { kind: 'add', by } })),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(await store.streamRevision('counter-1')).toBe(3);
  });
});
