import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_EXPANDED_VALUES, parseSpec } from './openapi.parse';

const limits = { allowPrivateNetworks: true, timeMs: 2000, maxBytes: 100_000, maxRedirects: 3, maxExternalDocuments: 3 };
const petstore = {
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1' },
  paths: {
    '/pets': {
      get: {
        summary: 'List pets',
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } } },
      },
    },
  },
  components: {
    schemas: { Pet: { type: 'object', properties: { id: { type: 'string' }, parent: { $ref: '#/components/schemas/Pet' } } } },
  },
};
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: { code: string; message: string }) => ({ code: error.code, message: error.message }),
  );

describe('parsing a spec', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/pet.json') response.end(JSON.stringify({ type: 'object', properties: { name: { type: 'string' } } }));
      else response.writeHead(404).end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((done) => server.close(done)));

  it('an OpenAPI 3.0 document in JSON, with a recursive schema, parses and keeps its internal references', async () => {
    const parsed = await parseSpec(Buffer.from(JSON.stringify(petstore)), null, limits);
    expect(parsed).toMatchObject({
      kind: 'openapi',
      version: '3.0.3',
      document: { components: { schemas: { Pet: { properties: { parent: { $ref: '#/components/schemas/Pet' } } } } } },
    });
  });

  it('a Swagger 2.0 document in YAML parses', async () => {
    const yaml =
      'swagger: "2.0"\ninfo: { title: T, version: "1" }\npaths:\n  /a:\n    get:\n      responses:\n        "200": { description: ok }\n';
    expect(await parseSpec(Buffer.from(yaml), null, limits)).toMatchObject({
      kind: 'swagger',
      version: '2.0',
      document: { paths: { '/a': { get: {} } } },
    });
  });

  it('an OpenAPI 3.1 document with a reference to another document on the server gets it bundled in', async () => {
    const spec = {
      openapi: '3.1.0',
      info: { title: 'x', version: '1' },
      paths: {
        '/a': { get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: 'pet.json' } } } } } } },
      },
    };
    const parsed = await parseSpec(Buffer.from(JSON.stringify(spec)), `${base}/spec.json`, limits);
    expect(JSON.stringify(parsed.document)).toContain('"name":{"type":"string"}');
  });

  it('a document failing the specification is INVALID_SPEC, naming the problem', async () => {
    expect(await failureOf(parseSpec(Buffer.from('openapi: 3.0.0\ninfo: {}\npaths: {}'), null, limits))).toEqual({
      code: 'INVALID_SPEC',
      message: expect.stringMatching(
        /not a valid OpenAPI document: Swagger schema validation failed.; #\/info must have required property 'title'/,
      ),
    });
  });

  it('a text that is neither JSON nor YAML is INVALID_SPEC', async () => {
    expect(await failureOf(parseSpec(Buffer.from('{ "openapi": '), null, limits))).toMatchObject({
      code: 'INVALID_SPEC',
      message: expect.stringContaining('not valid JSON'),
    });
  });

  it('a document with neither openapi nor swagger is INVALID_SPEC', async () => {
    expect(await failureOf(parseSpec(Buffer.from('a: 1'), null, limits))).toMatchObject({
      code: 'INVALID_SPEC',
      message: expect.stringContaining('no openapi or swagger version'),
    });
  });

  it('a reference to a local file is never read', async () => {
    const spec = {
      openapi: '3.0.0',
      info: { title: 'x', version: '1' },
      paths: { '/a': { get: { responses: { '200': { $ref: 'file:///etc/passwd' } } } } },
    };
    expect(await failureOf(parseSpec(Buffer.from(JSON.stringify(spec)), null, limits))).toMatchObject({ code: 'INVALID_SPEC' });
  });

  it('a relative reference in a text source resolves to nothing', async () => {
    const spec = {
      openapi: '3.0.0',
      info: { title: 'x', version: '1' },
      paths: { '/a': { get: { responses: { '200': { $ref: './responses.json' } } } } },
    };
    expect(await failureOf(parseSpec(Buffer.from(JSON.stringify(spec)), null, limits))).toMatchObject({ code: 'INVALID_SPEC' });
  });

  it('a reference to a private address is refused unless private networks are allowed', async () => {
    const spec = {
      openapi: '3.0.0',
      info: { title: 'x', version: '1' },
      paths: { '/a': { get: { responses: { '200': { $ref: `${base}/pet.json` } } } } },
    };
    expect(await failureOf(parseSpec(Buffer.from(JSON.stringify(spec)), null, { ...limits, allowPrivateNetworks: false }))).toMatchObject({
      code: 'FETCH_REFUSED',
    });
  });

  it('a document whose $refs multiply (26 schemas each referencing the next twice: 3 KB) is DOCUMENT_TOO_COMPLEX, refused before validating', async () => {
    const schemas: Record<string, unknown> = { S26: { type: 'string' } };
    for (let level = 0; level < 26; level++)
      schemas[`S${level}`] = {
        type: 'object',
        properties: { a: { $ref: `#/components/schemas/S${level + 1}` }, b: { $ref: `#/components/schemas/S${level + 1}` } },
      };
    const spec = { openapi: '3.0.3', info: { title: 'x', version: '1' }, paths: {}, components: { schemas } };
    expect(await failureOf(parseSpec(Buffer.from(JSON.stringify(spec)), null, limits))).toEqual({
      code: 'DOCUMENT_TOO_COMPLEX',
      message: `the spec is too complex to validate: its $refs, inlined as validation inlines them, make about 671,088,562 values, more than the ${MAX_EXPANDED_VALUES.toLocaleString('en-US')} allowed (a schema referenced twice from a schema that is itself referenced twice counts four times)`,
    });
  });

  it('a schema shared by many operations, and schemas that reference each other, parse', async () => {
    const schemas = {
      Item: { properties: { id: { type: 'string' }, owner: { $ref: '#/components/schemas/Owner' } } },
      Owner: { properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Item' } } } },
    };
    const paths = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [
        `/items${i}`,
        {
          get: {
            responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } } } },
          },
        },
      ]),
    );
    const parsed = await parseSpec(
      Buffer.from(JSON.stringify({ openapi: '3.0.3', info: { title: 'x', version: '1' }, paths, components: { schemas } })),
      null,
      limits,
    );
    expect(parsed.document).toMatchObject({
      paths: {
        '/items49': {
          get: { responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } } } } },
        },
      },
    });
  });

  it('YAML aliases beyond the limit are refused', async () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...Array.from(
        { length: 12 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
            .fill(`*${String.fromCharCode(97 + i)}`)
            .join(', ')}]`,
      ),
    ].join('\n');
    expect(await failureOf(parseSpec(Buffer.from(bomb), null, limits))).toMatchObject({ code: 'INVALID_SPEC' });
  });
});
