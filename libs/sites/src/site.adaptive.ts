import { DomainError } from '#platform/errors';
import { lazyPackage } from '#platform/lazy-package';

const schemaChecker = lazyPackage(() => new (require('ajv') as typeof import('ajv')).default({ strict: false }));
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

type Property = { type?: unknown; description?: unknown; properties?: Record<string, Property>; additionalProperties?: unknown };

/**
 * An adaptive schema: a JSON Schema draft-07 object (Ajv checks it is one) of the documented shape:
 * `type: 'object'`, boolean properties with a `description`, an optional `unsigned` object of boolean
 * properties likewise, and `additionalProperties: false` at both levels. 400 names the member at fault.
 */
export function validateAdaptiveSchema(jsonSchema: Record<string, unknown>): void {
  const ajv = schemaChecker();
  if (!ajv.validateSchema(jsonSchema))
    throw DomainError.invalid(`jsonSchema is not a JSON Schema: ${ajv.errorsText(ajv.errors, { dataVar: 'jsonSchema' })}`);
  if (jsonSchema.type !== 'object') throw DomainError.invalid("jsonSchema.type must be 'object'");
  if (jsonSchema.additionalProperties !== false) throw DomainError.invalid('jsonSchema.additionalProperties must be false');
  const properties = (jsonSchema.properties ?? {}) as Record<string, Property>;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties))
    throw DomainError.invalid('jsonSchema.properties must be an object');
  for (const [name, property] of Object.entries(properties)) {
    if (!NAME.test(name))
      throw DomainError.invalid(`jsonSchema.properties.${name.slice(0, 64)} is not a claim name (letters, digits and _)`);
    if (name === 'unsigned') {
      if (property.type !== 'object' || property.additionalProperties !== false)
        throw DomainError.invalid('jsonSchema.properties.unsigned must be an object schema with additionalProperties false');
      for (const [inner, value] of Object.entries(property.properties ?? {}))
        booleanClaim(`jsonSchema.properties.unsigned.properties.${inner}`, inner, value);
      continue;
    }
    booleanClaim(`jsonSchema.properties.${name}`, name, property);
  }
}

function booleanClaim(where: string, name: string, property: Property): void {
  if (!NAME.test(name)) throw DomainError.invalid(`${where.slice(0, 120)} is not a claim name (letters, digits and _)`);
  if (property?.type !== 'boolean') throw DomainError.invalid(`${where}.type must be 'boolean'`);
  if (typeof property.description !== 'string' || property.description.trim() === '')
    throw DomainError.invalid(`${where}.description must be a text`);
}

/** A condition per claim of the schema, ready to paste: `visitor.claims.<name>` (`visitor.claims.unsigned.<name>`). */
export function templateConditions(jsonSchema: Record<string, unknown>): Array<{ description: string; condition: string }> {
  const items: Array<{ description: string; condition: string }> = [];
  for (const [name, property] of Object.entries((jsonSchema.properties ?? {}) as Record<string, Property>)) {
    if (name === 'unsigned') {
      for (const [inner, value] of Object.entries(property.properties ?? {}))
        items.push({ description: String(value.description), condition: `visitor.claims.unsigned.${inner}` });
    } else {
      items.push({ description: String(property.description), condition: `visitor.claims.${name}` });
    }
  }
  return items;
}
