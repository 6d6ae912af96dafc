import SwaggerParser from '@apidevtools/swagger-parser';
import { checkDereferenced } from './openapi.schema-check';

const OPTIONS = { resolve: { external: false, file: false, http: false }, dereference: { circular: 'ignore' } } as never;

/** What swagger-parser's own `validate` says of a document: null, or its error's name and message. */
async function parserVerdict(document: object): Promise<string | null> {
  try {
    await new SwaggerParser().validate(structuredClone(document) as never, OPTIONS);
    return null;
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

/** The same, through swagger-parser's dereferencing and checkDereferenced. */
async function checkVerdict(document: object): Promise<string | null> {
  try {
    checkDereferenced((await new SwaggerParser().dereference(structuredClone(document) as never, OPTIONS)) as never);
    return null;
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

const ok = { '200': { description: 'ok' } };

/** Documents of each kind, and what swagger-parser makes of them: null (valid) or the start of its error. */
const DOCUMENTS: [string, object, RegExp | null][] = [
  [
    'a valid OpenAPI 3.0 document whose schema references itself',
    {
      openapi: '3.0.3',
      info: { title: 'A', version: '1' },
      paths: {
        '/a': {
          get: {
            responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } } },
          },
        },
      },
      components: { schemas: { Node: { type: 'object', properties: { next: { $ref: '#/components/schemas/Node' } } } } },
    },
    null,
  ],
  [
    'an OpenAPI 3.0 document without a title',
    { openapi: '3.0.3', info: { version: '1' }, paths: {} },
    /^SyntaxError: Swagger schema validation failed/,
  ],
  [
    'an OpenAPI 3.1 document with a bad path item',
    { openapi: '3.1.0', info: { title: 'A', version: '1' }, paths: { '/a': { get: 42 } } },
    /^SyntaxError: Swagger schema validation failed/,
  ],
  [
    'a Swagger 2.0 document without paths',
    { swagger: '2.0', info: { title: 'A', version: '1' } },
    /^SyntaxError: Swagger schema validation failed/,
  ],
  [
    'a Swagger 2.0 document the schema accepts and the specification refuses (an operation id used twice)',
    {
      swagger: '2.0',
      info: { title: 'A', version: '1' },
      paths: {
        '/a': { get: { operationId: 'same', responses: { '200': { description: 'ok' } } } },
        '/b': { get: { operationId: 'same', responses: { '200': { description: 'ok' } } } },
      },
    },
    /^SyntaxError: Validation failed. Duplicate operation id 'same'/,
  ],
];

describe('checkDereferenced', () => {
  // swagger-parser compiles the schema on every call: its verdicts are asked once.
  const verdicts = new Map<string, string | null>();
  beforeAll(async () => {
    for (const [what, document] of DOCUMENTS) verdicts.set(what, await parserVerdict(document));
  });

  it.each(DOCUMENTS)('given %s, it gives the verdict and the message of swagger-parser’s validate', async (what, document, expected) => {
    const verdict = verdicts.get(what) ?? null;
    if (expected === null) expect(verdict).toBeNull();
    else expect(verdict).toMatch(expected);
    expect(await checkVerdict(document)).toBe(verdict);
  });

  it('gives the same verdicts when it is asked again (the compiled schemas are kept)', async () => {
    for (const [what, document] of DOCUMENTS) expect(await checkVerdict(document)).toBe(verdicts.get(what));
  });
});
