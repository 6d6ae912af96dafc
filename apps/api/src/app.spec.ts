import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../libs/platform/src/config';
import { createService, type Service } from './app';

describe('the API while its read models are being rebuilt', () => {
  let dataDir: string;
  let service: Service;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'api-start-'));
    service = await createService({ config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), adminToken: 'admin-token-for-tests-0123456789' });
  });
  afterAll(async () => {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('given projections not caught up, then /v1 answers 503 with Retry-After and /health says starting', async () => {
    const response = await service.app.inject({ method: 'GET', url: '/v1/user' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.json()).toEqual({ error: { code: 503, message: 'the service is starting: read models are being rebuilt from the event log' } });
    const health = await service.app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(503);
    expect(health.json()).toMatchObject({ status: 'starting', projections: { caughtUp: false } });
  });

  it('given projections caught up, then /v1 applies its usual rules and /health is ok', async () => {
    await service.runtime.runner!.start();
    await service.runtime.runner!.whenCaughtUp();
    expect((await service.app.inject({ method: 'GET', url: '/v1/user' })).statusCode).toBe(401);
    expect((await service.app.inject({ method: 'GET', url: '/health' })).json()).toMatchObject({ status: 'ok' });
  });
});
