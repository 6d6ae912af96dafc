import { randomUUID } from 'node:crypto';
import type { EventStore, LogPosition, NewEvent, RecordedEvent, SubscriptionMessage } from './event-store.port';
import { EventStoreInputError, WrongExpectedRevisionError } from './errors';

/**
 * The behaviour every event store adapter must have. `open()` may return a store whose log already
 * holds events (a shared server): each test uses its own streams and reads the log from the head
 * it found. The suite closes the store after each test.
 */
export function eventStoreContract(adapterName: string, open: () => Promise<EventStore>): void {
  describe(`event store contract: ${adapterName}`, () => {
    let store: EventStore;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    const stream = (category = 'test') => `${category}-${randomUUID().replace(/-/g, '')}`;
    const events = (n: number, type = 'ThingHappened', offset = 0): NewEvent[] =>
      Array.from({ length: n }, (_, i) => ({ type, data: { n: i + offset }, metadata: { actor: 'test' } }));
    const headOrStart = async (): Promise<LogPosition | undefined> => (await store.headPosition()) ?? undefined;

    describe('appending', () => {
      it('given no stream, when appending with no_stream, then revisions start at 0 and the position is returned', async () => {
        const name = stream();
        const result = await store.appendToStream(name, events(3), 'no_stream');
        expect(result.nextExpectedRevision).toBe(2);
        const read = await store.readStream(name);
        expect(read.map((e) => e.revision)).toEqual([0, 1, 2]);
        expect(read[2].position).toBe(result.position);
        expect(await store.streamRevision(name)).toBe(2);
      });

      it('given a stream, when appending with its exact revision, then the events follow', async () => {
        const name = stream();
        await store.appendToStream(name, events(2), 'no_stream');
        const result = await store.appendToStream(name, events(1, 'Again'), 1);
        expect(result.nextExpectedRevision).toBe(2);
        expect((await store.readStream(name)).map((e) => e.type)).toEqual(['ThingHappened', 'ThingHappened', 'Again']);
      });

      it('given a stream, when appending with a stale revision, then a conflict names stream, expected and actual', async () => {
        const name = stream();
        await store.appendToStream(name, events(3), 'no_stream');
        const error = await store.appendToStream(name, events(1), 0).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WrongExpectedRevisionError);
        expect(error).toMatchObject({ stream: name, expected: 0, actual: 2 });
        expect(await store.streamRevision(name)).toBe(2);
      });

      it('given a stream, when appending with no_stream, then it conflicts', async () => {
        const name = stream();
        await store.appendToStream(name, events(1), 'no_stream');
        await expect(store.appendToStream(name, events(1), 'no_stream')).rejects.toMatchObject({
          name: 'WrongExpectedRevisionError',
          actual: 0,
        });
      });

      it('given no stream, when appending with stream_exists or a revision, then it conflicts with actual no_stream', async () => {
        const name = stream();
        await expect(store.appendToStream(name, events(1), 'stream_exists')).rejects.toMatchObject({ actual: 'no_stream' });
        await expect(store.appendToStream(name, events(1), 0)).rejects.toMatchObject({ actual: 'no_stream' });
        expect(await store.streamRevision(name)).toBeNull();
      });

      it('given any stream state, when appending with any, then it succeeds', async () => {
        const name = stream();
        await store.appendToStream(name, events(1), 'any');
        await store.appendToStream(name, events(1), 'any');
        await store.appendToStream(name, events(1), 'stream_exists');
        expect(await store.streamRevision(name)).toBe(2);
      });

      it('when many appends race on the same expected revision, then exactly one wins', async () => {
        const name = stream();
        await store.appendToStream(name, events(1), 'no_stream');
        const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => store.appendToStream(name, events(2), 0)));
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
        expect(rejected.every((o) => o.reason instanceof WrongExpectedRevisionError)).toBe(true);
        expect(await store.streamRevision(name)).toBe(2);
      });

      it('keeps ids, types, JSON data and metadata exactly, and records the time', async () => {
        const name = stream();
        const id = randomUUID();
        const data = { title: 'Ünïcødé ✓ "quoted"', nested: { list: [1, 2.5, null, true], empty: {} }, nothing: null };
        const before = Date.now();
        await store.appendToStream(
          name,
          [{ id, type: 'SpaceCreated', data, metadata: { actor: { type: 'user', id: 'u1' } } }],
          'no_stream',
        );
        const [event] = await store.readStream(name);
        expect(event).toMatchObject({
          id,
          streamId: name,
          revision: 0,
          type: 'SpaceCreated',
          data,
          metadata: { actor: { type: 'user', id: 'u1' } },
        });
        expect(new Date(event.recordedAt).getTime()).toBeGreaterThanOrEqual(before - 1000);
        expect(event.recordedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      });

      it('generates distinct ids when none are given', async () => {
        const name = stream();
        await store.appendToStream(name, events(5), 'no_stream');
        const ids = (await store.readStream(name)).map((e) => e.id);
        expect(new Set(ids).size).toBe(5);
      });

      it('generates time-ordered ids (UUID version 7) that increase in append order, so that stores keyed by event id grow at one end', async () => {
        const name = stream();
        await store.appendToStream(name, events(5), 'no_stream');
        await store.appendToStream(name, events(5), 4);
        const ids = (await store.readStream(name)).map((e) => e.id);
        for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect([...ids].sort()).toEqual(ids);
      });

      it('rejects bad input with EventStoreInputError and writes nothing', async () => {
        const name = stream();
        for (const bad of ['', 'nodash', '$system-1', 'a b-c']) {
          await expect(store.appendToStream(bad, events(1), 'any')).rejects.toBeInstanceOf(EventStoreInputError);
        }
        await expect(store.appendToStream(name, [], 'any')).rejects.toBeInstanceOf(EventStoreInputError);
        await expect(store.appendToStream(name, [{ type: '', data: {} }], 'any')).rejects.toBeInstanceOf(EventStoreInputError);
        await expect(store.appendToStream(name, events(1), -1)).rejects.toBeInstanceOf(EventStoreInputError);
        await expect(store.appendToStream(name, [{ id: 'not-a-uuid', type: 'T', data: {} }], 'any')).rejects.toBeInstanceOf(
          EventStoreInputError,
        );
        const huge = { type: 'Huge', data: { text: 'x'.repeat(1024 * 1024) } };
        await expect(store.appendToStream(name, [events(1)[0], huge], 'any')).rejects.toBeInstanceOf(EventStoreInputError);
        await expect(store.readStream(name, { maxCount: 0 })).rejects.toBeInstanceOf(EventStoreInputError);
        expect(await store.streamRevision(name)).toBeNull();
      });

      it('refuses a batch over the batch limit though each event fits, and accepts the same events one batch each', async () => {
        // Two 600 KB events: each under KurrentDB's 1 MiB maximum append size, together over it.
        const name = stream();
        const big = (n: number): NewEvent => ({ type: 'Big', data: { n, text: 'x'.repeat(600 * 1024) }, metadata: { actor: 'test' } });
        const error = await store.appendToStream(name, [big(0), big(1)], 'no_stream').catch((e: unknown) => e);
        expect(error).toBeInstanceOf(EventStoreInputError);
        expect((error as Error).message).toMatch(/batch limit of \d+ bytes/);
        expect(await store.streamRevision(name)).toBeNull();
        await store.appendToStream(name, [big(0)], 'no_stream');
        const result = await store.appendToStream(name, [big(1)], 0);
        expect(result.nextExpectedRevision).toBe(1);
        expect((await store.readStream(name)).map((e) => (e.data as { n: number }).n)).toEqual([0, 1]);
      });
    });

    describe('reading a stream', () => {
      it('pages forwards and backwards from a revision', async () => {
        const name = stream();
        await store.appendToStream(name, events(10), 'no_stream');
        expect((await store.readStream(name, { maxCount: 4 })).map((e) => e.revision)).toEqual([0, 1, 2, 3]);
        expect((await store.readStream(name, { fromRevision: 4, maxCount: 4 })).map((e) => e.revision)).toEqual([4, 5, 6, 7]);
        expect((await store.readStream(name, { fromRevision: 8, maxCount: 4 })).map((e) => e.revision)).toEqual([8, 9]);
        expect((await store.readStream(name, { direction: 'backwards', maxCount: 3 })).map((e) => e.revision)).toEqual([9, 8, 7]);
        expect((await store.readStream(name, { direction: 'backwards', fromRevision: 2 })).map((e) => e.revision)).toEqual([2, 1, 0]);
      });

      it('does not mix streams that share a prefix', async () => {
        const name = stream();
        await store.appendToStream(name, events(2), 'no_stream');
        await store.appendToStream(`${name}0`, events(3), 'no_stream');
        expect(await store.readStream(name)).toHaveLength(2);
        expect(await store.readStream(name, { direction: 'backwards' })).toHaveLength(2);
      });

      it('given an unknown stream, then reading yields an empty page', async () => {
        expect(await store.readStream(stream())).toEqual([]);
        expect(await store.streamRevision(stream())).toBeNull();
      });
    });

    describe('reading the log', () => {
      it('returns events after a position in commit order, paged, across streams', async () => {
        const start = await headOrStart();
        const a = stream();
        const b = stream();
        await store.appendToStream(a, events(2), 'no_stream');
        await store.appendToStream(b, events(2), 'no_stream');
        await store.appendToStream(a, events(1, 'Third', 2), 1);
        const page1 = await store.readAll({ after: start, maxCount: 3 });
        const page2 = await store.readAll({ after: page1[2].position, maxCount: 3 });
        const mine = [...page1, ...page2].filter((e) => e.streamId === a || e.streamId === b);
        expect(mine.map((e) => `${e.streamId === a ? 'a' : 'b'}${e.revision}`)).toEqual(['a0', 'a1', 'b0', 'b1', 'a2']);
        const positions = [...page1, ...page2].map((e) => e.position);
        for (let i = 1; i < positions.length; i++) expect(positions[i] > positions[i - 1]).toBe(true);
        expect(await store.headPosition()).toBe(mine[4].position);
      });
    });

    describe('subscribing to the log', () => {
      it('catches up, says so, then delivers live events in order', async () => {
        const start = await headOrStart();
        const name = stream();
        await store.appendToStream(name, events(3), 'no_stream');
        const subscription = store.subscribeToAll({ after: start });
        const received: SubscriptionMessage[] = [];
        const reading = (async () => {
          for await (const message of subscription) {
            received.push(message);
            if (message.kind === 'event' && message.event.streamId === name && message.event.revision === 5) break;
          }
        })();
        await waitUntil(() => received.some((m) => m.kind === 'caughtUp'));
        await store.appendToStream(name, events(3, 'Live', 3), 2);
        await reading;
        const kinds = received
          .filter((m) => m.kind === 'caughtUp' || (m.kind === 'event' && m.event.streamId === name))
          .map((m) => (m.kind === 'event' ? m.event.revision : 'caughtUp'));
        expect(kinds).toEqual([0, 1, 2, 'caughtUp', 3, 4, 5]);
        await subscription.close();
      });

      it('given appends racing with catch-up, then every event arrives exactly once, in position order', async () => {
        const start = await headOrStart();
        const streams = Array.from({ length: 5 }, () => stream());
        await Promise.all(streams.map((s) => store.appendToStream(s, events(20), 'no_stream')));
        const subscription = store.subscribeToAll({ after: start });
        const seen: RecordedEvent[] = [];
        const total = streams.length * 60;
        const reading = (async () => {
          for await (const message of subscription) {
            if (message.kind === 'event' && streams.includes(message.event.streamId)) seen.push(message.event);
            if (seen.length === total) break;
          }
        })();
        await Promise.all(
          streams.map(async (s) => {
            for (let i = 0; i < 20; i++) await store.appendToStream(s, events(2, 'Racing', 20 + i * 2), 19 + i * 2);
          }),
        );
        await reading;
        await subscription.close();
        const keys = seen.map((e) => `${e.streamId}/${e.revision}`);
        expect(new Set(keys).size).toBe(total);
        for (let i = 1; i < seen.length; i++) expect(seen[i].position > seen[i - 1].position).toBe(true);
        for (const s of streams) {
          expect(seen.filter((e) => e.streamId === s).map((e) => e.revision)).toEqual(Array.from({ length: 60 }, (_, i) => i));
        }
      });

      it('starts strictly after the given position', async () => {
        const name = stream();
        await store.appendToStream(name, events(4), 'no_stream');
        const [, second] = await store.readStream(name);
        const subscription = store.subscribeToAll({ after: second.position });
        const first: RecordedEvent[] = [];
        for await (const message of subscription) {
          if (message.kind === 'event' && message.event.streamId === name) first.push(message.event);
          if (message.kind === 'caughtUp') break;
        }
        expect(first.map((e) => e.revision)).toEqual([2, 3]);
      });

      it('given types, then only events of those types arrive, and checkpoints cover the others in order', async () => {
        const start = await headOrStart();
        const name = stream();
        const mixed: NewEvent[] = ['Kept', 'Skipped', 'Skipped', 'Kept', 'Skipped'].map((type, i) => ({ type, data: { i } }));
        await store.appendToStream(name, mixed, 'no_stream');
        const written = await store.readStream(name);
        const subscription = store.subscribeToAll({ after: start, types: ['Kept'] });
        const received: SubscriptionMessage[] = [];
        for await (const message of subscription) {
          received.push(message);
          if (message.kind === 'caughtUp') break;
        }
        await subscription.close();
        const events = received.flatMap((m) => (m.kind === 'event' ? [m.event] : []));
        expect(events.every((event) => event.type === 'Kept')).toBe(true);
        expect(events.filter((event) => event.streamId === name).map((event) => event.revision)).toEqual([0, 3]);
        const positions = received.flatMap((m) => (m.kind === 'event' ? [m.event.position] : m.kind === 'checkpoint' ? [m.position] : []));
        for (let i = 1; i < positions.length; i++) expect(positions[i] > positions[i - 1]).toBe(true);
        // The last skipped event is covered before the subscription says it caught up.
        expect(positions.at(-1)! >= written[4].position).toBe(true);
      });

      it('given types, when a live event of another type is appended, then a checkpoint at its position arrives', async () => {
        const name = stream();
        const subscription = store.subscribeToAll({ after: await headOrStart(), types: ['Kept'] });
        const received: SubscriptionMessage[] = [];
        let appended: bigint | undefined;
        const reading = (async () => {
          for await (const message of subscription) {
            received.push(message);
            if (message.kind === 'checkpoint' && appended !== undefined && message.position >= appended) break;
          }
        })();
        await waitUntil(() => received.some((m) => m.kind === 'caughtUp'));
        appended = (await store.appendToStream(name, [{ type: 'Skipped', data: {} }], 'no_stream')).position;
        await reading;
        await subscription.close();
        expect(received.some((m) => m.kind === 'event')).toBe(false);
      });

      it('when closed while waiting for live events, then the iteration ends', async () => {
        const subscription = store.subscribeToAll({ after: await headOrStart() });
        const reading = (async () => {
          let count = 0;
          for await (const message of subscription) if (message.kind === 'event') count++;
          return count;
        })();
        await new Promise((resolve) => setTimeout(resolve, 50));
        await subscription.close();
        await expect(reading).resolves.toBe(0);
      });
    });

    it('reports itself healthy', async () => {
      expect((await store.health()).ok).toBe(true);
    });
  });
}

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
