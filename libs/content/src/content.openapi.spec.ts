import { computedDocument, operationIn, resolveOpenapiBlocks } from './content.openapi';
import type { ComputedSource } from './tree/tree.model';
import type { DocumentNode } from '#document/document.model';

const spec = {
  openapi: '3.0.3',
  paths: {
    '/pets/{id}': {
      parameters: [{ $ref: '#/components/parameters/Id' }],
      get: {
        summary: 'One pet',
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } } },
      },
    },
  },
  components: {
    parameters: { Id: { name: 'id', in: 'path', required: true } },
    schemas: { Pet: { type: 'object', properties: { parent: { $ref: '#/components/schemas/Pet' } } } },
  },
};
const operationBlock = (specSlug: string, path: string, method: string) => ({
  object: 'block' as const,
  type: 'openapi-operation' as const,
  isVoid: true,
  data: { ref: { kind: 'openapi', spec: specSlug }, path, method },
});

describe('OpenAPI operations in content', () => {
  it('an operation carries its path parameters and responses with local references resolved; a cycle stays a reference', () => {
    expect(operationIn(spec, '/pets/{id}', 'get', 'v1')).toEqual({
      specVersion: 'v1',
      path: '/pets/{id}',
      method: 'get',
      summary: 'One pet',
      parameters: [{ name: 'id', in: 'path', required: true }],
      responses: {
        '200': {
          description: 'ok',
          content: { 'application/json': { schema: { type: 'object', properties: { parent: { $ref: '#/components/schemas/Pet' } } } } },
        },
      },
    });
  });

  it('an unknown path, an unknown method and prototype names are no operation', () => {
    expect(operationIn(spec, '/cats', 'get', 'v1')).toBeNull();
    expect(operationIn(spec, '/pets/{id}', 'constructor', 'v1')).toBeNull();
    expect(operationIn(spec, '__proto__', 'get', 'v1')).toBeNull();
  });

  it('a document resolves the blocks naming a spec with a version, and leaves the others as stored', async () => {
    const document: DocumentNode = {
      object: 'document',
      data: {},
      nodes: [
        operationBlock('pets', '/pets/{id}', 'get'),
        operationBlock('gone', '/pets/{id}', 'get'),
        operationBlock('pets', '/nowhere', 'get'),
      ],
    };
    const resolved = await resolveOpenapiBlocks(document, 'o1', {
      latestDocument: async (_organizationId, slug) => (slug === 'pets' ? { versionId: 'v1', document: spec } : null),
    });
    expect(resolved.nodes.map((node) => (node.data as { operation?: { summary: string } }).operation?.summary)).toEqual([
      'One pet',
      undefined,
      undefined,
    ]);
  });

  it('a document without operation blocks is not looked at', async () => {
    const document: DocumentNode = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes: [] }] };
    expect(await resolveOpenapiBlocks(document, 'o1', { latestDocument: () => Promise.reject(new Error('not called')) })).toBe(document);
  });
});

describe('a computed page generated from a spec', () => {
  const store = {
    openapi: '3.0.3',
    paths: {
      '/pets': {
        summary: 'not an operation',
        parameters: [],
        get: { tags: ['pets'], summary: 'List pets', responses: {} },
        post: { tags: ['pets', 'admin'], summary: 'Add a pet', responses: {} },
      },
      '/orders': { get: { tags: ['store'], summary: 'List orders', responses: {} } },
      '/health': { get: { summary: 'Health', responses: {} } },
      '/pets/{id}': { delete: { tags: ['pets'], summary: 'Remove a pet', responses: {} } },
    },
  };
  const source = (props: Record<string, unknown> = {}): ComputedSource => ({
    type: 'builtin:openapi',
    dependencies: { spec: { ref: { kind: 'openapi', spec: 'store' } } },
    props,
  });
  const openapi = {
    latestDocument: async (_organizationId: string, slug: string) => (slug === 'store' ? { versionId: 'v7', document: store } : null),
  };
  /** The document as lines: a heading's text, or an operation's method and path with its summary. */
  const outline = (document: DocumentNode | null) =>
    document?.nodes.map((node) => {
      if (node.type === 'heading-2') return `# ${(node.nodes![0] as { leaves: Array<{ text: string }> }).leaves[0].text}`;
      const data = node.data as { method: string; path: string; operation: { summary: string } };
      return `${data.method} ${data.path}: ${data.operation.summary}`;
    });

  it('has a heading per first tag (or per path without tags) and an operation block per operation, in document order', async () => {
    expect(outline(await computedDocument(source(), 'o1', openapi))).toEqual([
      '# pets',
      'get /pets: List pets',
      'post /pets: Add a pet',
      'delete /pets/{id}: Remove a pet',
      '# store',
      'get /orders: List orders',
      '# /health',
      'get /health: Health',
    ]);
  });

  it('resolves each operation block exactly as a stored block is, with stable keys', async () => {
    const document = (await computedDocument(source(), 'o1', openapi))!;
    const block = document.nodes[1];
    expect(block).toMatchObject({
      object: 'block',
      type: 'openapi-operation',
      isVoid: true,
      data: { ref: { kind: 'openapi', spec: 'store' }, path: '/pets', method: 'get', operation: operationIn(store, '/pets', 'get', 'v7')! },
    });
    const again = (await computedDocument(source(), 'o1', openapi))!;
    expect(again.nodes.map((node) => node.key)).toEqual(document.nodes.map((node) => node.key));
    expect(new Set(document.nodes.map((node) => node.key)).size).toBe(document.nodes.length);
  });

  it('is narrowed by props.tags and props.paths, both holding when both are given', async () => {
    expect(outline(await computedDocument(source({ tags: ['store', 'admin'] }), 'o1', openapi))).toEqual([
      '# pets',
      'post /pets: Add a pet',
      '# store',
      'get /orders: List orders',
    ]);
    expect(outline(await computedDocument(source({ paths: ['/health', '/pets/{id}'] }), 'o1', openapi))).toEqual([
      '# /health',
      'get /health: Health',
      '# pets',
      'delete /pets/{id}: Remove a pet',
    ]);
    expect(outline(await computedDocument(source({ tags: ['pets'], paths: ['/pets'] }), 'o1', openapi))).toEqual([
      '# pets',
      'get /pets: List pets',
      'post /pets: Add a pet',
    ]);
  });

  it('is null when the spec or its version is missing (the stored body is shown)', async () => {
    const missing: ComputedSource = { ...source(), dependencies: { spec: { ref: { kind: 'openapi', spec: 'gone' } } } };
    expect(await computedDocument(missing, 'o1', openapi)).toBeNull();
  });
});
