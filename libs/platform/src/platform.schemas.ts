/**
 * JSON Schema building blocks for the OpenAPI document: the error envelope, list envelopes and
 * references. Each context describes its own resources beside its presenters (`*.schemas.ts`);
 * apps/api/src/openapi.ts gathers them under `components.schemas`. OpenAPI 3.0 dialect
 * (`nullable`, no type arrays).
 */
import { ORGANIZATION_ROLES } from './permissions';

export type JsonSchema = Record<string, unknown>;

/** A reference to a named schema of the document. */
export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** An object with exactly these members, `optional` ones aside: presenters must not leak internals. */
export function closedObject(properties: Record<string, JsonSchema>, optional: readonly string[] = []): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties).filter((key) => !optional.includes(key)),
    properties,
  };
}

/** `{ next?: { page }, count, items }`: pass `next.page` back as `page` for the following page. */
export function listOf(item: JsonSchema | string): JsonSchema {
  return closedObject(
    {
      next: closedObject({ page: { type: 'string', description: 'an opaque cursor: send it back as the `page` query parameter' } }),
      count: { type: 'integer', minimum: 0, description: 'how many items match, over every page' },
      items: { type: 'array', items: typeof item === 'string' ? ref(item) : item },
    },
    ['next'],
  );
}

export const dateTime: JsonSchema = { type: 'string', format: 'date-time' };
export const url: JsonSchema = { type: 'string', format: 'uri' };
export const id: JsonSchema = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' };
/** An organization role; null is a guest. */
export const roleOrGuest: JsonSchema = { type: 'string', enum: [...ORGANIZATION_ROLES, null], nullable: true };
export const role: JsonSchema = { type: 'string', enum: [...ORGANIZATION_ROLES] };
export const booleans = (...names: string[]): JsonSchema =>
  closedObject(Object.fromEntries(names.map((name) => [name, { type: 'boolean' }])));

export const platformSchemas: Record<string, JsonSchema> = {
  /** Every error: `code` repeats the HTTP status; the message names the offending field where there is one. */
  ErrorEnvelope: closedObject({
    error: closedObject({
      code: { type: 'integer', minimum: 400, maximum: 599 },
      message: { type: 'string' },
    }),
  }),
};

/** The `ETag` header of single resources: their stream revision, for `If-Match`. */
export const etagHeader = {
  ETag: { description: 'the resource’s revision; send it as `If-Match` to make a write conditional', schema: { type: 'string' } },
};
