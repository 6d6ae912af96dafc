import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';
import { CHECKPOINTS } from '#read-store/projections/projection-runner';
import { readReactorProgress } from './reactor-checkpoint';
import { loadConfig, type AppConfig } from '#platform/config';
import { configureLogging } from '#platform/logging';
import { DEFAULT_PROJECTOR_PORT, projectorPort, runProjector, type Projector } from './projector';
import { openStores, type Stores } from './stores';
import { createRuntime } from './runtime.module';
import type { Projection } from '#read-store/projections/projection';
import { systemClock } from '#platform/clock';
import type { Decider } from '#event-store/decider';
import type { Reactor } from './reactor';
import { healthReport } from './health';

/** Registers a user (the users projection shows it); a reactor then welcomes them, once. */
const userDecider: Decider<{ userId: string }, ReturnType<typeof userCreated>, null> = {
  initialState: () => null,
  evolve: () => null,
  decide: ({ userId }) => [userCreated(userId)],
};
const welcomeDecider: Decider<{ userId: string }, { type: 'Welcomed'; data: { userId: string } }, boolean> = {
  initialState: () => false,
  evolve: () => true,
  decide: ({ userId }, welcomed) => (welcomed ? [] : [{ type: 'Welcomed', data: { userId } }]),
};
const welcomer: Reactor = {
  name: 'welcomer',
  handles: ['UserCreated'],
  async react(event, { commands, caller }) {
    const { userId } = event.data as { userId: string };
    await commands.run(`welcome-${userId}`, welcomeDecider, { userId }, { caller });
  },
};

function userCreated(userId: string) {
  return {
    type: 'UserCreated',
    data: { userId, email: `${userId}@b.c`, displayName: userId.toUpperCase(), photoURL: null, createdAt: '2026-01-01T00:00:00.000Z' },
  };
}

/** The users read model, the way a context would project it (runtime knows no context). */
const usersProjection: Projection = {
  name: 'users',
  collections: ['users'],
  handles: ['UserCreated'],
  async apply(event, tx) {
    const { userId, ...user } = event.data as { userId: string };
    await tx.collection('users').put({ _id: userId, ...user });
  },
};
const allProjections = [usersProjection];

/** A plain request without keep-alive, so nothing stays open after the test. */
function call(url: string, method = 'GET'): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('runProjector', () => {
  let directory: string;
  let config: AppConfig;
  let stores: Stores;
  let controller: AbortController;
  let projector: Projector | undefined;

  beforeAll(() => configureLogging('silent'));

  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'projector-'));
    config = loadConfig({ DATA_DIR: directory, HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
    stores = await openStores(config);
    controller = new AbortController();
    projector = undefined;
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    controller.abort();
    await projector?.closed.catch(() => undefined);
    await stores.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('runs on the embedded stores when given no URLs', () => {
    expect(stores.mode).toBe('embedded');
  });

  it('applies events appended before and after it starts, and commits the checkpoint with them', async () => {
    const before = await stores.events.appendToStream('user-u1', [userCreated('u1')], 'no_stream');
    projector = await runProjector({ config, stores, projections: allProjections, signal: controller.signal, port: 0 });
    const runner = projector.runtime.runner!;
    await runner.whenCaughtUp();

    expect(await stores.reads.collection('users').get('u1')).toMatchObject({
      _id: 'u1',
      email: 'u1@b.c',
      displayName: 'U1',
      photoURL: null,
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    expect(await stores.reads.collection(CHECKPOINTS).get('main')).toMatchObject({ _id: 'main', position: before.position.toString() });

    const after = await stores.events.appendToStream('user-u2', [userCreated('u2')], 'no_stream');
    expect(await runner.waitFor(after.position, 5000)).toBe(true);
    expect(await stores.reads.collection('users').get('u2')).toMatchObject({ _id: 'u2', email: 'u2@b.c' });
    expect(await stores.reads.collection(CHECKPOINTS).get('main')).toMatchObject({ position: after.position.toString() });
  });

  it("lets a process that does not project (an API replica) wait for its writes through the projector's checkpoint", async () => {
    projector = await runProjector({ config, stores, projections: allProjections, signal: controller.signal, port: 0 });
    await projector.runtime.runner!.whenCaughtUp();
    const api = createRuntime({ config, stores, clock: systemClock, projections: allProjections, runProjections: false });
    expect(api.runner).toBeNull();

    const { position } = await stores.events.appendToStream('user-u3', [userCreated('u3')], 'no_stream');
    await api.commands.waitFor(position);
    expect(await stores.reads.collection('users').get('u3')).toMatchObject({ _id: 'u3' });
    expect((await api.metrics.readYourWritesTimeouts.get()).values[0]?.value ?? 0).toBe(0);
  });

  it('runs the reactors after the projections, on their own checkpoints, lag in /health and /metrics; an API replica waits for their cascades', async () => {
    await stores.events.appendToStream('user-u0', [userCreated('u0')], 'no_stream');
    projector = await runProjector({
      config,
      stores,
      projections: allProjections,
      signal: controller.signal,
      port: 0,
      reactors: [welcomer],
    });
    const [reactor] = projector.runtime.reactors;
    await projector.runtime.runner!.whenCaughtUp();
    await reactor.whenCaughtUp();
    expect((await stores.events.readStream('welcome-u0')).map((event) => event.type)).toEqual(['Welcomed']);

    // A write through an API replica (no projections, no reactors here) answers once the projector has reacted and projected the reaction.
    const api = createRuntime({
      config,
      stores,
      clock: systemClock,
      projections: allProjections,
      runProjections: false,
      reactors: [welcomer],
    });
    expect(api.reactors).toEqual([]);
    await api.commands.run('user-u5', userDecider, { userId: 'u5' }, { caller: { kind: 'admin', requestId: 'write-u5' } as never });
    const [welcomed] = await stores.events.readStream('welcome-u5');
    expect(welcomed.metadata).toMatchObject({ correlationId: 'write-u5', actor: { type: 'system', id: 'reactor-welcomer' } });
    const checkpoints = stores.reads.collection(CHECKPOINTS);
    const progress = (await readReactorProgress(stores.reads, ['welcomer'])).get('welcomer');
    expect(BigInt(progress!.position!)).toBeGreaterThanOrEqual(welcomed.position);
    expect(BigInt((await checkpoints.get('main'))!.position as string)).toBeGreaterThanOrEqual(welcomed.position);
    expect((await api.metrics.readYourWritesTimeouts.get()).values[0]?.value ?? 0).toBe(0);

    await reactor.waitFor((await stores.events.headPosition())!, 5000);
    const health = JSON.parse((await call(`${projector.url}/health`)).body);
    expect(health.reactors).toEqual([{ name: 'welcomer', caughtUp: true, checkpoint: expect.any(String), lagEvents: 0, failing: null }]);
    const metrics = (await call(`${projector.url}/metrics`)).body;
    expect(metrics).toMatch(/^reactor_lag_events\{reactor="welcomer"\} 0$/m);
    expect(metrics).toMatch(/^reactor_caught_up\{reactor="welcomer"\} 1$/m);
    // The API replica reads the reactors' state from their checkpoints.
    expect((await healthReport(api)).reactors).toEqual([expect.objectContaining({ name: 'welcomer', caughtUp: true, lagEvents: 0 })]);
  });

  it('answers /health with 200 once caught up, in the API health report shape', async () => {
    await stores.events.appendToStream('user-u1', [userCreated('u1')], 'no_stream');
    projector = await runProjector({ config, stores, projections: allProjections, signal: controller.signal, port: 0 });
    await projector.runtime.runner!.whenCaughtUp();

    const response = await call(`${projector.url}/health`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const report = JSON.parse(response.body);
    expect(report).toMatchObject({
      status: 'ok',
      mode: 'embedded',
      stores: { eventStore: { ok: true }, readStore: { ok: true }, blobStore: { ok: true } },
      projections: { caughtUp: true, checkpoint: '1', head: '1', lagEvents: 0, lastError: null },
    });
  });

  it('answers /health with 503 when a store does not answer', async () => {
    const failing: Stores = {
      ...stores,
      blobs: Object.assign(Object.create(stores.blobs), { health: async () => ({ ok: false, detail: 'disk gone' }) }),
    };
    projector = await runProjector({ config, stores: failing, projections: allProjections, signal: controller.signal, port: 0 });
    await projector.runtime.runner!.whenCaughtUp();

    const response = await call(`${projector.url}/health`);
    expect(response.status).toBe(503);
    expect(JSON.parse(response.body)).toMatchObject({ status: 'unavailable', stores: { blobStore: { ok: false, detail: 'disk gone' } } });
  });

  it('answers /health with 503, and still serves /metrics, when the event store stops answering', async () => {
    projector = await runProjector({ config, stores, projections: allProjections, signal: controller.signal, port: 0 });
    await projector.runtime.runner!.whenCaughtUp();
    jest.spyOn(stores.events, 'health').mockRejectedValue(new Error('connection refused'));
    jest.spyOn(stores.events, 'headPosition').mockRejectedValue(new Error('connection refused'));

    const health = await call(`${projector.url}/health`);
    expect(health.status).toBe(503);
    expect(JSON.parse(health.body)).toMatchObject({
      status: 'unavailable',
      stores: { eventStore: { ok: false, detail: 'connection refused' } },
      projections: { caughtUp: false, lastError: 'connection refused' },
    });
    const metrics = await call(`${projector.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain('projection_caught_up');
  });

  it('serves Prometheus metrics, and only GET /health and GET /metrics', async () => {
    projector = await runProjector({ config, stores, projections: allProjections, signal: controller.signal, port: 0 });
    await projector.runtime.runner!.whenCaughtUp();

    const metrics = await call(`${projector.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
    expect(metrics.body).toMatch(/^projection_caught_up 1$/m);
    expect(metrics.body).toMatch(/^projection_lag_events 0$/m);
    expect(metrics.body).toContain('process_cpu_user_seconds_total');

    const unknown = await call(`${projector.url}/v1/orgs`);
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toEqual({ error: { code: 404, message: expect.stringContaining('/v1/orgs') } });
    const post = await call(`${projector.url}/health`, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });

  it('stops the runner, closes the endpoint and closes the stores when its signal is aborted', async () => {
    projector = await runProjector({ config, stores, projections: allProjections, signal: controller.signal, port: 0 });
    const runner = projector.runtime.runner!;
    await runner.whenCaughtUp();
    const { url } = projector;

    controller.abort();
    await projector.closed;

    expect(await runner.waitFor(1_000_000n, 60_000)).toBe(false); // answers at once: the runner no longer runs
    await expect(call(`${url}/health`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect((stores.events as LmdbEventStore).isClosed).toBe(true);
    expect(await stores.reads.health()).toMatchObject({ ok: false });
    expect(await stores.blobs.health()).toMatchObject({ ok: false });
    await expect(projector.stop()).resolves.toBeUndefined(); // idempotent
  });

  it('stops at once when its signal is already aborted', async () => {
    controller.abort();
    projector = await runProjector({ config, stores, projections: allProjections, signal: controller.signal, port: 0 });
    await projector.closed;
    expect((stores.events as LmdbEventStore).isClosed).toBe(true);
  });

  it('closes the stores and fails when its port is taken', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const port = (blocker.address() as AddressInfo).port;
      await expect(runProjector({ config, stores, projections: allProjections, signal: controller.signal, port })).rejects.toMatchObject({
        code: 'EADDRINUSE',
      });
      expect((stores.events as LmdbEventStore).isClosed).toBe(true);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

describe('projectorPort', () => {
  it('reads PROJECTOR_PORT, 8081 by default', () => {
    expect(projectorPort({})).toBe(DEFAULT_PROJECTOR_PORT);
    expect(DEFAULT_PROJECTOR_PORT).toBe(8081);
    expect(projectorPort({ PROJECTOR_PORT: '' })).toBe(8081);
    expect(projectorPort({ PROJECTOR_PORT: '9100' })).toBe(9100);
  });

  it('refuses a value that is not a port', () => {
    for (const bad of ['x', '-1', '65536', '80.5']) {
      expect(() => projectorPort({ PROJECTOR_PORT: bad })).toThrow(/PROJECTOR_PORT must be an integer in 0\.\.65535/);
    }
  });
});
