import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTypeScriptMain } from '../../../test/support/child-process';
import { loadConfig } from '#platform/config';
import { configureLogging } from '#platform/logging';
import { DEFAULT_WORKER_PORT, runWorker, workerPort, type Worker } from './worker';

const MAIN = join(__dirname, 'main.ts');
const DISTRIBUTED = { EVENTSTORE_URL: 'kurrentdb://127.0.0.1:1?tls=false', MONGODB_URL: 'mongodb://127.0.0.1:1/docs?replicaSet=rs0' };

const runMain = (env: Record<string, string>) => runTypeScriptMain(MAIN, env);

/** A plain request without keep-alive, so nothing stays open after the test. */
function call(url: string, method = 'GET'): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('the integrations worker process', () => {
  it('refuses to start in embedded mode, saying the API delivers integration events itself (a configuration error: 78)', async () => {
    const { code, output } = await runMain({});
    expect(code).toBe(78);
    expect(output).toMatch(
      /integrations worker runs in distributed mode only.*API process \(npm start\) delivers integration events itself/,
    );
  }, 60_000);

  it('refuses distributed mode without the keys every process shares, exiting 78 before connecting', async () => {
    const { code, output } = await runMain({ ...DISTRIBUTED });
    expect(code).toBe(78);
    expect(output).toMatch(
      /the integrations worker needs ADMIN_TOKEN \(at least 16 characters\) and INTEGRATION_SECRETS_KEY \(64 hex characters\) in distributed mode/,
    );
  }, 60_000);

  it('takes its port from WORKER_PORT, 8082 by default, and refuses anything but a port', () => {
    expect(workerPort({})).toBe(DEFAULT_WORKER_PORT);
    expect(DEFAULT_WORKER_PORT).toBe(8082);
    expect(workerPort({ WORKER_PORT: '9090' })).toBe(9090);
    expect(() => workerPort({ WORKER_PORT: 'eighty' })).toThrow("WORKER_PORT must be an integer in 0..65535, got 'eighty'");
  });
});

describe('the integrations worker’s probes (on embedded stores)', () => {
  let directory: string;
  let worker: Worker;
  beforeEach(async () => {
    configureLogging('silent');
    directory = mkdtempSync(join(tmpdir(), 'worker-probes-'));
    worker = await runWorker({
      config: loadConfig({ DATA_DIR: directory, HOST: '127.0.0.1', LOG_LEVEL: 'silent' }),
      adminToken: 'admin-token-for-tests-0123456789',
      port: 0,
    });
  });
  afterEach(async () => {
    await worker.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('given the stores answer, then it is live and ready, and serves its metrics', async () => {
    const live = await call(`${worker.url}/health/live`);
    expect(live.status).toBe(200);
    expect(JSON.parse(live.body)).toEqual({ status: 'live' });
    const ready = await call(`${worker.url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toMatchObject({
      stores: { eventStore: { ok: true }, readStore: { ok: true }, blobStore: { ok: true } },
    });
    expect((await call(`${worker.url}/health`)).status).toBe(200);
    const metrics = await call(`${worker.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
  });

  it('given the read models behind the log, then it is still ready: it works from what the projector has applied', async () => {
    await worker.runtime.stores.events.appendToStream('probe-1', [{ type: 'ProbeWritten', data: {} }], 'no_stream');
    const ready = await call(`${worker.url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toMatchObject({ projections: { caughtUp: false } });
  });

  it('given a store that does not answer, then it is live but not ready', async () => {
    jest.spyOn(worker.runtime.stores.events, 'health').mockResolvedValue({ ok: false, detail: 'connection refused' } as never);
    expect((await call(`${worker.url}/health/live`)).status).toBe(200);
    const ready = await call(`${worker.url}/health/ready`);
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({
      status: 'unavailable',
      stores: { eventStore: { ok: false, detail: 'connection refused' } },
    });
  });

  it('serves only its probes and metrics, and only to GET', async () => {
    const unknown = await call(`${worker.url}/v1/orgs`);
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toEqual({
      error: { code: 404, message: 'no route /v1/orgs: the integrations worker serves GET /health, /health/live, /health/ready, /metrics' },
    });
    const post = await call(`${worker.url}/health/live`, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });
});
