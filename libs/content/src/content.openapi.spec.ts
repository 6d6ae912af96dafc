import { operationIn, resolveOpenapiBlocks } from './content.openapi';
import type { DocumentNode } from './document/document.model';

const spec = {
  openapi: '3.0.3',
  paths: {
    '/pets/{id}': {
      parameters: [{ $ref: '#/components/parameters/Id' }],
      get: { summary: 'One pet', responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } } } },
    },
  },
  components: {
    parameters: { Id: { name: 'id', in: 'path', required: true } },
    schemas: { Pet: { type: 'object', properties: { parent: { $ref: '#/components/schemas/Pet' } } } },
  },
};
const operationBlock = (specSlug: string, path: string, method: string) => ({ object: 'block' as const, type: 'openapi-operation' as const, isVoid: true, data: { ref: { kind: 'openapi', spec: specSlug }, path, method } });

describe('OpenAPI operations in content', () => {
  it('an operation carries its path parameters and responses with local references resolved; a cycle stays a reference', () => {
    expect(operationIn(spec, '/pets/{id}', 'get', 'v1')).toEqual({
      specVersion: 'v1',
      path: '/pets/{id}',
      method: 'get',
      summary: 'One pet',
      parameters: [{ name: 'id', in: 'path', required: true }],
      responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { parent: { $ref: '#/components/schemas/Pet' } } } } } } },
    });
  });

  it('an unknown path, an unknown method and prototype names are no operation', () => {
    expect(operationIn(spec, '/cats', 'get', 'v1')).toBeNull();
    expect(operationIn(spec, '/pets/{id}', 'constructor', 'v1')).toBeNull();
    expect(operationIn(spec, '__proto__', 'get', 'v1')).toBeNull();
  });

  it('a document resolves the blocks naming a spec with a version, and leaves the others as stored', async () => {
    const document: DocumentNode = { object: 'document', data: {}, nodes: [operationBlock('pets', '/pets/{id}', 'get'), operationBlock('gone', '/pets/{id}', 'get'), operationBlock('pets', '/nowhere', 'get')] };
    const resolved = await resolveOpenapiBlocks(document, 'o1', { latestDocument: async (_organizationId, slug) => (slug === 'pets' ? { versionId: 'v1', document: spec } : null) });
    expect(resolved.nodes.map((node) => (node.data as { operation?: { summary: string } }).operation?.summary)).toEqual(['One pet', undefined, undefined]);
  });

  it('a document without operation blocks is not looked at', async () => {
    const document: DocumentNode = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes: [] }] };
    expect(await resolveOpenapiBlocks(document, 'o1', { latestDocument: () => Promise.reject(new Error('not called')) })).toBe(document);
  });
});
