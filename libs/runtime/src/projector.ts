import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Gauge } from 'prom-client';
import { ConfigError, type AppConfig } from '../../platform/src/config';
import { systemClock, type Clock } from '../../platform/src/clock';
import { log } from '../../platform/src/logging';
import type { Projection } from '../../read-store/src/projections/projection';
import type { Reactor, Services } from './reactor';
import { healthReport, type HealthReport } from './health';
import { createRuntime, type Runtime } from './runtime.module';
import { openStores, type Stores } from './stores';

export const DEFAULT_PROJECTOR_PORT = 8081;

/** `PROJECTOR_PORT` (default 8081): where the projector serves `/health` and `/metrics`. */
export function projectorPort(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.PROJECTOR_PORT;
  if (raw === undefined || raw === '') return DEFAULT_PROJECTOR_PORT;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535) {
    throw new ConfigError(`PROJECTOR_PORT must be an integer in 0..65535, got '${raw}'`);
  }
  return value;
}

export interface Projector {
  runtime: Runtime;
  /** The port the health endpoint listens on (the real one when 0 was asked for). */
  port: number;
  /** `http://host:port` of the health endpoint. */
  url: string;
  /** Stops the projector (same as aborting its signal); resolves once everything is closed. */
  stop(): Promise<void>;
  /** Resolves once the projector has stopped, rejects when stopping failed. */
  readonly closed: Promise<void>;
}

/**
 * The projector process's work (docs/architecture.md, Modes; docs/read-side.md, Projections): opens the configured stores, runs every
 * projection against the log through a `ProjectionRunner` (checkpoint committed with the
 * read-model writes, resubscribing with backoff after a drop), runs every reactor once the
 * projections have caught up (each with its own checkpoint), and serves `GET /health` and
 * `GET /metrics` on a small HTTP endpoint. API processes in distributed mode neither project nor
 * react: they wait for their writes (and the cascades they set off) by polling the checkpoints.
 *
 * The health endpoint listens before the runner catches up, so it answers 503 `starting` while a
 * long log is replayed and 200 once caught up. Aborting `signal` (or calling `stop()`) stops the
 * runner, closes the HTTP server and closes the stores (given ones included: they are handed over).
 */
export async function runProjector(options: {
  config: AppConfig;
  stores?: Stores;
  signal?: AbortSignal;
  /** Defaults to `PROJECTOR_PORT`, else 8081. */
  port?: number;
  clock?: Clock;
  /** Every projection of the service (the composition root's). */
  projections: readonly Projection[];
  /** Every reactor of the service (the composition root's); none when absent. */
  reactors?: readonly Reactor[];
  /** The contexts' services the reactions call (a Nest container), built on this runtime; closed on stop. */
  services?: (runtime: Runtime) => Promise<Services & { close(): Promise<void> }>;
  /** Options for each ReactorRunner (tests: shorter backoff). */
  reactorOptions?: Parameters<typeof createRuntime>[0]['reactorOptions'];
}): Promise<Projector> {
  const { config, signal } = options;
  const port = options.port ?? projectorPort();
  const stores = options.stores ?? (await openStores(config));
  let runtime: Runtime;
  try {
    runtime = createRuntime({
      config,
      stores,
      clock: options.clock ?? systemClock,
      projections: options.projections,
      reactors: options.reactors ?? [],
      reactorOptions: options.reactorOptions,
      runProjections: true,
    });
  } catch (error) {
    await stores.close().catch(() => undefined);
    throw error;
  }
  const runner = runtime.runner!;
  const caughtUpGauge = new Gauge({
    name: 'projection_caught_up',
    help: '1 once the projections have applied everything that existed when they subscribed, else 0',
    registers: [runtime.metrics.registry],
  });

  const server = createServer((request, response) => {
    handle(request, response, runtime, caughtUpGauge).catch((error: unknown) => {
      log.error({ err: error, url: request.url }, 'projector endpoint failed');
      if (!response.headersSent) sendJson(response, 500, { error: { code: 500, message: 'internal error' } });
      else response.destroy();
    });
  });

  let services: Awaited<ReturnType<NonNullable<typeof options.services>>> | null = null;
  try {
    if (options.services) {
      services = await options.services(runtime);
      runtime.bindServices(services.get.bind(services));
    }
    await listen(server, port, config.host);
    await runner.start();
  } catch (error) {
    await closeServer(server).catch(() => undefined);
    await runtime.stopReactors().catch(() => undefined);
    await runner.stop().catch(() => undefined);
    await services?.close().catch(() => undefined);
    await stores.close().catch(() => undefined);
    throw error;
  }
  const actualPort = (server.address() as AddressInfo).port;

  let resolveClosed!: () => void;
  let rejectClosed!: (error: unknown) => void;
  const closed = new Promise<void>((resolve, reject) => {
    resolveClosed = resolve;
    rejectClosed = reject;
  });
  closed.catch(() => undefined); // observed by whoever awaits it; never an unhandled rejection
  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      signal?.removeEventListener('abort', onAbort);
      const errors: unknown[] = [];
      await runtime.stopReactors().catch((e: unknown) => errors.push(e));
      await runtime.work.close().catch((e: unknown) => errors.push(e));
      await runner.stop().catch((e: unknown) => errors.push(e));
      await services?.close().catch((e: unknown) => errors.push(e));
      await closeServer(server).catch((e: unknown) => errors.push(e));
      await stores.close().catch((e: unknown) => errors.push(e));
      if (errors.length === 0) return resolveClosed();
      const error = errors.length === 1 ? errors[0] : new AggregateError(errors, 'the projector did not stop cleanly');
      rejectClosed(error);
      throw error;
    })();
    return stopping;
  };
  function onAbort(): void {
    stop().catch((error: unknown) => log.error({ err: error }, 'the projector did not stop cleanly'));
  }
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });

  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return { runtime, port: actualPort, url: `http://${host}:${actualPort}`, stop, closed };
}

async function handle(request: IncomingMessage, response: ServerResponse, runtime: Runtime, caughtUp: Gauge): Promise<void> {
  const path = (request.url ?? '/').split('?')[0];
  if (path !== '/health' && path !== '/metrics') {
    sendJson(response, 404, { error: { code: 404, message: `no route ${path}: the projector serves GET /health and GET /metrics` } });
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('allow', 'GET, HEAD');
    sendJson(response, 405, { error: { code: 405, message: `${request.method} is not allowed on ${path}: use GET` } });
    return;
  }
  let report: HealthReport | null = null;
  let failure: string | null = null;
  try {
    report = await healthReport(runtime); // also refreshes the lag gauge
    caughtUp.set(report.projections.caughtUp ? 1 : 0);
  } catch (error) {
    // A store that does not answer can make the report itself fail (the runner asks for the head).
    failure = String((error as Error)?.message ?? error);
    log.warn({ err: error }, 'projector health report failed');
  }
  if (path === '/health') {
    if (report) sendJson(response, report.status === 'ok' ? 200 : 503, report);
    else sendJson(response, 503, { error: { code: 503, message: `the projector cannot report its health: ${failure}` } });
    return;
  }
  const registry = runtime.metrics.registry;
  const body = await registry.metrics();
  response.writeHead(200, { 'content-type': registry.contentType, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  response.end(request.method === 'HEAD' ? undefined : body);
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  response.end(response.req?.method === 'HEAD' ? undefined : text);
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}
