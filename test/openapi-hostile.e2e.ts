/**
 * OpenAPI specs that cost more than their size says, through HTTP against the embedded service:
 * a 3 KB document whose schemas reference each other twice over (validating it would walk 2^26
 * copies), a document whose external `$ref` never answers (processing runs over its time budget),
 * and a processing the service is killed in the middle of, twice. Each ends `failed` with a code and
 * a message, for good: a restart does not run it again, and the service answers throughout.
 * Ordinary specs, shared and recursive schemas included, still process.
 *
 * External references are served by a local server on 127.0.0.1: `/never-<n>` takes the request
 * and never answers, and the test knows when each request arrived.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cleanUpServices, ok, startService, type RunningService } from './support/service';

/** Parsing and validating one source, on a worker thread; long enough for a thread to start on a loaded machine. */
const PROCESSING_TIME_MS = 12_000;

let service: RunningService;
let server: Server;
let origin: string;
let token: string;
let organizationId: string;
let counter = 0;
const slug = (name: string) => `${name}-${++counter}`;
const specs = () => `/v1/orgs/${organizationId}/openapi`;
const call = (method: string, path: string, body?: unknown) => service.request(method, path, { token, body });
/** Requests the local server took, by path, and who waits for the next one. */
const arrived = new Map<string, number>();
const waiting = new Map<string, Array<() => void>>();
function nextRequest(path: string): Promise<void> {
  return new Promise((resolve) => waiting.set(path, [...(waiting.get(path) ?? []), resolve]));
}

async function startRefServer(): Promise<void> {
  server = createServer((request: IncomingMessage, response) => {
    const path = request.url ?? '';
    arrived.set(path, (arrived.get(path) ?? 0) + 1);
    for (const resolve of waiting.get(path)?.splice(0) ?? []) resolve();
    // Never answers: the request stays open until the client gives up or dies.
    if (path.startsWith('/never')) return void request.on('close', () => response.destroy());
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const info = { openapi: '3.0.3', info: { title: 'Hostile', version: '1' } };
const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const returning = (schema: unknown) => ({
  get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema } } } } },
});

/** 26 schemas, each with two references to the next: about 3 KB, 2^26 copies once inlined. */
function doublingChain(levels: number): string {
  const schemas: Record<string, unknown> = { [`S${levels}`]: { type: 'string' } };
  for (let level = 0; level < levels; level++)
    schemas[`S${level}`] = { type: 'object', properties: { a: schemaRef(`S${level + 1}`), b: schemaRef(`S${level + 1}`) } };
  return JSON.stringify({ ...info, paths: { '/chain': returning(schemaRef('S0')) }, components: { schemas } });
}

/** A spec whose one response is another document, at `path` on the local server. */
const externalRef = (path: string) =>
  JSON.stringify({ ...info, paths: { '/x': { get: { responses: { '200': { $ref: `${origin}${path}` } } } } } });

/** The spec, read through GET, once its processing has ended (`complete`: with a version, or failed with `lastProcessErrorCode`). */
async function finished(specSlug: string): Promise<any> {
  const giveUpAt = Date.now() + 120_000;
  while (Date.now() < giveUpAt) {
    const spec = ok(await call('GET', `${specs()}/${specSlug}`)).body;
    if (spec.processingState === 'complete') return spec;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the spec ${specSlug} never finished processing`);
}

async function create(specSlug: string, text: string): Promise<void> {
  ok(await call('POST', specs(), { slug: specSlug, source: { text } }), 201);
}

beforeAll(async () => {
  await startRefServer();
  service = await startService({
    env: {
      OPENAPI_ALLOW_PRIVATE_NETWORKS: 'true',
      OPENAPI_FETCH_TIMEOUT_MS: '120000',
      OPENAPI_PROCESSING_TIME_MS: String(PROCESSING_TIME_MS),
    },
  });
  token = (await service.createUser('ada@hostile-openapi.example', 'Ada')).token;
  organizationId = ok(await call('POST', '/v1/orgs', { title: 'Hostile APIs' }), 201).body.id;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await cleanUpServices();
});

describe('a 3 KB spec whose schemas each reference the next one twice, 26 levels deep', () => {
  const specSlug = slug('doubling');
  let failed: any;

  it('is recorded failed with DOCUMENT_TOO_COMPLEX, naming the problem, while GET /health answers 200', async () => {
    const text = doublingChain(26);
    expect(text.length).toBeLessThan(4000);
    await create(specSlug, text);
    // While it is being processed: the thread that answers requests is not the one that processes it.
    expect((await service.request('GET', '/health')).status).toBe(200);
    failed = await finished(specSlug);
    expect(failed).toMatchObject({
      processingState: 'complete',
      lastProcessErrorCode: 'PARSE_ERROR',
      lastProcessedErrors: [{ code: 'DOCUMENT_TOO_COMPLEX' }],
      lastProcessErrorMessage: expect.stringMatching(
        /^the spec is too complex to validate: its \$refs, inlined as validation inlines them, make about [\d,]+ values, more than the 5,000,000 allowed/,
      ),
    });
    expect(failed.lastVersion).toBeUndefined();
  });

  it('stays failed with the same reason after a restart, which does not process it again, and /health answers', async () => {
    await service.restart();
    expect((await service.request('GET', '/health')).status).toBe(200);
    // Specs are processed in the order they were given: once a spec given after the restart is done, the reactor has been past the hostile one.
    const later = slug('after-restart');
    await create(later, JSON.stringify({ ...info, paths: {} }));
    expect(await finished(later)).toMatchObject({ processingState: 'complete' });
    expect(ok(await call('GET', `${specs()}/${specSlug}`)).body).toEqual(failed);
  });
});

describe('processing over its time budget (OPENAPI_PROCESSING_TIME_MS)', () => {
  it('a spec whose external $ref never answers is recorded failed with PROCESSING_BUDGET_EXCEEDED, while GET /health answers 200', async () => {
    const specSlug = slug('never');
    const requested = nextRequest('/never-budget');
    await create(specSlug, externalRef('/never-budget'));
    await requested;
    expect((await service.request('GET', '/health')).status).toBe(200);
    expect(await finished(specSlug)).toMatchObject({
      processingState: 'complete',
      lastProcessErrorCode: 'PARSE_ERROR',
      lastProcessedErrors: [{ code: 'PROCESSING_BUDGET_EXCEEDED', message: expect.any(String) }],
      lastProcessErrorMessage: `parsing and validating the OpenAPI document took longer than its budget of ${PROCESSING_TIME_MS / 1000} s`,
    });
  });
});

describe('ordinary specs still process', () => {
  it('a small spec is processed to complete, with a version', async () => {
    const specSlug = slug('small');
    await create(specSlug, JSON.stringify({ ...info, paths: { '/pets': returning({ type: 'array', items: { type: 'string' } }) } }));
    expect(await finished(specSlug)).toMatchObject({ processingState: 'complete', lastVersion: expect.any(String) });
  });

  it('a schema referenced from many operations, and recursive schemas, are processed to complete', async () => {
    const specSlug = slug('shared');
    const schemas = {
      Pet: {
        type: 'object',
        properties: { name: { type: 'string' }, parent: schemaRef('Pet'), owner: schemaRef('Owner'), error: schemaRef('Error') },
      },
      Owner: { type: 'object', properties: { pets: { type: 'array', items: schemaRef('Pet') } } },
      Error: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' } } },
    };
    const paths = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [
        `/pets${i}`,
        {
          get: {
            responses: {
              '200': { description: 'ok', content: { 'application/json': { schema: schemaRef('Pet') } } },
              default: { description: 'error', content: { 'application/json': { schema: schemaRef('Error') } } },
            },
          },
        },
      ]),
    );
    await create(specSlug, JSON.stringify({ ...info, paths, components: { schemas } }));
    expect(await finished(specSlug)).toMatchObject({ processingState: 'complete', lastVersion: expect.any(String) });
    const content = ok(await call('GET', `${specs()}/${specSlug}/versions/latest/content`)).body.filesystem;
    expect(content.components.schemas.Pet.properties.parent).toEqual(schemaRef('Pet'));
  });
});

describe('a processing the service is killed in the middle of', () => {
  it('is started again once after a restart, and at the next restart recorded failed with PROCESSING_INTERRUPTED instead of a third run', async () => {
    const specSlug = slug('interrupted');
    let requested = nextRequest('/never-crash');
    await create(specSlug, externalRef('/never-crash'));
    await requested;
    expect(ok(await call('GET', `${specs()}/${specSlug}`)).body.processingState).toBe('progress');
    // Killed while the spec is processed, as a crash would: the second start runs it again.
    requested = nextRequest('/never-crash');
    await service.kill();
    await service.restart();
    await requested;
    expect(arrived.get('/never-crash')).toBe(2);
    await service.kill();
    await service.restart();
    expect(await finished(specSlug)).toMatchObject({
      processingState: 'complete',
      lastProcessErrorCode: 'PARSE_ERROR',
      lastProcessedErrors: [{ code: 'PROCESSING_INTERRUPTED', message: expect.any(String) }],
      lastProcessErrorMessage: expect.stringContaining('it was started 2 times and never finished'),
    });
    expect(arrived.get('/never-crash')).toBe(2);
    expect((await service.request('GET', '/health')).status).toBe(200);
  });
});
