import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import {
  ANY,
  CancelledError,
  DeadlineExceededError,
  NO_STREAM,
  STREAM_EXISTS,
  UnavailableError,
  UnknownError,
  WrongExpectedVersionError,
  type AllStreamResolvedEvent,
} from '@kurrent/kurrentdb-client';
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';
import type { RecordedEvent, SubscriptionMessage } from '../event-store.port';
import { EventStoreInputError, EventStoreUnavailableError, WrongExpectedRevisionError } from '../errors';
import { eventStoreContract } from '../event-store.contract';
import { configuredUrl, describeWith } from '../../../../test/support/external-services';
import { KurrentDbEventStore, createKurrentDbEventStore, sharedKurrentDbClients } from './kurrentdb-event-store';
import { GRPC_STATUS, subscriptionError, toPortError } from './kurrentdb-errors';
import { decodeRecorded, toAppendResult, toStreamState } from './kurrentdb-records';
import { KurrentDbSubscription, type KurrentDbSubscriptionSource } from './kurrentdb-subscription';
import { SharedClients } from './shared-clients';

/** Nothing listens on port 1: connections are refused at once. */
const UNREACHABLE = 'kurrentdb://127.0.0.1:1?tls=false';

describe('KurrentDbEventStore without a server', () => {
  describe('connection string', () => {
    it.each([
      '',
      '   ',
      'not a url',
      'http://localhost:2113',
      'kurrentdb://',
      'kurrentdb://localhost:abc',
      'kurrentdb://localhost:2113?tls=maybe',
    ])('rejects %p with EventStoreInputError', (url) => {
      expect(() => KurrentDbEventStore.connect(url)).toThrow(EventStoreInputError);
      expect(() => createKurrentDbEventStore(url)).toThrow(EventStoreInputError);
    });

    it('names the problem without echoing the credentials', () => {
      let error: unknown;
      try {
        KurrentDbEventStore.connect('kurrentdb://admin:s3cret@localhost:notaport?tls=false');
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(EventStoreInputError);
      expect((error as Error).message).toMatch(/invalid KurrentDB connection string/);
      expect((error as Error).message).not.toContain('s3cret');
    });

    it('accepts a well-formed string without connecting, and closes', async () => {
      const store = KurrentDbEventStore.connect('kurrentdb://localhost:2113?tls=false');
      await store.close();
      await store.close();
      await expect(store.readAll()).rejects.toBeInstanceOf(EventStoreUnavailableError);
      await expect(store.appendToStream('test-1', [{ type: 'T', data: {} }], 'any')).rejects.toBeInstanceOf(EventStoreUnavailableError);
      expect(() => store.subscribeToAll()).toThrow(EventStoreUnavailableError);
      expect(await store.health()).toEqual({ ok: false, detail: 'closed' });
    });
  });

  describe('input checks, before any network call', () => {
    let store: KurrentDbEventStore;
    beforeEach(() => {
      store = KurrentDbEventStore.connect(UNREACHABLE);
    });
    afterEach(() => store.close());

    it('rejects bad appends with EventStoreInputError', async () => {
      const one = [{ type: 'T', data: {} }];
      for (const bad of ['', 'nodash', '$system-1', 'a b-c']) {
        await expect(store.appendToStream(bad, one, 'any')).rejects.toBeInstanceOf(EventStoreInputError);
      }
      await expect(store.appendToStream('test-1', [], 'any')).rejects.toBeInstanceOf(EventStoreInputError);
      await expect(store.appendToStream('test-1', one, -1)).rejects.toBeInstanceOf(EventStoreInputError);
      await expect(store.appendToStream('test-1', [{ id: 'not-a-uuid', type: 'T', data: {} }], 'any')).rejects.toThrow(/must be UUIDs/);
      const huge = { type: 'Huge', data: { text: 'x'.repeat(1024 * 1024) } };
      await expect(store.appendToStream('test-1', [huge], 'any')).rejects.toBeInstanceOf(EventStoreInputError);
    });

    it('rejects bad reads with EventStoreInputError', async () => {
      await expect(store.readStream('test-1', { maxCount: 0 })).rejects.toBeInstanceOf(EventStoreInputError);
      await expect(store.readStream('test-1', { fromRevision: -1 })).rejects.toBeInstanceOf(EventStoreInputError);
      await expect(store.readStream('test-1', { fromRevision: 1.5 })).rejects.toBeInstanceOf(EventStoreInputError);
      await expect(store.readStream('test-1', { direction: 'sideways' as never })).rejects.toBeInstanceOf(EventStoreInputError);
      await expect(store.readAll({ maxCount: 10_001 })).rejects.toBeInstanceOf(EventStoreInputError);
      await expect(store.readAll({ after: -1n })).rejects.toBeInstanceOf(EventStoreInputError);
      await expect(store.readAll({ after: 1n << 128n })).rejects.toBeInstanceOf(EventStoreInputError);
      expect(() => store.subscribeToAll({ after: -5n })).toThrow(EventStoreInputError);
    });
  });

  describe('against an unreachable server', () => {
    let store: KurrentDbEventStore;
    beforeEach(() => {
      store = KurrentDbEventStore.connect(UNREACHABLE, { healthTimeoutMs: 5_000 });
    });
    afterEach(() => store.close());

    it('maps the raw gRPC UNAVAILABLE of an append to EventStoreUnavailableError', async () => {
      const error = await store.appendToStream('test-1', [{ type: 'T', data: {} }], 'no_stream').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EventStoreUnavailableError);
      expect((error as EventStoreUnavailableError).cause).toBeDefined();
    });

    it('maps failed reads to EventStoreUnavailableError', async () => {
      await expect(store.readStream('test-1')).rejects.toBeInstanceOf(EventStoreUnavailableError);
      await expect(store.streamRevision('test-1')).rejects.toBeInstanceOf(EventStoreUnavailableError);
      await expect(store.readAll({ maxCount: 5 })).rejects.toBeInstanceOf(EventStoreUnavailableError);
      await expect(store.headPosition()).rejects.toBeInstanceOf(EventStoreUnavailableError);
    });

    it('reports itself unhealthy', async () => {
      const health = await store.health();
      expect(health.ok).toBe(false);
      expect(health.detail).toMatch(/kurrentdb/i);
    });

    it('ends a subscription with EventStoreUnavailableError', async () => {
      const subscription = store.subscribeToAll();
      const consume = async () => {
        for await (const message of subscription) void message;
      };
      await expect(consume()).rejects.toBeInstanceOf(EventStoreUnavailableError);
    });
  });

  describe('error mapping', () => {
    it('maps a WrongExpectedVersionError shaped like the client one, with a current revision', () => {
      const clientError = Object.assign(new Error('Wrong expected version'), {
        type: 'wrong-expected-version',
        streamName: 'space-1',
        expectedState: 3n,
        actualState: 5n,
      });
      const error = toPortError(clientError, 'space-1', 3);
      expect(error).toBeInstanceOf(WrongExpectedRevisionError);
      expect(error).toMatchObject({ stream: 'space-1', expected: 3, actual: 5 });
    });

    it('maps a missing stream to actual no_stream', () => {
      const clientError = { type: 'wrong-expected-version', streamName: 'space-1', expectedState: STREAM_EXISTS, actualState: NO_STREAM };
      expect(toPortError(clientError, 'space-1', 'stream_exists')).toMatchObject({
        name: 'WrongExpectedRevisionError',
        expected: 'stream_exists',
        actual: 'no_stream',
      });
      expect(toPortError({ ...clientError, actualState: -1n }, 'space-1', 0)).toMatchObject({ actual: 'no_stream' });
    });

    it('maps the client class itself, taking stream and expectation from it when not given', () => {
      const clientError = new WrongExpectedVersionError(undefined, { streamName: 'page-9', expected: NO_STREAM, current: 0n });
      expect(toPortError(clientError)).toMatchObject({
        name: 'WrongExpectedRevisionError',
        stream: 'page-9',
        expected: 'no_stream',
        actual: 0,
      });
      const exact = new WrongExpectedVersionError(undefined, { streamName: 'page-9', expected: 7n, current: 9n });
      expect(toPortError(exact)).toMatchObject({ expected: 7, actual: 9 });
    });

    it('maps a raw gRPC error with code 14 to EventStoreUnavailableError', () => {
      const raw = { code: 14, details: 'No connection established', metadata: {} };
      const error = toPortError(raw, 'space-1', 'any');
      expect(error).toBeInstanceOf(EventStoreUnavailableError);
      expect(error.message).toContain('No connection established');
      expect((error as EventStoreUnavailableError).cause).toBe(raw);
      expect(toPortError(Object.assign(new Error('14 UNAVAILABLE: refused'), { code: 14 }))).toBeInstanceOf(EventStoreUnavailableError);
    });

    it("maps the client's UnavailableError, deadline and not-leader errors to EventStoreUnavailableError", () => {
      expect(toPortError(new UnavailableError(undefined, 'gone'))).toBeInstanceOf(EventStoreUnavailableError);
      expect(toPortError({ type: 'deadline-exceeded', message: 'late' })).toBeInstanceOf(EventStoreUnavailableError);
      expect(toPortError({ code: 4, message: 'DEADLINE_EXCEEDED' })).toBeInstanceOf(EventStoreUnavailableError);
      expect(toPortError({ type: 'not-leader', message: 'go to the leader' })).toBeInstanceOf(EventStoreUnavailableError);
      expect(toPortError(new UnknownError(undefined, 'Could not recognize Server Is Not Ready'))).toBeInstanceOf(
        EventStoreUnavailableError,
      );
    });

    it.each([
      ['CANCELLED', GRPC_STATUS.CANCELLED],
      ['DEADLINE_EXCEEDED', GRPC_STATUS.DEADLINE_EXCEEDED],
      ['RESOURCE_EXHAUSTED', GRPC_STATUS.RESOURCE_EXHAUSTED],
      ['UNAVAILABLE', GRPC_STATUS.UNAVAILABLE],
    ])("maps gRPC %s (%i), raw or wrapped in the client's UnknownError, to EventStoreUnavailableError", (name, code) => {
      const raw = Object.assign(new Error(`${code} ${name}: no answer`), { code, details: 'no answer' });
      expect(toPortError(raw)).toBeInstanceOf(EventStoreUnavailableError);
      expect(toPortError(new UnknownError(raw as never))).toBeInstanceOf(EventStoreUnavailableError);
    });

    it('maps gRPC UNKNOWN (2) to EventStoreUnavailableError only when its cause is the transport', () => {
      const unknown = (details: string) => Object.assign(new Error(`2 UNKNOWN: ${details}`), { code: GRPC_STATUS.UNKNOWN, details });
      for (const transport of [
        'client error (Connect)',
        'read ECONNRESET',
        'Connection reset by peer',
        'Received RST_STREAM with code 2',
        'write after end',
      ]) {
        expect(toPortError(unknown(transport))).toBeInstanceOf(EventStoreUnavailableError);
        expect(toPortError(new UnknownError(unknown(transport) as never))).toBeInstanceOf(EventStoreUnavailableError);
      }
      const other = unknown('Unexpected error in the projection subsystem');
      expect(toPortError(other)).toBe(other);
      expect(toPortError(new UnknownError(other as never))).not.toBeInstanceOf(EventStoreUnavailableError);
    });

    it("maps the read bridge's UnknownError, which has no code, by the status or transport failure its message names", () => {
      for (const message of [
        'Unmapped gRPC error: code: Deadline expired before operation could complete, message: ',
        'Unmapped gRPC error: code: DeadlineExceeded, message: timed out',
        'Unmapped gRPC error: code: Some resource has been exhausted, message: too many requests',
        'Unmapped gRPC error: code: ResourceExhausted, message: ',
        'Unmapped gRPC error: code: The operation was cancelled, message: ',
        'Unmapped gRPC error: code: The service is currently unavailable, message: ',
        'gRPC connection error: transport error',
      ]) {
        expect(toPortError(new UnknownError(undefined, message))).toBeInstanceOf(EventStoreUnavailableError);
      }
      expect(
        toPortError(new UnknownError(undefined, 'Unmapped gRPC error: code: Client specified an invalid argument')),
      ).not.toBeInstanceOf(EventStoreUnavailableError);
    });

    it("maps the client's deadline, cancelled and unavailable classes without a code", () => {
      expect(toPortError(new DeadlineExceededError(undefined, 'late'))).toBeInstanceOf(EventStoreUnavailableError);
      expect(toPortError(new CancelledError(undefined, 'cancelled'))).toBeInstanceOf(EventStoreUnavailableError);
      expect(toPortError(new UnavailableError(undefined, 'down'))).toBeInstanceOf(EventStoreUnavailableError);
    });

    it('does not take another status for unavailable because its message says so', () => {
      const invalid = Object.assign(new Error('3 INVALID_ARGUMENT: unavailable feature'), { code: 3 });
      expect(toPortError(invalid)).toBe(invalid);
    });

    it('maps an append over the server limit to EventStoreInputError', () => {
      expect(toPortError({ type: 'maximum-append-size-exceeded', message: 'too big' })).toBeInstanceOf(EventStoreInputError);
    });

    it('keeps port errors and passes other errors through', () => {
      const input = new EventStoreInputError('bad');
      expect(toPortError(input)).toBe(input);
      const other = new Error('access denied');
      expect(toPortError(other)).toBe(other);
      expect(toPortError('weird')).toBeInstanceOf(Error);
      expect(toPortError(new UnknownError(undefined, 'something else'))).not.toBeInstanceOf(EventStoreUnavailableError);
    });

    it('turns any subscription failure into EventStoreUnavailableError', () => {
      expect(subscriptionError({ code: 14 })).toBeInstanceOf(EventStoreUnavailableError);
      const denied = subscriptionError(new Error('access denied'));
      expect(denied).toBeInstanceOf(EventStoreUnavailableError);
      expect(denied.message).toContain('access denied');
    });

    it("maps expected revisions to the client's stream states", () => {
      expect(toStreamState('no_stream')).toBe(NO_STREAM);
      expect(toStreamState('any')).toBe(ANY);
      expect(toStreamState('stream_exists')).toBe(STREAM_EXISTS);
      expect(toStreamState(0)).toBe(0n);
      expect(toStreamState(41)).toBe(41n);
    });
  });

  describe('append results', () => {
    const at = (revision: number, position: bigint): RecordedEvent => ({
      id: randomUUID(),
      streamId: 'space-1',
      revision,
      position,
      type: 'Thing',
      data: {},
      metadata: {},
      recordedAt: new Date(0).toISOString(),
    });
    const fakeStore = (events: RecordedEvent[], head: bigint | null = null) => {
      const reads: unknown[] = [];
      return {
        reads,
        readStream: async (_stream: string, options?: { fromRevision?: number }) => {
          reads.push(options);
          return events.filter((e) => e.revision >= (options?.fromRevision ?? 0)).slice(0, 1);
        },
        streamRevision: async () => (events.length === 0 ? null : events[events.length - 1].revision),
        headPosition: async () => head,
      };
    };

    it('returns the revision and packed position of a written append', async () => {
      const result = await toAppendResult(
        { success: true, nextExpectedRevision: 4n, position: { commit: 90n, prepare: 80n } },
        'space-1',
        3,
        fakeStore([]),
      );
      expect(result).toEqual({ nextExpectedRevision: 4, position: (90n << 64n) | 80n });
    });

    it('given an idempotent repeat acknowledged without a position, then it succeeds at the position read back', async () => {
      const store = fakeStore([at(0, 10n), at(1, 20n), at(2, 30n)]);
      const result = await toAppendResult({ success: true, nextExpectedRevision: 1n, position: undefined }, 'space-1', 0, store);
      expect(result).toEqual({ nextExpectedRevision: 1, position: 20n, alreadyAppended: true });
      expect(store.reads).toEqual([{ fromRevision: 1, maxCount: 1 }]);
      const noPosition = { commit: (1n << 64n) - 1n, prepare: (1n << 64n) - 1n };
      await expect(
        toAppendResult({ success: true, nextExpectedRevision: 2n, position: noPosition }, 'space-1', 'any', store),
      ).resolves.toEqual({
        nextExpectedRevision: 2,
        position: 30n,
        alreadyAppended: true,
      });
    });

    it('given a repeat whose event cannot be read back, then it succeeds at the head of the log', async () => {
      const result = await toAppendResult({ success: true, nextExpectedRevision: 5n }, 'space-1', 4, fakeStore([], 700n));
      expect(result).toEqual({ nextExpectedRevision: 5, position: 700n, alreadyAppended: true });
    });

    it('turns an unsuccessful result into a conflict at the revision the stream reports', async () => {
      const error = await toAppendResult(
        { success: false, nextExpectedRevision: -1n },
        'space-1',
        0,
        fakeStore([at(0, 10n), at(1, 20n)]),
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WrongExpectedRevisionError);
      expect(error).toMatchObject({ stream: 'space-1', expected: 0, actual: 1 });
    });
  });

  describe('one client per connection string', () => {
    it('shares the client, counts its users and disposes it when the last one releases it', async () => {
      const disposed: Array<[string, boolean]> = [];
      let created = 0;
      const clients = new SharedClients<string>(
        (key) => `${key}#${++created}`,
        async (client, usedGrpc) => {
          disposed.push([client, usedGrpc]);
        },
      );
      const a = clients.acquire('k');
      const b = clients.acquire('k');
      const other = clients.acquire('other');
      expect(a.client).toBe('k#1');
      expect(b.client).toBe(a.client);
      expect(clients.users('k')).toBe(2);
      b.usedGrpc();
      await a.release();
      await a.release();
      expect(clients.users('k')).toBe(1);
      expect(disposed).toEqual([]);
      await b.release();
      expect(disposed).toEqual([['k#1', true]]);
      expect(clients.users('k')).toBe(0);
      expect(clients.acquire('k').client).toBe('k#3');
      await other.release();
      expect(disposed).toContainEqual(['other#2', false]);
    });

    it('keeps nothing when the connection string is refused', () => {
      const before = sharedKurrentDbClients.size;
      expect(() => KurrentDbEventStore.connect('not a url')).toThrow(EventStoreInputError);
      expect(sharedKurrentDbClients.size).toBe(before);
    });

    it('gives stores on one connection string one client, and closes its channel with the last store', async () => {
      const url = 'kurrentdb://127.0.0.1:1?tls=false&connectionName=sharing-test';
      const first = KurrentDbEventStore.connect(url);
      const second = KurrentDbEventStore.connect(url);
      const clientOf = (store: KurrentDbEventStore) => (store as unknown as { client: unknown }).client;
      expect(clientOf(first)).toBe(clientOf(second));
      expect(sharedKurrentDbClients.users(url)).toBe(2);
      await expect(first.appendToStream('test-1', [{ type: 'T', data: {} }], 'any')).rejects.toBeInstanceOf(EventStoreUnavailableError);
      const client = clientOf(first) as { getChannel(): Promise<{ getConnectivityState(connect: boolean): number }> };
      await first.close();
      expect(sharedKurrentDbClients.users(url)).toBe(1);
      await second.close();
      expect(sharedKurrentDbClients.users(url)).toBe(0);
      const SHUTDOWN = 4; // grpc-js connectivityState.SHUTDOWN
      expect((await client.getChannel()).getConnectivityState(false)).toBe(SHUTDOWN);
    });
  });

  describe('decoding', () => {
    it('converts a client record into the port shape', () => {
      const created = new Date('2025-01-02T03:04:05.678Z');
      const event = decodeRecorded(record('space-1', 2, 300n, { created, metadata: { actor: 'u1' } }));
      expect(event).toEqual({
        id: expect.any(String),
        streamId: 'space-1',
        revision: 2,
        position: (300n << 64n) | 300n,
        type: 'Thing',
        data: { n: 2 },
        metadata: { actor: 'u1' },
        recordedAt: '2025-01-02T03:04:05.678Z',
      });
    });

    it('defaults absent or non-object metadata to {} and parses JSON held as bytes', () => {
      expect(decodeRecorded(record('space-1', 0, 1n, { metadata: undefined }))?.metadata).toEqual({});
      expect(decodeRecorded(record('space-1', 0, 1n, { metadata: new Uint8Array() }))?.metadata).toEqual({});
      expect(decodeRecorded(record('space-1', 0, 1n, { metadata: Buffer.from('{"a":1}') }))?.metadata).toEqual({ a: 1 });
      expect(decodeRecorded(record('space-1', 0, 1n, { data: Buffer.from('[1,2]'), isJson: false }))?.data).toEqual([1, 2]);
    });

    it('yields null for a record without a log position', () => {
      expect(decodeRecorded(undefined)).toBeNull();
      expect(decodeRecorded(record('space-1', 0, 1n, { position: undefined }))).toBeNull();
      const max = (1n << 64n) - 1n;
      expect(decodeRecorded(record('space-1', 0, 1n, { position: { commit: max, prepare: max } }))).toBeNull();
    });
  });
});

describe('KurrentDbSubscription', () => {
  it('delivers buffered events, then one caughtUp, then live events, in order', async () => {
    const source = new FakeSource();
    const subscription = new KurrentDbSubscription(source.asSource(), undefined);
    for (const [revision, position] of [
      [0, 10n],
      [1, 20n],
      [2, 30n],
    ] as const)
      source.write(resolved('space-1', revision, position));
    source.emit('caughtUp', {});
    source.write(resolved('space-1', 3, 40n));
    source.emit('caughtUp', {});
    source.write(resolved('space-1', 4, 50n));
    const messages = await take(subscription, 6);
    expect(messages.map(label)).toEqual(['0', '1', '2', `caughtUp:${packed(30n)}`, '3', '4']);
    await subscription.close();
  });

  it('starts strictly after the given position, drops repeats and system events', async () => {
    const source = new FakeSource();
    const subscription = new KurrentDbSubscription(source.asSource(), packed(20n));
    source.write(resolved('space-1', 0, 10n));
    source.write(resolved('space-1', 1, 20n));
    source.write(resolved('space-1', 2, 30n));
    source.write(resolved('space-1', 3, 35n, '$metadata'));
    source.write(resolved('$stats-127.0.0.1:2113', 0, 36n));
    source.write(resolved('space-1', 2, 30n));
    source.write({ event: undefined });
    source.write(resolved('space-1', 3, 40n));
    source.emit('caughtUp', {});
    const messages = await take(subscription, 3);
    expect(messages.map(label)).toEqual(['2', '3', `caughtUp:${packed(40n)}`]);
    await subscription.close();
  });

  it('given types, delivers only events of those types and a checkpoint at each event of another type', async () => {
    const source = new FakeSource();
    const subscription = new KurrentDbSubscription(source.asSource(), undefined, undefined, ['Wanted']);
    source.write(resolved('space-1', 0, 10n, 'Wanted'));
    source.write(resolved('space-1', 1, 20n, 'Other'));
    source.write(resolved('space-1', 2, 30n, 'Other'));
    source.emit('caughtUp', {});
    source.write(resolved('space-1', 3, 40n, 'Wanted'));
    source.write(resolved('space-1', 4, 50n, 'Other'));
    const messages = await take(subscription, 6);
    expect(messages.map(label)).toEqual([
      '0',
      `checkpoint:${packed(20n)}`,
      `checkpoint:${packed(30n)}`,
      `caughtUp:${packed(30n)}`,
      '3',
      `checkpoint:${packed(50n)}`,
    ]);
    await subscription.close();
  });

  it('reports caughtUp at the start position, or null, when nothing was delivered', async () => {
    const fromStart = new FakeSource();
    const first = new KurrentDbSubscription(fromStart.asSource(), undefined);
    fromStart.emit('caughtUp', {});
    expect(await take(first, 1)).toEqual([{ kind: 'caughtUp', position: null }]);
    await first.close();

    const fromPosition = new FakeSource();
    const second = new KurrentDbSubscription(fromPosition.asSource(), packed(70n));
    fromPosition.emit('caughtUp', {});
    expect(await take(second, 1)).toEqual([{ kind: 'caughtUp', position: packed(70n) }]);
    await second.close();
  });

  it('ends the iteration with EventStoreUnavailableError when the connection drops', async () => {
    const source = new FakeSource();
    const subscription = new KurrentDbSubscription(source.asSource(), undefined);
    source.write(resolved('space-1', 0, 10n));
    const iterator = subscription[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ kind: 'event' });
    const pending = iterator.next();
    source.emit('error', Object.assign(new Error('14 UNAVAILABLE: Connection dropped'), { code: 14 }));
    await expect(pending).rejects.toBeInstanceOf(EventStoreUnavailableError);
    expect(source.unsubscribed).toBe(1);
    expect(source.destroyed).toBe(true);
  });

  it('reports an error that happened before anyone read', async () => {
    const source = new FakeSource();
    const subscription = new KurrentDbSubscription(source.asSource(), undefined);
    source.emit('error', Object.assign(new Error('access denied'), { type: 'access-denied' }));
    await expect(take(subscription, 1)).rejects.toBeInstanceOf(EventStoreUnavailableError);
  });

  it('treats the server ending the stream as a drop', async () => {
    const source = new FakeSource();
    const subscription = new KurrentDbSubscription(source.asSource(), undefined);
    source.write(resolved('space-1', 0, 10n));
    source.end();
    await expect(take(subscription, 5)).rejects.toThrow(/ended without being closed/);
  });

  it('when closed while a read is pending, resolves it as done and releases the call once', async () => {
    const source = new FakeSource();
    const released: KurrentDbSubscription[] = [];
    const subscription = new KurrentDbSubscription(source.asSource(), undefined, (s) => released.push(s));
    const iterator = subscription[Symbol.asyncIterator]();
    const pending = iterator.next();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await subscription.close();
    await expect(pending).resolves.toEqual({ done: true, value: undefined });
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined });
    await subscription.close();
    expect(source.unsubscribed).toBe(1);
    expect(released).toEqual([subscription]);
  });

  it('releases the call when the reader stops early', async () => {
    const source = new FakeSource();
    const subscription = new KurrentDbSubscription(source.asSource(), undefined);
    source.write(resolved('space-1', 0, 10n));
    source.write(resolved('space-1', 1, 20n));
    for await (const message of subscription) {
      expect(message.kind).toBe('event');
      break;
    }
    expect(source.unsubscribed).toBe(1);
    expect(source.destroyed).toBe(true);
  });

  it('does not drain the client stream ahead of its reader', async () => {
    const source = new FakeSource();
    const subscription = new KurrentDbSubscription(source.asSource(), undefined);
    for (let i = 0; i < 200; i++) source.write(resolved('space-1', i, BigInt(i + 1) * 10n));
    const iterator = subscription[Symbol.asyncIterator]();
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) seen.push(label((await iterator.next()).value as SubscriptionMessage));
    // Only the stream's own high-water marks (16 each side) sit between the reader and the rest.
    expect(source.writableLength + source.readableLength).toBeGreaterThanOrEqual(200 - 5 - 2 * 16);
    for (let i = 5; i < 200; i++) seen.push(label((await iterator.next()).value as SubscriptionMessage));
    expect(seen).toEqual(Array.from({ length: 200 }, (_, i) => String(i)));
    await subscription.close();
  });
});

/**
 * The adapter against a real KurrentDB: `EVENTSTORE_URL`, or a throwaway container when a container
 * runtime exists. Skipped otherwise (the global setup prints why).
 */
describeWith('kurrentdb')('KurrentDB adapter', () => {
  let url = '';
  let container: StartedTestContainer | undefined;

  beforeAll(async () => {
    const configured = configuredUrl('kurrentdb');
    if (configured) {
      url = configured;
    } else {
      container = await new GenericContainer('docker.kurrent.io/kurrent-latest/kurrentdb:25.1')
        .withEnvironment({
          KURRENTDB_INSECURE: 'true',
          KURRENTDB_RUN_PROJECTIONS: 'None',
          KURRENTDB_MEM_DB: 'true',
        })
        .withExposedPorts(2113)
        .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCodeMatching((status) => status >= 200 && status < 300))
        .withStartupTimeout(120_000)
        .start();
      url = `kurrentdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`;
    }
    await waitUntilWritable(url);
  }, 180_000);

  afterAll(async () => {
    await container?.stop();
  });

  eventStoreContract('kurrentdb', async () => KurrentDbEventStore.connect(url));
});

/** `/health/live` answers before a single node has elected itself leader: wait until an append succeeds. */
async function waitUntilWritable(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const store = KurrentDbEventStore.connect(url);
    try {
      await store.appendToStream(`readiness-${randomUUID().replace(/-/g, '')}`, [{ type: 'ReadinessProbed', data: {} }], 'no_stream');
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      await store.close();
    }
  }
}

/** A stand-in for the client's subscription stream: an object-mode stream with `unsubscribe()`. */
class FakeSource extends PassThrough {
  unsubscribed = 0;
  constructor() {
    super({ objectMode: true, highWaterMark: 16 });
  }
  async unsubscribe(): Promise<void> {
    this.unsubscribed += 1;
  }
  asSource(): KurrentDbSubscriptionSource {
    return this as unknown as KurrentDbSubscriptionSource;
  }
}

type ClientRecord = NonNullable<AllStreamResolvedEvent['event']>;

function record(
  streamId: string,
  revision: number,
  position: bigint,
  overrides: Partial<Record<keyof ClientRecord, unknown>> = {},
): ClientRecord {
  return {
    streamId,
    id: randomUUID(),
    revision: BigInt(revision),
    type: 'Thing',
    isJson: true,
    data: { n: revision },
    metadata: {},
    created: new Date(),
    position: { commit: position, prepare: position },
    ...overrides,
  } as ClientRecord;
}

function resolved(streamId: string, revision: number, position: bigint, type = 'Thing'): AllStreamResolvedEvent {
  return { event: record(streamId, revision, position, { type }) };
}

function packed(position: bigint): bigint {
  return (position << 64n) | position;
}

function label(message: SubscriptionMessage): string {
  if (message.kind === 'caughtUp') return `caughtUp:${String(message.position)}`;
  return message.kind === 'checkpoint' ? `checkpoint:${String(message.position)}` : String(message.event.revision);
}

async function take(subscription: AsyncIterable<SubscriptionMessage>, count: number): Promise<SubscriptionMessage[]> {
  const messages: SubscriptionMessage[] = [];
  if (count === 0) return messages;
  for await (const message of subscription) {
    messages.push(message);
    if (messages.length === count) break;
  }
  return messages;
}
