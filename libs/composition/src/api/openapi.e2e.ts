import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { loadConfig } from '#platform/config';
import { createService, type Service } from './app';
import { routesOf, type RouteInfo } from './openapi';

const ERROR_ENVELOPE = '#/components/schemas/ErrorEnvelope';
const NO_BODY = new Set([204, 205, 302]);

describe('the OpenAPI document at /v1/openapi.json', () => {
  let dataDir: string;
  let service: Service;
  let document: any;
  let routes: RouteInfo[];
  const operations: { key: string; path: string; method: string; operation: any }[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'api-openapi-'));
    service = await createService({
      config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }),
      adminToken: 'admin-token-for-tests-0123456789',
      runProjections: false,
    });
    const response = await service.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(response.statusCode).toBe(200);
    document = response.json();
    routes = routesOf(service.app);
    for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries(item))
        operations.push({ key: `${method.toUpperCase()} ${path}`, path, method, operation });
    }
  });
  afterAll(async () => {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const v1 = () => operations.filter((o) => o.path.startsWith('/v1/'));

  it('lists every route Nest registers under /v1, and only routes that exist', () => {
    const registered = routes.filter((r) => r.path.startsWith('/v1/')).map((r) => `${r.method.toUpperCase()} ${r.path}`);
    const documented = v1().map((o) => o.key);
    expect(documented.sort()).toEqual([...new Set(registered)].sort());
    const fastify = service.app.getHttpAdapter().getInstance();
    // A page path is Fastify's wildcard.
    const routeOf = (path: string) => path.replace('/{pagePath}', '/*').replace(/\{([^}]+)\}/g, ':$1');
    const unroutable = v1().filter((o) => !fastify.hasRoute({ method: o.method.toUpperCase() as 'GET', url: routeOf(o.path) }));
    expect(unroutable.map((o) => o.key)).toEqual([]);
  });

  it('describes every body and query DTO with its members', () => {
    const empty: string[] = [];
    for (const route of routes.filter((r) => r.path.startsWith('/v1/'))) {
      const { operation } = operations.find((o) => o.key === `${route.method.toUpperCase()} ${route.path}`)!;
      if (route.body) {
        const reference = operation.requestBody?.content?.['application/json']?.schema?.$ref as string | undefined;
        const schema = reference && document.components.schemas[reference.replace('#/components/schemas/', '')];
        if (!schema || Object.keys(schema.properties ?? {}).length === 0) empty.push(`${route.operationId} body ${route.body.name}`);
      }
      if (route.query) {
        const query = (operation.parameters ?? []).filter((p: any) => p.in === 'query');
        if (query.length === 0 || query.some((p: any) => !p.schema?.type)) empty.push(`${route.operationId} query ${route.query.name}`);
      }
    }
    expect(empty).toEqual([]);
  });

  it('gives query parameters their types, limits and defaults', () => {
    const members = operations.find((o) => o.key === 'GET /v1/orgs/{organizationId}/members')!.operation.parameters;
    const byName = Object.fromEntries(members.map((p: any) => [p.name, p]));
    expect(byName.limit).toMatchObject({
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 0, maximum: 1000, default: 50 },
    });
    expect(byName.page).toMatchObject({ in: 'query', schema: { type: 'string', maxLength: 2048 } });
    expect(byName.sort.schema).toMatchObject({ enum: ['joinedAt', 'lastSeenAt', 'name'], default: 'joinedAt' });
    expect(byName.organizationId).toMatchObject({
      in: 'path',
      required: true,
      schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
    });
  });

  it('gives request bodies their required members, limits, enums and nullable members', () => {
    const schemas = document.components.schemas;
    expect(schemas.CreateOrganizationBody).toMatchObject({
      required: ['title'],
      properties: { title: { type: 'string', minLength: 2, maxLength: 255 } },
    });
    expect(schemas.UpdateMemberBody).toMatchObject({
      required: ['role'],
      properties: { role: { enum: expect.arrayContaining(['admin', 'read']), nullable: true } },
    });
    expect(schemas.UpdateOrganizationBody.required).toBeUndefined();
    expect(schemas.UpdateOrganizationBody.properties.hostname).toMatchObject({ nullable: true, pattern: expect.any(String) });
  });

  it('gives every operation a success response with its schema (or none for 204, 205 and redirects)', () => {
    const missing: string[] = [];
    for (const { key, operation } of operations) {
      const successes = Object.entries<any>(operation.responses).filter(([status]) => Number(status) >= 200 && Number(status) < 400);
      if (successes.length === 0) missing.push(`${key}: no success response`);
      for (const [status, response] of successes) {
        const content = response.content ?? {};
        const schema = Object.values<any>(content)[0]?.schema;
        if (!NO_BODY.has(Number(status)) && !schema) missing.push(`${key} ${status}: no schema`);
        if (!response.description) missing.push(`${key} ${status}: no description`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('gives every /v1 operation its error responses, each with the error envelope', () => {
    const missing: string[] = [];
    for (const { key, operation } of v1()) {
      const isPublic = Array.isArray(operation.security) && operation.security.length === 0;
      const expected = [
        429,
        503,
        ...(isPublic ? [] : [401, 403]),
        ...(key.includes('{') ? [404] : []),
        ...(operation.requestBody ? [400, 413, 415] : []),
      ];
      for (const status of expected) {
        if (operation.responses[status]?.content?.['application/json']?.schema?.$ref !== ERROR_ENVELOPE) missing.push(`${key} ${status}`);
      }
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        if (Number(status) >= 400 && response.content?.['application/json']?.schema?.$ref !== ERROR_ENVELOPE)
          missing.push(`${key} ${status} not the envelope`);
      }
    }
    expect(missing).toEqual([]);
    expect(document.components.schemas.ErrorEnvelope).toMatchObject({
      required: ['error'],
      properties: { error: { required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' } } } },
    });
  });

  it('describes the opaque bearer tokens, and marks public routes as needing none', () => {
    expect(document.security).toEqual([{ bearer: [] }]);
    expect(document.components.securitySchemes.bearer).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'opaque',
      description: expect.stringContaining('/v1/admin/users'),
    });
    const publicOperations = operations
      .filter((o) => Array.isArray(o.operation.security) && o.operation.security.length === 0)
      .map((o) => o.key);
    expect(publicOperations.sort()).toEqual(
      [
        'GET /health',
        'GET /metrics',
        'GET /v1/integrations/{integrationName}/assets/{hash}',
        'GET /v1/orgs/{organizationId}/sites/{siteId}/published',
        'GET /v1/orgs/{organizationId}/sso',
        'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/pdf/download',
        'GET /v1/spaces/{spaceId}/content/files/{fileId}/download',
        'GET /v1/sso/saml/{providerId}/start',
        'POST /v1/sso/saml/{providerId}/acs',
      ].sort(),
    );
  });

  it('takes the SAML response as a form as well as JSON', () => {
    const acs = operations.find((o) => o.key === 'POST /v1/sso/saml/{providerId}/acs')!.operation;
    expect(Object.keys(acs.requestBody.content).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
  });

  it('documents If-Match on conditional writes, with 412', () => {
    const patch = operations.find((o) => o.key === 'PATCH /v1/orgs/{organizationId}')!.operation;
    expect(patch.parameters).toContainEqual(expect.objectContaining({ name: 'If-Match', in: 'header' }));
    expect(patch.responses[412]).toBeDefined();
  });

  it('documents Idempotency-Key on every /v1 POST, with 422, and on no other method', () => {
    const takes = (operation: any) => (operation.parameters ?? []).some((p: any) => p.in === 'header' && p.name === 'Idempotency-Key');
    const posts = v1().filter(({ key }) => key.startsWith('POST '));
    expect(posts.filter(({ operation }) => !takes(operation) || !operation.responses[422]).map(({ key }) => key)).toEqual([]);
    expect(
      v1()
        .filter(({ key, operation }) => !key.startsWith('POST ') && takes(operation))
        .map(({ key }) => key),
    ).toEqual([]);
  });

  it('has schemas that compile, every reference resolving', () => {
    const ajv = new Ajv({ strict: false });
    addFormats(ajv);
    ajv.addFormat('url', true);
    ajv.addSchema({ ...document, $id: 'openapi' });
    const broken: string[] = [];
    for (const name of Object.keys(document.components.schemas)) {
      try {
        ajv.compile({ $ref: `openapi#/components/schemas/${name}` });
      } catch (error) {
        broken.push(`${name}: ${(error as Error).message}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
