/**
 * OpenAPI specs through HTTP against the embedded service: specs from a URL (served by a local
 * server on 127.0.0.1: OpenAPI 3.0 in JSON, 3.1 and Swagger 2.0 in YAML, an invalid one, a slow one,
 * a redirect loop, an oversize body, an HTTP 500) or from a text; processing observed through GET;
 * versions, their content and raw bytes; slugs; pages whose `openapi-operation` blocks show the
 * spec's latest version; computed pages generated from a spec; and the integration event a space
 * using a spec gets when the spec has a new version.
 *
 * The people: ada administers the organization; cara creates content (role `create`); rita reads.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { joinAs } from './support/members';
import { platformOperation, platformResponseProblem, platformSchemaProblem } from './support/platform-schema';
import { cleanUpServices, expectError, ok, startService, until, type RunningService } from './support/service';

interface Person {
  id: string;
  token: string;
}

let service: RunningService;
let server: Server;
let origin: string;
let organizationId: string;
const people: Record<'ada' | 'cara' | 'rita' | 'olga', Person> = {} as never;
const call = (person: Person | null, method: string, path: string, body?: unknown) =>
  service.request(method, path, { token: person?.token, body });
const specs = () => `/v1/orgs/${organizationId}/openapi`;
let counter = 0;
const slug = (name: string) => `${name}-${++counter}`;

/** What the local server answers at /petstore.json: changed by the tests that update a spec. */
let petstoreSummary = 'List pets';
const petstore = () => ({
  openapi: '3.0.3',
  info: { title: 'Petstore', version: '1.0.0' },
  paths: {
    '/pets/{petId}': {
      parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        summary: petstoreSummary,
        operationId: 'getPet',
        responses: { '200': { description: 'the pet', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } } },
      },
    },
  },
  components: { schemas: { Pet: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } } } } },
});
const SWAGGER_YAML =
  'swagger: "2.0"\ninfo:\n  title: Legacy\n  version: "2"\npaths:\n  /orders:\n    post:\n      summary: Place an order\n      responses:\n        "201":\n          description: placed\n';
const OPENAPI_31_YAML =
  'openapi: 3.1.0\ninfo:\n  title: Webhooks\n  version: "3"\npaths:\n  /events:\n    get:\n      summary: List events\n      responses:\n        "200":\n          description: ok\n';

async function startSpecServer(): Promise<void> {
  server = createServer((request, response) => {
    switch (request.url) {
      case '/petstore.json':
        return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(petstore()));
      case '/swagger.yaml':
        return void response.writeHead(200, { 'content-type': 'application/yaml' }).end(SWAGGER_YAML);
      case '/v31.yaml':
        return void response.writeHead(200, { 'content-type': 'text/yaml' }).end(OPENAPI_31_YAML);
      case '/invalid.json':
        return void response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ openapi: '3.0.3', info: { title: 'No version' }, paths: {} }));
      case '/slow.json': {
        const timer = setTimeout(() => response.end(JSON.stringify(petstore())), 5000);
        response.on('close', () => clearTimeout(timer));
        return;
      }
      case '/loop-a':
        return void response.writeHead(302, { location: '/loop-b' }).end();
      case '/loop-b':
        return void response.writeHead(302, { location: '/loop-a' }).end();
      case '/big.json':
        return void response.writeHead(200, { 'content-type': 'application/json' }).end(`{"openapi":"3.0.3","x":"${'a'.repeat(100_000)}"}`);
      default:
        return void response.writeHead(500).end('broken');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The spec once its processing has ended (`complete`: with a version, or failed with `lastProcessErrorCode`), read through GET. */
async function processed(specSlug: string): Promise<any> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const spec = ok(await call(people.rita, 'GET', `${specs()}/${specSlug}`)).body;
    if (spec.processingState === 'complete') return spec;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the spec ${specSlug} was never processed`);
}

async function createFromUrl(path: string, name = 'spec'): Promise<{ slug: string; created: any; spec: any }> {
  const specSlug = slug(name);
  const created = ok(await call(people.cara, 'POST', specs(), { slug: specSlug, source: { url: `${origin}${path}` } }), 201).body;
  return { slug: specSlug, created, spec: await processed(specSlug) };
}

beforeAll(async () => {
  await startSpecServer();
  service = await startService({
    env: {
      OPENAPI_ALLOW_PRIVATE_NETWORKS: 'true',
      OPENAPI_FETCH_TIMEOUT_MS: '500',
      OPENAPI_MAX_BYTES: '65536',
      OPENAPI_MAX_REDIRECTS: '3',
    },
  });
  for (const name of ['ada', 'cara', 'rita', 'olga'] as const) {
    const created = await service.createUser(`${name}@openapi.example`, name);
    people[name] = { id: created.user.id, token: created.token };
  }
  organizationId = ok(await call(people.ada, 'POST', '/v1/orgs', { title: 'APIs Inc' }), 201).body.id;
  ok(await call(people.olga, 'POST', '/v1/orgs', { title: 'Elsewhere' }), 201);
  await joinAs(service, organizationId, people.ada.token, [
    { token: people.cara.token, email: 'cara@openapi.example', role: 'create' },
    { token: people.rita.token, email: 'rita@openapi.example', role: 'read' },
  ]);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await cleanUpServices();
});

describe('creating and processing specs', () => {
  it('an OpenAPI 3.0 JSON document at a URL is created (201), then processed into its first version', async () => {
    const { slug: specSlug, created, spec } = await createFromUrl('/petstore.json', 'petstore');
    expect(created).toMatchObject({
      object: 'openapi-spec',
      slug: specSlug,
      sourceURL: `${origin}/petstore.json`,
      permissions: { view: true, edit: true },
    });
    expect(['pending', 'progress', 'complete']).toContain(created.processingState);
    expect(spec).toMatchObject({
      processingState: 'complete',
      lastProcessedErrorCount: 0,
      lastVersion: expect.any(String),
      lastProcessedAt: expect.any(String),
      permissions: { view: true, edit: false },
    });
    expect(spec.lastProcessErrorCode).toBeUndefined();
  });

  it('Swagger 2.0 and OpenAPI 3.1 documents in YAML are processed', async () => {
    for (const path of ['/swagger.yaml', '/v31.yaml'])
      expect((await createFromUrl(path)).spec).toMatchObject({ processingState: 'complete', lastVersion: expect.any(String) });
  });

  it('a spec given as text is processed without any fetch', async () => {
    const specSlug = slug('text');
    ok(await call(people.cara, 'POST', specs(), { slug: specSlug, source: { text: SWAGGER_YAML } }), 201);
    const spec = await processed(specSlug);
    expect(spec).toMatchObject({ processingState: 'complete' });
    expect(spec.sourceURL).toBeUndefined();
    expect(ok(await call(people.rita, 'GET', `${specs()}/${specSlug}/versions/latest/content`)).body.filesystem).toMatchObject({
      swagger: '2.0',
      paths: { '/orders': { post: { summary: 'Place an order' } } },
    });
  });

  it('an invalid document fails with PARSE_ERROR (INVALID_SPEC) and a message naming the problem; it has no version', async () => {
    const { slug: specSlug, spec } = await createFromUrl('/invalid.json');
    expect(spec).toMatchObject({
      processingState: 'complete',
      lastProcessErrorCode: 'PARSE_ERROR',
      lastProcessErrorMessage: expect.stringContaining("must have required property 'version'"),
      lastProcessedErrors: [{ code: 'INVALID_SPEC', message: expect.stringContaining("must have required property 'version'") }],
      lastProcessedErrorCount: 1,
    });
    expectError(await call(people.rita, 'GET', `${specs()}/${specSlug}/versions/latest`), 404);
  });

  it('answers the create before processing ends (pending or progress), then fails once the slow source times out', async () => {
    const { created, spec } = await createFromUrl('/slow.json', 'answered');
    expect(['pending', 'progress']).toContain(created.processingState);
    expect(spec).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'FETCH_TIMEOUT' });
  });

  it('a server slower than the time-out fails with FETCH_TIMEOUT', async () => {
    expect((await createFromUrl('/slow.json')).spec).toMatchObject({
      processingState: 'complete',
      lastProcessErrorCode: 'FETCH_TIMEOUT',
      lastProcessedErrors: [{ code: 'FETCH_TIMEOUT', message: expect.any(String) }],
    });
  });

  it('a redirect loop fails with FETCH_ERROR (FETCH_TOO_MANY_REDIRECTS)', async () => {
    expect((await createFromUrl('/loop-a')).spec).toMatchObject({
      processingState: 'complete',
      lastProcessErrorCode: 'FETCH_ERROR',
      lastProcessedErrors: [{ code: 'FETCH_TOO_MANY_REDIRECTS' }],
    });
  });

  it('a document over the size limit fails with FETCH_ERROR (DOCUMENT_TOO_LARGE)', async () => {
    expect((await createFromUrl('/big.json')).spec).toMatchObject({
      processingState: 'complete',
      lastProcessErrorCode: 'FETCH_ERROR',
      lastProcessedErrors: [{ code: 'DOCUMENT_TOO_LARGE' }],
    });
  });

  it('an HTTP 500 fails with FETCH_ERROR (FETCH_HTTP_ERROR)', async () => {
    expect((await createFromUrl('/broken')).spec).toMatchObject({
      processingState: 'complete',
      lastProcessErrorCode: 'FETCH_ERROR',
      lastProcessErrorMessage: expect.stringContaining('HTTP 500'),
      lastProcessedErrors: [{ code: 'FETCH_HTTP_ERROR' }],
    });
  });
});

describe("the platform's spec shape", () => {
  it('a spec processed into a version is complete, with no error: lastProcessedErrorCount 0', async () => {
    const { spec } = await createFromUrl('/petstore.json');
    expect(spec).toMatchObject({ processingState: 'complete', lastVersion: expect.any(String), lastProcessedErrorCount: 0 });
    expect(spec.lastProcessErrorCode).toBeUndefined();
    expect(platformSchemaProblem('OpenAPISpec', spec)).toBeNull();
  });

  it("a failed processing is complete too, with the platform's error code, the service's own in lastProcessedErrors, and lastProcessedErrorCount 1", async () => {
    const { spec } = await createFromUrl('/invalid.json');
    expect(spec).toMatchObject({
      processingState: 'complete',
      lastProcessErrorCode: 'PARSE_ERROR',
      lastProcessedErrors: [{ code: 'INVALID_SPEC', message: expect.any(String) }],
      lastProcessedErrorCount: 1,
    });
    expect(platformSchemaProblem('OpenAPISpec', spec)).toBeNull();
  });

  it('a spec waiting for its processing is pending or progress, with lastProcessedErrorCount 0', async () => {
    const specSlug = slug('waiting');
    const created = ok(await call(people.cara, 'POST', specs(), { slug: specSlug, source: { url: `${origin}/slow.json` } }), 201).body;
    expect(created).toMatchObject({ processingState: expect.stringMatching(/^(pending|progress)$/), lastProcessedErrorCount: 0 });
    expect(platformSchemaProblem('OpenAPISpec', created)).toBeNull();
    await processed(specSlug);
  });
});

describe('slugs and sources', () => {
  it('a slug taken in the organization is 409', async () => {
    const { slug: specSlug } = await createFromUrl('/petstore.json');
    expectError(await call(people.cara, 'POST', specs(), { slug: specSlug, source: { url: `${origin}/petstore.json` } }), 409);
  });

  it('of two concurrent creates of one slug, one is created and the other is 409', async () => {
    const specSlug = slug('race');
    const answers = await Promise.all(
      [1, 2].map(() => call(people.cara, 'POST', specs(), { slug: specSlug, source: { text: SWAGGER_YAML } })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
  });

  it('slugs outside the pattern or over 100 characters, and sources with both or neither member, are 400', async () => {
    for (const bad of ['Upper', 'double--hyphen', '-leading', 'a'.repeat(101), ''])
      expectError(await call(people.cara, 'POST', specs(), { slug: bad, source: { text: SWAGGER_YAML } }), 400);
    expectError(
      await call(people.cara, 'POST', specs(), { slug: slug('both'), source: { text: SWAGGER_YAML, url: `${origin}/petstore.json` } }),
      400,
    );
    expectError(await call(people.cara, 'POST', specs(), { slug: slug('none'), source: {} }), 400);
    expectError(await call(people.cara, 'POST', specs(), { slug: slug('ftp'), source: { url: 'ftp://example.com/spec.json' } }), 400);
    expectError(
      await call(people.cara, 'POST', specs(), { slug: slug('long'), source: { url: `https://example.com/${'a'.repeat(2048)}` } }),
      400,
    );
  });

  it('PUT creates a spec that does not exist (200)', async () => {
    const specSlug = slug('put');
    expect(ok(await call(people.cara, 'PUT', `${specs()}/${specSlug}`, { source: { text: OPENAPI_31_YAML } })).body).toMatchObject({
      object: 'openapi-spec',
      slug: specSlug,
    });
    expect(await processed(specSlug)).toMatchObject({ processingState: 'complete' });
  });

  it('PUT with the same content makes no new version; with new content it makes one, listed first', async () => {
    petstoreSummary = 'List pets';
    const { slug: specSlug, spec } = await createFromUrl('/petstore.json');
    ok(await call(people.cara, 'PUT', `${specs()}/${specSlug}`, { source: { url: `${origin}/petstore.json` } }));
    const same = await processed(specSlug);
    expect(same.lastVersion).toBe(spec.lastVersion);
    expect(ok(await call(people.rita, 'GET', `${specs()}/${specSlug}/versions`)).body.count).toBe(1);

    petstoreSummary = 'Read one pet';
    ok(await call(people.cara, 'PUT', `${specs()}/${specSlug}`, { source: { url: `${origin}/petstore.json` } }));
    const changed = await processed(specSlug);
    expect(changed.lastVersion).not.toBe(spec.lastVersion);
    const versions = ok(await call(people.rita, 'GET', `${specs()}/${specSlug}/versions`)).body;
    expect(versions.items.map((version: { id: string }) => version.id)).toEqual([changed.lastVersion, spec.lastVersion]);
    expect(ok(await call(people.rita, 'GET', `${specs()}/${specSlug}/versions?limit=1`)).body).toMatchObject({
      count: 2,
      items: [{ id: changed.lastVersion }],
      next: { page: expect.any(String) },
    });
    petstoreSummary = 'List pets';
  });
});

describe('versions and their content', () => {
  it('a version, the latest, their content and the raw bytes the content names', async () => {
    const { slug: specSlug, spec } = await createFromUrl('/swagger.yaml');
    const latest = ok(await call(people.rita, 'GET', `${specs()}/${specSlug}/versions/latest`)).body;
    expect(latest).toMatchObject({
      object: 'openapi-spec-version',
      id: spec.lastVersion,
      createdAt: expect.any(String),
      url: expect.stringContaining(`/versions/${spec.lastVersion}/raw`),
    });
    expect(ok(await call(people.rita, 'GET', `${specs()}/${specSlug}/versions/${spec.lastVersion}`)).body).toEqual(latest);
    const content = ok(await call(people.rita, 'GET', `${specs()}/${specSlug}/versions/${spec.lastVersion}/content`)).body;
    expect(content).toEqual(ok(await call(people.rita, 'GET', `${specs()}/${specSlug}/versions/latest/content`)).body);
    expect(content).toMatchObject({ filesystem: { swagger: '2.0', info: { title: 'Legacy' } }, url: latest.url });
    const raw = ok(await call(people.rita, 'GET', new URL(content.url).pathname));
    expect(raw.headers['content-type']).toMatch(/^application\/yaml/);
    expect(raw.bytes.toString('utf8')).toBe(SWAGGER_YAML);
  });

  it("a version's content names its source: the URL it was fetched from, and public null (members only)", async () => {
    const { slug: specSlug } = await createFromUrl('/swagger.yaml');
    const content = ok(await call(people.rita, 'GET', `${specs()}/${specSlug}/versions/latest/content`)).body;
    expect(content.urls).toEqual({ source: `${origin}/swagger.yaml`, public: null });
    expect(
      platformResponseProblem(
        platformOperation('GET', '/v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content')!,
        200,
        content,
      ),
    ).toBeNull();
  });

  it('the content of a spec given as text names the raw bytes it serves as its source', async () => {
    const specSlug = slug('text-source');
    ok(await call(people.cara, 'POST', specs(), { slug: specSlug, source: { text: SWAGGER_YAML } }), 201);
    const spec = await processed(specSlug);
    const content = ok(await call(people.rita, 'GET', `${specs()}/${specSlug}/versions/${spec.lastVersion}/content`)).body;
    expect(content.urls).toEqual({ source: content.url, public: null });
    expect(ok(await call(people.rita, 'GET', new URL(content.urls.source).pathname)).bytes.toString('utf8')).toBe(SWAGGER_YAML);
  });

  it('an unknown version is 404, and so is one of another spec', async () => {
    const first = await createFromUrl('/v31.yaml');
    const second = await createFromUrl('/swagger.yaml');
    expectError(await call(people.rita, 'GET', `${specs()}/${first.slug}/versions/AAAAAAAAAAAAAAAAAAAA`), 404);
    expectError(await call(people.rita, 'GET', `${specs()}/${first.slug}/versions/${second.spec.lastVersion}/content`), 404);
  });
});

describe('deleting and access', () => {
  it('a deleted spec (205) is gone, and its slug can be used again', async () => {
    const { slug: specSlug } = await createFromUrl('/v31.yaml');
    expect(ok(await call(people.cara, 'DELETE', `${specs()}/${specSlug}`), 205).text).toBe('');
    expectError(await call(people.rita, 'GET', `${specs()}/${specSlug}`), 404);
    expect(ok(await call(people.rita, 'GET', specs())).body.items.map((item: { slug: string }) => item.slug)).not.toContain(specSlug);
    ok(await call(people.cara, 'POST', specs(), { slug: specSlug, source: { text: SWAGGER_YAML } }), 201);
  });

  it('readers list and read specs but may not write them (403); outsiders get 404', async () => {
    const { slug: specSlug } = await createFromUrl('/v31.yaml');
    expect(ok(await call(people.rita, 'GET', specs())).body.items.map((item: { slug: string }) => item.slug)).toContain(specSlug);
    expectError(await call(people.rita, 'POST', specs(), { slug: slug('nope'), source: { text: SWAGGER_YAML } }), 403);
    expectError(await call(people.rita, 'PUT', `${specs()}/${specSlug}`, { source: { text: SWAGGER_YAML } }), 403);
    expectError(await call(people.rita, 'DELETE', `${specs()}/${specSlug}`), 403);
    expectError(await call(people.olga, 'GET', `${specs()}/${specSlug}`), 404);
    expectError(await call(people.olga, 'GET', specs()), 404);
  });
});

describe('specs in content', () => {
  it('a page embedding an openapi-operation shows the operation of the latest version, and the new one after an update', async () => {
    petstoreSummary = 'List pets';
    const { slug: specSlug } = await createFromUrl('/petstore.json', 'pets');
    const spaceId = ok(await call(people.ada, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'API reference' }), 201).body.id;
    const markdown = `Intro.\n\n{% openapi-operation spec="${specSlug}" path="/pets/{petId}" method="get" %}\n`;
    const written = ok(
      await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, {
        changes: [{ operation: 'insert_page', title: 'Pets', document: { markdown } }],
      }),
    ).body;
    const page = `/v1/spaces/${spaceId}/content/page/${written.changes[0].page.id}`;
    const operationOf = async (query = '') =>
      ok(await call(people.rita, 'GET', `${page}${query}`)).body.document.nodes.find(
        (node: { type: string }) => node.type === 'openapi-operation',
      ).data;

    expect(await operationOf()).toMatchObject({
      ref: { kind: 'openapi', spec: specSlug },
      operation: {
        summary: 'List pets',
        operationId: 'getPet',
        parameters: [{ name: 'petId', in: 'path' }],
        responses: { '200': { content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } } } } } } },
      },
    });
    expect((await operationOf('?computed=false')).operation).toBeUndefined();

    petstoreSummary = 'List all the pets';
    ok(await call(people.cara, 'PUT', `${specs()}/${specSlug}`, { source: { url: `${origin}/petstore.json` } }));
    await processed(specSlug);
    expect((await operationOf()).operation.summary).toBe('List all the pets');
    petstoreSummary = 'List pets';
  });

  describe('computed pages', () => {
    /** A spec as text: its `/pets` operations, tagged, and `/health` without a tag; `version` 2 renames one and adds one. */
    const storeSpec = (version: 1 | 2) =>
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'Store', version: String(version) },
        paths: {
          '/pets': {
            get: { tags: ['pets'], summary: version === 1 ? 'List pets' : 'List every pet', responses: { '200': { description: 'ok' } } },
            ...(version === 2 ? { post: { tags: ['pets'], summary: 'Add a pet', responses: { '201': { description: 'added' } } } } : {}),
          },
          '/health': { get: { summary: 'Health', responses: { '200': { description: 'ok' } } } },
        },
      });
    const computedOn = (specSlug: string, props: Record<string, unknown> = {}) => ({
      type: 'builtin:openapi',
      dependencies: { spec: { ref: { kind: 'openapi', spec: specSlug } } },
      props,
    });
    /** A generated document as lines: headings as `# text`, operations as `method path: summary`, anything else by its type. */
    const outline = (document: { nodes: Array<{ type: string; nodes?: Array<{ leaves?: Array<{ text: string }> }>; data?: any }> }) =>
      document.nodes.map((node) =>
        node.type === 'heading-2'
          ? `# ${node.nodes![0].leaves![0].text}`
          : node.type === 'openapi-operation'
            ? `${node.data.method} ${node.data.path}: ${node.data.operation?.summary}`
            : node.type,
      );

    it('a computed page shows the operations of the latest version, the change after an update, and its stored body with computed=false; an installation on its space is told', async () => {
      const specSlug = slug('store');
      ok(await call(people.cara, 'POST', specs(), { slug: specSlug, source: { text: storeSpec(1) } }), 201);
      expect((await processed(specSlug)).processingState).toBe('complete');
      const spaceId = ok(await call(people.ada, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Store reference' }), 201).body.id;
      const integration = `computed-pages-${process.pid}`;
      ok(
        await call(people.ada, 'POST', `/v1/integrations/${integration}`, {
          organization: organizationId,
          title: 'Watcher',
          visibility: 'public',
        }),
      );
      const installation = ok(
        await call(people.ada, 'POST', `/v1/integrations/${integration}/installations`, { organization: organizationId }),
        201,
      ).body;
      ok(
        await call(people.ada, 'POST', `/v1/integrations/${integration}/installations/${installation.id}/spaces`, { space: spaceId }),
        201,
      );

      const written = ok(
        await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, {
          changes: [
            { operation: 'insert_page', title: 'Store API', computed: computedOn(specSlug), document: { markdown: 'Stored body.' } },
          ],
        }),
      ).body;
      const page = `/v1/spaces/${spaceId}/content/page/${written.changes[0].page.id}`;
      const read = ok(await call(people.rita, 'GET', page)).body;
      expect(read.computed).toEqual(computedOn(specSlug));
      expect(outline(read.document)).toEqual(['# pets', 'get /pets: List pets', '# /health', 'get /health: Health']);
      expect(outline(ok(await call(people.rita, 'GET', `${page}?computed=false`)).body.document)).toEqual(['paragraph']);
      expect(ok(await call(people.rita, 'GET', `${page}?format=markdown`)).body.markdown).toContain(
        `{% openapi-operation spec="${specSlug}" path="/pets" method="get" %}`,
      );

      ok(await call(people.cara, 'PUT', `${specs()}/${specSlug}`, { source: { text: storeSpec(2) } }));
      const updated = await processed(specSlug);
      expect(outline(ok(await call(people.rita, 'GET', page)).body.document)).toEqual([
        '# pets',
        'get /pets: List every pet',
        'post /pets: Add a pet',
        '# /health',
        'get /health: Health',
      ]);

      const told = await until('the dependency event', async () => {
        const events = ok(await call(people.ada, 'GET', `/v1/integrations/${integration}/events?limit=100`)).body.items as Array<{
          payload: Record<string, any>;
        }>;
        return events.find((event) => event.payload.type === 'space_content_updated' && event.payload.dependency);
      });
      expect(told.payload).toMatchObject({
        spaceId,
        revisionId: written.revision,
        installationId: installation.id,
        dependency: { kind: 'openapi', spec: specSlug, versionId: updated.lastVersion },
      });
    });

    it('a published site shows a computed page generated from the spec, with each operation as text', async () => {
      const specSlug = slug('store');
      ok(await call(people.cara, 'POST', specs(), { slug: specSlug, source: { text: storeSpec(2) } }), 201);
      await processed(specSlug);
      const spaceId = ok(await call(people.ada, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Published store' }), 201).body.id;
      ok(
        await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, {
          changes: [{ operation: 'insert_page', title: 'Store API', computed: computedOn(specSlug) }],
        }),
      );
      const siteId = ok(await call(people.ada, 'POST', `/v1/orgs/${organizationId}/sites`, { title: 'Store docs', spaces: [spaceId] }), 201)
        .body.id;
      ok(await call(people.ada, 'POST', `/v1/orgs/${organizationId}/sites/${siteId}/publish`));
      const html = (await service.request('GET', `/sites/${siteId}/store-api`)).text;
      expect(html).toContain('<code>POST /pets</code>');
      expect(html).toContain('<strong>Add a pet</strong>');
      expect(html).toContain('<dt><code>201</code></dt><dd>added</dd>');
    });

    it('props narrow the page, computed: null removes the source, and a spec that does not exist shows the stored body', async () => {
      const specSlug = slug('store');
      ok(await call(people.cara, 'POST', specs(), { slug: specSlug, source: { text: storeSpec(2) } }), 201);
      await processed(specSlug);
      const spaceId = ok(await call(people.ada, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Narrowed' }), 201).body.id;
      const written = ok(
        await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, {
          changes: [
            { operation: 'insert_page', title: 'Pets', computed: computedOn(specSlug, { tags: ['pets'], paths: ['/pets'] }) },
            {
              operation: 'insert_page',
              title: 'Nothing yet',
              computed: computedOn('no-such-spec'),
              document: { markdown: 'Coming soon.' },
            },
          ],
        }),
      ).body;
      const [pets, later] = written.changes.map(
        (change: { page: { id: string } }) => `/v1/spaces/${spaceId}/content/page/${change.page.id}`,
      );
      expect(outline(ok(await call(people.rita, 'GET', pets)).body.document)).toEqual([
        '# pets',
        'get /pets: List every pet',
        'post /pets: Add a pet',
      ]);
      expect(outline(ok(await call(people.rita, 'GET', later)).body.document)).toEqual(['paragraph']);

      ok(
        await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, {
          changes: [{ operation: 'update_page', page: written.changes[0].page.id, computed: null }],
        }),
      );
      const plain = ok(await call(people.rita, 'GET', pets)).body;
      expect(plain).not.toHaveProperty('computed');
      expect(plain.document.nodes).toEqual([]);
    });

    it('a computed source of an unknown type, on another kind of reference, or with hostile props is 400', async () => {
      const spaceId = ok(await call(people.ada, 'POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Refused' }), 201).body.id;
      const insert = (computed: unknown) =>
        call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, { changes: [{ operation: 'insert_page', title: 'X', computed }] });
      expectError(await insert({ ...computedOn('pets'), type: 'builtin:graphql' }), 400);
      expectError(await insert({ type: 'builtin:openapi', dependencies: { spec: { ref: { kind: 'page', page: 'p1' } } }, props: {} }), 400);
      expectError(await insert(computedOn('pets', { tags: 'pets' })), 400);
      expectError(await insert(computedOn('pets', { text: 'x'.repeat(5000) })), 400);
      expectError(
        await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, {
          changes: [{ operation: 'insert_page', type: 'group', title: 'G', computed: computedOn('pets') }],
        }),
        400,
      );
    });
  });
});
