/**
 * The platform's published OpenAPI document (`@gitbook/api`, `spec/openapi.json`, OpenAPI 3.1),
 * for the contract suites: which of the platform's operations a path of this service is, and
 * whether an answer has the shape the platform's schema gives it (`required` members and
 * enumerations kept).
 *
 *   const operation = platformOperation('GET', '/v1/spaces/{spaceId}');
 *   platformResponseProblem(operation, 200, body);   // null, or what breaks the schema
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import platformDocument from '@gitbook/api/spec/openapi.json';

export interface PlatformOperation {
  operationId: string;
  method: string;
  /** The platform's path template (no `/v1`). */
  path: string;
  operation: Record<string, any>;
}

const document = platformDocument as unknown as { paths: Record<string, Record<string, any>>; components: Record<string, any> };

/** `/v1/spaces/{spaceId}` and `/spaces/{id}` are the same path: parameter names differ between the documents. */
const shapeOf = (path: string) => path.replace(/^\/v1(?=\/)/, '').replace(/\{[^}]+\}/g, '{}');

const byShape = new Map<string, PlatformOperation>();
for (const [path, item] of Object.entries(document.paths)) {
  for (const [method, operation] of Object.entries(item)) {
    if (!operation?.operationId) continue;
    byShape.set(`${method.toUpperCase()} ${shapeOf(path)}`, {
      operationId: operation.operationId,
      method: method.toUpperCase(),
      path,
      operation,
    });
  }
}

/** The platform's operation at this service's method and path, if the platform has one. */
export function platformOperation(method: string, servicePath: string): PlatformOperation | undefined {
  return byShape.get(`${method.toUpperCase()} ${shapeOf(servicePath)}`);
}

/** The platform's success statuses for the operation. */
export function platformSuccesses(operation: PlatformOperation): number[] {
  return Object.keys(operation.operation.responses ?? {})
    .map(Number)
    .filter((status) => status >= 200 && status < 300);
}

let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction | null>();

function compiler(): Ajv2020 {
  if (ajv) return ajv;
  // `discriminator` and the `x-*` keywords are annotations here: `oneOf` decides (Ajv's discriminator cannot read these unions).
  ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'platform', components: document.components } as object);
  return ajv;
}

/** The response schema's `$ref`s point at `#/components/…`: rewrite them to the registered document. */
function rebased(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebased);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema as Record<string, unknown>).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' ? `platform${value}` : rebased(value),
    ]),
  );
}

function validatorFor(operation: PlatformOperation, status: number): ValidateFunction | null {
  const key = `${operation.method} ${operation.path} ${status}`;
  if (!validators.has(key)) {
    const schema = operation.operation.responses?.[String(status)]?.content?.['application/json']?.schema;
    validators.set(key, schema ? compiler().compile(rebased(schema) as object) : null);
  }
  return validators.get(key)!;
}

/**
 * Null when the answer is what the platform answers: a success status of the platform's and, for
 * JSON answers, a body valid against its schema; else what differs, each error with its place.
 * `bodyOf`: where the status knowingly differs, the platform's status whose body the answer must have.
 */
export function platformResponseProblem(
  operation: PlatformOperation,
  status: number,
  body: unknown,
  options: { bodyOf?: number } = {},
): string | null {
  const successes = platformSuccesses(operation);
  if (!successes.includes(options.bodyOf ?? status)) return `status ${status}, the platform answers ${successes.join('/')}`;
  const validate = validatorFor(operation, options.bodyOf ?? status);
  if (!validate || validate(body)) return null;
  const errors = (validate.errors ?? []).filter((error) => error.keyword !== 'if');
  // `oneOf`/`anyOf` report every branch's errors: the branch's own messages say more than the summary.
  const messages = [
    ...new Set(
      errors
        .filter((error) => !['oneOf', 'anyOf'].includes(error.keyword))
        .map(
          (error) =>
            `${error.instancePath || '/'} ${error.message}${error.params && 'allowedValues' in error.params ? ` (${(error.params.allowedValues as unknown[]).join('|')})` : ''}`,
        ),
    ),
  ];
  return `breaks ${operation.operationId}'s schema: ${messages.slice(0, 12).join('; ')}${messages.length > 12 ? ` (+${messages.length - 12} more)` : ''}`;
}

/** Null when the value is valid against the platform's named schema (`SiteViewEvent`, `Space`, …), else what breaks it. */
export function platformSchemaProblem(schemaName: string, value: unknown): string | null {
  const key = `#/components/schemas/${schemaName}`;
  if (!validators.has(key)) {
    if (!document.components.schemas?.[schemaName]) throw new Error(`the platform has no schema ${schemaName}`);
    validators.set(key, compiler().compile({ $ref: `platform${key}` }));
  }
  const validate = validators.get(key)!;
  if (validate(value)) return null;
  return `breaks ${schemaName}: ${[...new Set((validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`))].slice(0, 12).join('; ')}`;
}
