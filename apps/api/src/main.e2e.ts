import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTypeScriptMain } from '../../../test/support/child-process';
import { loadConfig } from '#platform/config';
import { createService, type Service } from '#composition/api/app';

const MAIN = join(__dirname, 'main.ts');
const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
const SECRETS_KEY = 'ab'.repeat(32);
// Unreachable on purpose: a configuration error must stop the start before anything connects.
const DISTRIBUTED = { EVENTSTORE_URL: 'kurrentdb://127.0.0.1:1?tls=false', MONGODB_URL: 'mongodb://127.0.0.1:1/docs?replicaSet=rs0' };

/** Runs the API's entry point as its own process with exactly `env` (plus PATH). */
const runMain = (env: Record<string, string>) => runTypeScriptMain(MAIN, { LOG_LEVEL: 'info', ...env });

function fatalMessage(output: string): string | undefined {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: string; msg: string })
    .find((line) => line.level === 'fatal')?.msg;
}

describe('the API refuses a configuration it cannot run with, exiting 78 (EX_CONFIG) so that a restart policy does not hide it', () => {
  let dataDir: string;
  beforeAll(() => (dataDir = mkdtempSync(join(tmpdir(), 'api-main-'))));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('given an ADMIN_TOKEN shorter than 16 characters, then it exits 78 saying so', async () => {
    const { code, output } = await runMain({ DATA_DIR: dataDir, ADMIN_TOKEN: 'too-short' });
    expect(code).toBe(78);
    expect(fatalMessage(output)).toBe('could not start: ADMIN_TOKEN must be at least 16 characters');
  }, 60_000);

  it('given distributed mode without ADMIN_TOKEN, then it exits 78 naming it, before connecting to any store', async () => {
    const { code, output } = await runMain({ DATA_DIR: dataDir, ...DISTRIBUTED, INTEGRATION_SECRETS_KEY: SECRETS_KEY });
    expect(code).toBe(78);
    expect(fatalMessage(output)).toMatch(
      /^could not start: the API needs ADMIN_TOKEN \(at least 16 characters\) in distributed mode: every process must share them/,
    );
  }, 60_000);

  it('given distributed mode without INTEGRATION_SECRETS_KEY, then it exits 78 rather than sealing secrets with a key of its own', async () => {
    const { code, output } = await runMain({ DATA_DIR: dataDir, ...DISTRIBUTED, ADMIN_TOKEN });
    expect(code).toBe(78);
    expect(fatalMessage(output)).toMatch(
      /^could not start: the API needs INTEGRATION_SECRETS_KEY \(64 hex characters\) in distributed mode/,
    );
  }, 60_000);

  it('given distributed mode with a malformed INTEGRATION_SECRETS_KEY, then it exits 78 saying what the key must be', async () => {
    const { code, output } = await runMain({ DATA_DIR: dataDir, ...DISTRIBUTED, ADMIN_TOKEN, INTEGRATION_SECRETS_KEY: 'abc' });
    expect(code).toBe(78);
    expect(fatalMessage(output)).toBe('could not start: INTEGRATION_SECRETS_KEY must be 32 bytes, as 64 hex characters or base64');
  }, 60_000);
});

describe('the API’s liveness and readiness', () => {
  let dataDir: string;
  let service: Service;
  afterEach(async () => {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('given an API that projects (embedded) and has not caught up, then it is live but not ready, and ready once caught up', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'api-probes-'));
    service = await createService({ config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), adminToken: ADMIN_TOKEN });

    const live = await service.app.inject({ method: 'GET', url: '/health/live' });
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ status: 'live' });
    const starting = await service.app.inject({ method: 'GET', url: '/health/ready' });
    expect(starting.statusCode).toBe(503);
    expect(starting.json()).toMatchObject({ status: 'starting', projections: { caughtUp: false } });

    await service.runtime.runner!.start();
    await service.runtime.runner!.whenCaughtUp();
    const ready = await service.app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'ok' });
  });

  it('given an API that does not project (a distributed replica) with the read models behind the log, then it is ready: it serves what is applied so far, while /health still reports the lag', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'api-probes-'));
    service = await createService({
      config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }),
      adminToken: ADMIN_TOKEN,
      runProjections: false,
    });
    await service.runtime.stores.events.appendToStream('probe-1', [{ type: 'ProbeWritten', data: {} }], 'no_stream');

    const ready = await service.app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'starting', projections: { caughtUp: false } });
    expect((await service.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(503);
  });

  it('given a store that does not answer, then it is still live but not ready', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'api-probes-'));
    service = await createService({
      config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }),
      adminToken: ADMIN_TOKEN,
      runProjections: false,
    });
    jest.spyOn(service.runtime.stores.reads, 'health').mockResolvedValue({ ok: false, detail: 'connection refused' });

    expect((await service.app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
    const ready = await service.app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ status: 'unavailable', stores: { readStore: { ok: false, detail: 'connection refused' } } });
  });
});
