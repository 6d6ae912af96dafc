import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModulesContainer } from '@nestjs/core';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { METHOD_METADATA } from '@nestjs/common/constants.js';
import { loadConfig } from '#platform/config';
import { Valid } from '#platform/http/validation';
import { createService, type Service } from './app';

describe('the API while its read models are being rebuilt', () => {
  let dataDir: string;
  let service: Service;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'api-start-'));
    service = await createService({
      config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }),
      adminToken: 'admin-token-for-tests-0123456789',
    });
  });
  afterAll(async () => {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('given projections not caught up, then /v1 answers 503 with Retry-After and /health says starting', async () => {
    const response = await service.app.inject({ method: 'GET', url: '/v1/user' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.json()).toEqual({
      error: { code: 503, message: 'the service is starting: read models are being rebuilt from the event log' },
    });
    const health = await service.app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(503);
    expect(health.json()).toMatchObject({ status: 'starting', projections: { caughtUp: false } });
  });

  it('given projections not caught up, then a published site answers 503 too, and metrics are served', async () => {
    const page = await service.app.inject({ method: 'GET', url: '/sites/site-1/guide' });
    expect(page.statusCode).toBe(503);
    expect(page.headers['retry-after']).toBe('1');
    expect((await service.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
  });

  it('given projections caught up, then /v1 applies its usual rules and /health is ok', async () => {
    await service.runtime.runner!.start();
    await service.runtime.runner!.whenCaughtUp();
    expect((await service.app.inject({ method: 'GET', url: '/v1/user' })).statusCode).toBe(401);
    expect((await service.app.inject({ method: 'GET', url: '/health' })).json()).toMatchObject({ status: 'ok' });
  });
});

describe('the API’s routes', () => {
  let dataDir: string;
  let service: Service;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'api-routes-'));
    service = await createService({
      config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }),
      adminToken: 'admin-token-for-tests-0123456789',
      runProjections: false,
    });
  });
  afterAll(async () => {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Every route handler of every controller, with the parameters Nest extracts for it. */
  function routeParameters(): { route: string; type: number; pipes: unknown[] }[] {
    const found: { route: string; type: number; pipes: unknown[] }[] = [];
    for (const module of service.app.get(ModulesContainer).values()) {
      for (const controller of module.controllers.values()) {
        const prototype = (controller.metatype as { prototype: Record<string, unknown> }).prototype;
        for (const name of Object.getOwnPropertyNames(prototype)) {
          const method = prototype[name];
          if (typeof method !== 'function' || Reflect.getMetadata(METHOD_METADATA, method) === undefined) continue;
          const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller.metatype as object, name) ?? {}) as Record<
            string,
            { pipes?: unknown[] }
          >;
          for (const [key, arg] of Object.entries(args)) {
            found.push({ route: `${controller.name}.${name}`, type: Number(key.split(':')[0]), pipes: arg.pipes ?? [] });
          }
        }
      }
    }
    return found;
  }

  it('validates every body and query parameter (there is no global pipe to fall back on)', () => {
    const parameters = routeParameters();
    const bodiesAndQueries = parameters.filter((p) => p.type === RouteParamtypes.BODY || p.type === RouteParamtypes.QUERY);
    expect(bodiesAndQueries.length).toBeGreaterThan(30);
    expect(bodiesAndQueries.filter((p) => !p.pipes.includes(Valid)).map((p) => p.route)).toEqual([]);
  });
});
