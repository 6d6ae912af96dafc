import { DomainError } from '../../platform/src/errors';
import { lazyPackage } from '../../platform/src/lazy-package';
import type { ConfigurationSchema } from './integration.events';

const ajv = lazyPackage(() => new (require('ajv') as typeof import('ajv')).default({ allErrors: false, strict: false }));
const TYPES: Record<string, object> = { string: { type: 'string', maxLength: 10_000 }, number: { type: 'number' }, boolean: { type: 'boolean' } };

/** A published `configurations.*` schema as JSON Schema: its properties typed, `enum` and `required` kept, nothing else allowed. */
export function jsonSchemaOf(schema: ConfigurationSchema | undefined): object {
  const properties: Record<string, object> = {};
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    properties[name] = { ...(TYPES[property.type] ?? {}), ...(property.enum ? { enum: property.enum } : {}) };
  }
  return { type: 'object', properties, required: schema?.required ?? [], additionalProperties: false };
}

/** 400 naming the first problem when the configuration does not follow the integration's schema. */
export function validateConfiguration(what: string, schema: ConfigurationSchema | undefined, configuration: Record<string, unknown>): void {
  const validate = ajv().compile(jsonSchemaOf(schema));
  if (validate(configuration)) return;
  const error = validate.errors?.[0];
  const where = error?.instancePath ? `configuration${error.instancePath.replace(/\//g, '.')}` : 'configuration';
  throw DomainError.invalid(`${what}: ${where} ${error?.message ?? 'is invalid'}${error?.params && 'additionalProperty' in error.params ? ` (${String(error.params.additionalProperty)})` : ''}`);
}
