import { expandedSize } from './openapi.refs';

const SwaggerParser = require('@apidevtools/swagger-parser') as typeof import('@apidevtools/swagger-parser');

const info = { openapi: '3.0.3', info: { title: 'T', version: '1' } };
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const returning = (schema: unknown) => ({
  '/x': { get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema } } } } } },
});

/** N schemas, each with two references to the next: 2^N copies once inlined. */
function chain(levels: number) {
  const schemas: Record<string, unknown> = { [`S${levels}`]: { type: 'string' } };
  for (let level = 0; level < levels; level++)
    schemas[`S${level}`] = { type: 'object', properties: { a: ref(`S${level + 1}`), b: ref(`S${level + 1}`) } };
  return { ...info, paths: returning(ref('S0')), components: { schemas } };
}

/** What validation walks, counted the slow way: the document dereferenced as swagger-parser's validate does, walked as a tree. */
async function walked(document: object): Promise<number> {
  const dereferenced = await new SwaggerParser().dereference(
    structuredClone(document) as never,
    { resolve: { external: false, file: false, http: false }, dereference: { circular: 'ignore' } } as never,
  );
  const count = (value: unknown): number =>
    typeof value !== 'object' || value === null
      ? 1
      : 1 + (Array.isArray(value) ? value : Object.values(value)).reduce((sum: number, member) => sum + count(member), 0);
  return count(dereferenced);
}

const documents: Record<string, object> = {
  'a chain of schemas referencing the next one twice': chain(8),
  'a recursive schema (a tree of pets)': {
    ...info,
    paths: returning(ref('Pet')),
    components: {
      schemas: {
        Pet: { type: 'object', properties: { parent: ref('Pet'), children: { type: 'array', items: ref('Pet') }, tag: ref('Tag') } },
        Tag: { type: 'string' },
      },
    },
  },
  'mutually recursive schemas, and a schema using them and a plain one twice': {
    ...info,
    paths: {},
    components: {
      schemas: {
        A: { properties: { b: ref('B'), t: ref('T') } },
        B: { properties: { a: ref('A') } },
        T: { properties: { x: { type: 'string' } } },
        U: { properties: { a: ref('A'), t1: ref('T'), t2: ref('T') } },
      },
    },
  },
  'every schema referencing every other one': {
    ...info,
    paths: returning(ref('K0')),
    components: {
      schemas: Object.fromEntries(
        Array.from({ length: 6 }, (_, i) => [
          `K${i}`,
          { properties: Object.fromEntries(Array.from({ length: 6 }, (_, j) => [`p${j}`, ref(`K${j}`)])) },
        ]),
      ),
    },
  },
  'one response and one schema shared by many operations': {
    ...info,
    paths: Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [`/p${i}`, { get: { responses: { '200': { $ref: '#/components/responses/Ok' } } } }]),
    ),
    components: {
      responses: { Ok: { description: 'ok', content: { 'application/json': { schema: ref('Item') } } } },
      schemas: {
        Item: { properties: { id: { type: 'string' }, error: ref('Error') } },
        Error: { properties: { code: { type: 'integer' } } },
      },
    },
  },
  'a reference through a reference, and one with a sibling description': {
    ...info,
    paths: {},
    components: {
      schemas: {
        A: ref('B'),
        B: { properties: { x: { type: 'string' } } },
        C: { properties: { y: { $ref: '#/components/schemas/A/properties/x' }, z: { ...ref('B'), description: 'a B' } } },
      },
    },
  },
};

describe('the expanded size of a document (what validation walks)', () => {
  for (const [name, document] of Object.entries(documents)) {
    it(`is exactly what validation walks, for ${name}`, async () => {
      expect(expandedSize(document)).toBe(await walked(document));
    });
  }

  it('doubles with each level of a chain of double references, without expanding it', () => {
    expect(expandedSize(chain(26))).toBeGreaterThanOrEqual(2 * expandedSize(chain(25)));
    expect(expandedSize(chain(26))).toBeGreaterThan(2 ** 29);
    expect(expandedSize(chain(2000))).toBe(Infinity);
  });

  it('counts a reference it cannot resolve, or to another document, as the reference itself', () => {
    expect(expandedSize({ a: { $ref: '#/nowhere' }, b: { $ref: 'https://example.com/other.json' }, c: { $ref: '#/%E0%A4%A' } })).toBe(7);
  });

  it('ends on references that only point at each other', () => {
    expect(expandedSize({ a: { $ref: '#/b' }, b: { $ref: '#/a' }, c: { $ref: '#/a/x' } })).toBe(7);
  });

  it('walks a document nested deeper than the call stack', () => {
    const deep: Record<string, unknown> = {};
    let inner = deep;
    for (let level = 0; level < 100_000; level++) inner = (inner.a = {}) as Record<string, unknown>;
    expect(expandedSize(deep)).toBe(100_001);
  });
});
