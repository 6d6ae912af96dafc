import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import type { LRUCache } from 'lru-cache';
import { DomainError } from '#platform/errors';
import { lazyPackage } from '#platform/lazy-package';
import type { ConfigurationSchema, IntegrationDefinition } from './integration.events';

const Ajv = lazyPackage(() => (require('ajv') as typeof import('ajv')).default);
const Lru = lazyPackage(() => (require('lru-cache') as typeof import('lru-cache')).LRUCache);

/**
 * Limits of a published `configurations` member, checked when it is published so that compiling a
 * schema stays cheap (about 0.2 ms per property: 500 properties compile in about 0.1 s).
 */
export const CONFIGURATION_LIMITS = {
  /** Properties of one schema (`configurations.account|space|site.properties`). */
  properties: 500,
  /** Values of one property's `enum`. */
  enumValues: 1000,
  /** A property's name, and each `required` entry. */
  nameLength: 100,
  /** Any string inside the schemas: titles, descriptions, enum values, URLs, defaults. */
  textLength: 10_000,
  /** Nesting of the whole `configurations` member (configurations → account → properties → name → enum is 5). */
  depth: 8,
  /** The whole `configurations` member as JSON. */
  jsonLength: 512 * 1024,
} as const;

/** Compiled configuration validators kept at once (each with its own Ajv, freed when evicted). */
export const CONFIGURATION_VALIDATORS_MAX = 200;
/** And at most this many characters of JSON Schema among them: the compiled code grows with the schema. */
export const CONFIGURATION_VALIDATORS_MAX_SCHEMA_CHARS = 2_000_000;

/**
 * Compiled validators are sizeable generated code: values of `enum` and `required` are checked in a
 * loop rather than unrolled, and the code is not optimized (it halves the compile time; validating
 * stays well under a millisecond). Own properties only: `required: ["constructor"]` is not met by `{}`.
 */
const AJV_OPTIONS: Options = {
  allErrors: false,
  strict: false,
  meta: false,
  validateSchema: false,
  ownProperties: true,
  loopRequired: 8,
  loopEnum: 8,
  code: { optimize: false },
};

const TYPES: Record<string, object> = {
  string: { type: 'string', maxLength: 10_000 },
  number: { type: 'number' },
  boolean: { type: 'boolean' },
};

/** A published `configurations.*` schema as JSON Schema: its properties typed, `enum` and `required` kept, nothing else allowed. */
export function jsonSchemaOf(schema: ConfigurationSchema | undefined): object {
  // Built with fromEntries (own members: no name can reach the prototype). Schemas published before
  // the publish-time checks may hold anything: what is not a property is ignored.
  const published = typeof schema?.properties === 'object' && schema.properties !== null ? schema.properties : {};
  const properties = Object.fromEntries(
    Object.entries(published).map(([name, property]) => {
      const { type, enum: values } = (typeof property === 'object' && property !== null ? property : {}) as Partial<
        ConfigurationSchema['properties'][string]
      >;
      return [
        name,
        {
          ...(typeof type === 'string' && Object.hasOwn(TYPES, type) ? TYPES[type] : {}),
          ...(Array.isArray(values) ? { enum: values } : {}),
        },
      ];
    }),
  );
  const required = Array.isArray(schema?.required) ? schema.required.filter((name) => typeof name === 'string') : [];
  return { type: 'object', properties, required, additionalProperties: false };
}

const dotted = (path: string) => path.replace(/\/([^/]*)/g, (_, segment: string) => `.${segment.replace(/~1/g, '/').replace(/~0/g, '~')}`);

function describe(error: ErrorObject | undefined): string {
  if (!error) return 'is invalid';
  if (error.propertyName !== undefined)
    return `has a property name that is not allowed (${JSON.stringify(error.propertyName.slice(0, 120))}: ${error.message ?? 'invalid'})`;
  const params = error.params as Record<string, unknown>;
  if ('additionalProperty' in params) return `${error.message} (${String(params.additionalProperty)})`;
  if ('allowedValues' in params && Array.isArray(params.allowedValues))
    return `must be one of ${params.allowedValues.slice(0, 10).map(String).join(', ')}`;
  return error.message ?? 'is invalid';
}

/**
 * The compiled validators of configuration schemas, in a bounded LRU cache keyed by the schema's
 * JSON (what it validates, property order included since that orders the errors): validating
 * against the same schema compiles it once, and a schema published once by a hostile integration
 * and then forgotten does not stay in memory. Each entry has its own Ajv instance, since Ajv keeps
 * every schema it compiled (and the values its code refers to) for its whole life.
 */
export class ConfigurationValidators {
  private cache: LRUCache<string, ValidateFunction> | undefined;
  private compiled = 0;

  constructor(private readonly options: { max?: number; maxSchemaChars?: number; compile?: (schema: object) => ValidateFunction } = {}) {}

  /** How many schemas were compiled so far. */
  get compilations(): number {
    return this.compiled;
  }

  /** How many compiled validators are kept. */
  get size(): number {
    return this.cache?.size ?? 0;
  }

  /** 400 naming the first problem when the configuration does not follow the schema; 422 when the published schema cannot be used. */
  validate(what: string, schema: ConfigurationSchema | undefined, configuration: Record<string, unknown>): void {
    const validate = this.validatorOf(what, jsonSchemaOf(schema));
    if (validate(configuration)) return;
    const error = validate.errors?.[0];
    const where = error?.instancePath ? `configuration${dotted(error.instancePath)}` : 'configuration';
    throw DomainError.invalid(`${what}: ${where} ${describe(error)}`);
  }

  private validatorOf(what: string, jsonSchema: object): ValidateFunction {
    const key = JSON.stringify(jsonSchema);
    this.cache ??= new (Lru())<string, ValidateFunction>({
      max: this.options.max ?? CONFIGURATION_VALIDATORS_MAX,
      maxSize: this.options.maxSchemaChars ?? CONFIGURATION_VALIDATORS_MAX_SCHEMA_CHARS,
      sizeCalculation: (_, schemaJson) => Math.max(1, schemaJson.length),
    });
    const cached = this.cache.get(key);
    if (cached) return cached;
    let validate: ValidateFunction;
    try {
      validate = (this.options.compile ?? ((schema: object) => new (Ajv())(AJV_OPTIONS).compile(schema)))(jsonSchema);
    } catch (error) {
      // Only a schema published before the publish-time checks can get here.
      throw new DomainError(
        422,
        `${what}: the integration's configuration schema cannot be used (${error instanceof Error ? error.message.slice(0, 200) : 'invalid schema'}); publish it again`,
      );
    }
    this.compiled += 1;
    // A schema larger than the whole cache is used once and not kept.
    if (key.length <= (this.options.maxSchemaChars ?? CONFIGURATION_VALIDATORS_MAX_SCHEMA_CHARS)) this.cache.set(key, validate);
    return validate;
  }
}

/** The process's validators. */
const validators = new ConfigurationValidators();

/** 400 naming the first problem when the configuration does not follow the integration's schema. */
export function validateConfiguration(what: string, schema: ConfigurationSchema | undefined, configuration: Record<string, unknown>): void {
  validators.validate(what, schema, configuration);
}

// ---- publishing ----------------------------------------------------------------------------------

const text = { type: 'string', maxLength: CONFIGURATION_LIMITS.textLength };

/** A published `configurations` member, in the platform's shape (a schema of properties, or a ContentKit component), within the limits. */
const PUBLISHED_CONFIGURATIONS = (() => {
  const property = {
    type: 'object',
    required: ['type'],
    properties: {
      type: { enum: ['string', 'number', 'boolean', 'button'] },
      title: text,
      description: text,
      completion_url: text,
      callback_url: text,
      button_text: text,
      enum: { type: 'array', maxItems: CONFIGURATION_LIMITS.enumValues, items: text },
    },
  };
  // `__proto__` cannot be a property: Ajv ignores a property of that name, and it is the prototype of every object.
  const configuration = {
    type: 'object',
    anyOf: [{ required: ['properties'] }, { required: ['componentId'] }],
    properties: {
      properties: {
        type: 'object',
        maxProperties: CONFIGURATION_LIMITS.properties,
        propertyNames: { minLength: 1, maxLength: CONFIGURATION_LIMITS.nameLength, not: { const: '__proto__' } },
        additionalProperties: property,
      },
      required: {
        type: 'array',
        uniqueItems: true,
        maxItems: CONFIGURATION_LIMITS.properties,
        items: { type: 'string', maxLength: CONFIGURATION_LIMITS.nameLength },
      },
      componentId: { type: 'string', minLength: 1, maxLength: 100 },
    },
  };
  return { type: 'object', additionalProperties: false, properties: { account: configuration, space: configuration, site: configuration } };
})();
const publishedConfigurations = lazyPackage(() => new (Ajv())({ ...AJV_OPTIONS, code: {} }).compile(PUBLISHED_CONFIGURATIONS));

/** The nesting of a JSON value (a scalar is 0), counted without recursion; stops once past `limit`. */
function depthOf(value: unknown, limit: number): number {
  let deepest = 0;
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > limit) return deepest;
    for (const child of Object.values(current)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * 400 naming the problem when a publication's `configurations` is not the platform's shape, is
 * beyond CONFIGURATION_LIMITS, or requires a property it does not define.
 */
export function checkPublishedConfigurations(configurations: IntegrationDefinition['configurations']): void {
  // Depth first: measuring the size walks the value recursively.
  if (depthOf(configurations, CONFIGURATION_LIMITS.depth) > CONFIGURATION_LIMITS.depth)
    throw DomainError.invalid(`configurations is nested deeper than ${CONFIGURATION_LIMITS.depth} levels`);
  if (JSON.stringify(configurations).length > CONFIGURATION_LIMITS.jsonLength)
    throw DomainError.invalid(`configurations is larger than ${CONFIGURATION_LIMITS.jsonLength} characters of JSON`);
  const validate = publishedConfigurations();
  if (!validate(configurations)) {
    const error = validate.errors?.[0];
    throw DomainError.invalid(`configurations${error?.instancePath ? dotted(error.instancePath) : ''} ${describe(error)}`);
  }
  for (const [place, schema] of Object.entries(configurations) as Array<[string, ConfigurationSchema]>) {
    const unknown = (schema.required ?? []).find((name) => !Object.prototype.hasOwnProperty.call(schema.properties ?? {}, name));
    if (unknown !== undefined)
      throw DomainError.invalid(`configurations.${place}.required names ${JSON.stringify(unknown)}, which is not one of its properties`);
  }
}

const bounded = (maxLength: number, minLength = 0) => ({ type: 'string', minLength, maxLength });
const link = { type: 'string', maxLength: 2048, pattern: '^https?://' };
/**
 * `blocks`, `contentSources` and `externalLinks` as the platform defines them (IntegrationBlock,
 * IntegrationContentSource, IntegrationExternalLinks): what an integration answers is then always
 * the platform's shape. Members the platform does not define are refused, as in every body.
 */
const PUBLISHED_COMPONENTS = {
  type: 'object',
  properties: {
    blocks: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'title'],
        properties: {
          id: bounded(100, 1),
          title: bounded(40, 2),
          description: bounded(150),
          icon: bounded(2048),
          urlUnfurl: { type: 'array', maxItems: 50, items: bounded(2048) },
          markdown: {
            type: 'object',
            additionalProperties: false,
            required: ['codeblock', 'body'],
            properties: { codeblock: bounded(100), body: bounded(100) },
          },
        },
      },
    },
    contentSources: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'title', 'configuration'],
        properties: {
          id: bounded(100, 1),
          title: bounded(40, 2),
          description: bounded(150),
          icon: bounded(2048),
          configuration: {
            type: 'object',
            additionalProperties: false,
            required: ['componentId'],
            properties: { componentId: bounded(100, 1) },
          },
        },
      },
    },
    externalLinks: {
      type: 'array',
      items: { type: 'object', additionalProperties: false, required: ['url', 'label'], properties: { url: link, label: bounded(100, 1) } },
    },
  },
};
const publishedComponents = lazyPackage(() => new (Ajv())({ ...AJV_OPTIONS, code: {} }).compile(PUBLISHED_COMPONENTS));

/** 400 naming the first problem when a publication's `blocks`, `contentSources` or `externalLinks` is not the platform's shape. */
export function checkPublishedComponents(
  members: Pick<Partial<IntegrationDefinition>, 'blocks' | 'contentSources' | 'externalLinks'>,
): void {
  const validate = publishedComponents();
  const given = Object.fromEntries(Object.entries(members).filter(([, value]) => value !== undefined));
  if (validate(given)) return;
  const error = validate.errors?.[0];
  const path = error?.instancePath ? dotted(error.instancePath).slice(1) : 'body';
  throw DomainError.invalid(`${path} ${describe(error)}`);
}
