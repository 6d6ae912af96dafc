import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '#platform/config';
import { log } from '#platform/logging';
import { healthReport, type HealthReport } from './health';
import type { Runtime } from './runtime.module';

/**
 * The probes of a process without the API's HTTP server (the projector, the integrations worker):
 *
 * - `GET /health/live`: 200 as soon as the process listens, without touching the stores: the
 *   process is up and its event loop answers. What an orchestrator restarts on.
 * - `GET /health/ready` (and `GET /health`, its alias): the health report, 200 when `ready` says
 *   so (the stores answer, and whatever else the process needs), else 503.
 * - `GET /metrics`: the process's Prometheus metrics.
 *
 * The endpoint can listen before the process has its runtime (`runtime()` answers null meanwhile):
 * liveness answers at once, readiness and metrics answer 503 until the runtime exists.
 */
export interface HealthEndpointOptions {
  /** The process, as messages name it: `projector`, `integrations worker`. */
  name: string;
  host: string;
  /** 0: any free port. */
  port: number;
  runtime(): Runtime | null;
  /** Whether a report means ready (200). */
  ready(report: HealthReport): boolean;
  /** Sees every report made (the projector sets its `projection_caught_up` gauge). */
  onReport?(report: HealthReport): void;
}

export interface HealthEndpoint {
  /** The port it listens on (the real one when 0 was asked for). */
  port: number;
  /** `http://host:port`. */
  url: string;
  close(): Promise<void>;
}

const PATHS = ['/health', '/health/live', '/health/ready', '/metrics'];

/** Ready when every store answers: what a process that serves what is there needs (the API in distributed mode, the worker). */
export function storesAnswer(report: HealthReport): boolean {
  return report.stores.eventStore.ok && report.stores.readStore.ok && report.stores.blobStore.ok;
}

/** A port from the environment variable `name`, else `fallback`; anything but an integer in 0..65535 is a configuration error. */
export function portFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535) {
    throw new ConfigError(`${name} must be an integer in 0..65535, got '${raw}'`);
  }
  return value;
}

export async function startHealthEndpoint(options: HealthEndpointOptions): Promise<HealthEndpoint> {
  const server = createServer((request, response) => {
    handle(request, response, options).catch((error: unknown) => {
      log.error({ err: error, url: request.url }, `${options.name} endpoint failed`);
      if (!response.headersSent) sendJson(response, 500, { error: { code: 500, message: 'internal error' } });
      else response.destroy();
    });
  });
  await listen(server, options.port, options.host);
  const port = (server.address() as AddressInfo).port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return { port, url: `http://${host}:${port}`, close: () => closeServer(server) };
}

async function handle(request: IncomingMessage, response: ServerResponse, options: HealthEndpointOptions): Promise<void> {
  const path = (request.url ?? '/').split('?')[0];
  if (!PATHS.includes(path)) {
    sendJson(response, 404, { error: { code: 404, message: `no route ${path}: the ${options.name} serves GET ${PATHS.join(', ')}` } });
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('allow', 'GET, HEAD');
    sendJson(response, 405, { error: { code: 405, message: `${request.method} is not allowed on ${path}: use GET` } });
    return;
  }
  if (path === '/health/live') {
    sendJson(response, 200, { status: 'live' });
    return;
  }
  const runtime = options.runtime();
  if (!runtime) {
    sendJson(response, 503, { error: { code: 503, message: `the ${options.name} is starting: its stores are not open yet` } });
    return;
  }
  let report: HealthReport | null = null;
  let failure: string | null = null;
  try {
    report = await healthReport(runtime); // also refreshes the lag gauges
    options.onReport?.(report);
  } catch (error) {
    // A store that does not answer can make the report itself fail (the runner asks for the head).
    failure = String((error as Error)?.message ?? error);
    log.warn({ err: error }, `${options.name} health report failed`);
  }
  if (path !== '/metrics') {
    if (report) sendJson(response, options.ready(report) ? 200 : 503, report);
    else sendJson(response, 503, { error: { code: 503, message: `the ${options.name} cannot report its health: ${failure}` } });
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
