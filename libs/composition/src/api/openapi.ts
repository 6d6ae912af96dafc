import type { INestApplication } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RequestMethod } from '@nestjs/common/enums/request-method.enum.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { ModulesContainer } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DECORATORS, DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
// Where @Type() records nested DTO classes; class-transformer does not export it from its main entry.
const { defaultMetadataStorage } = require('class-transformer/cjs/storage.js') as typeof import('class-transformer/types/storage');
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { ID_PATTERN } from '#platform/ids';
import { mergeRulesSchema } from '#platform/merge-rules';
import { TEAM_ROLES } from '#platform/permissions';
import { platformSchemas, ref, type JsonSchema } from '#platform/platform.schemas';
import { CONTEXTS } from '../contexts';
import { MAX_TEAM_ENTRIES } from '#teams';

/** Response schemas of every context, under `components.schemas`. */
const RESOURCE_SCHEMAS: Record<string, JsonSchema> = {
  ...platformSchemas,
  ...Object.assign({}, ...CONTEXTS.map((context) => context.schemas ?? {})),
  Health: {
    type: 'object',
    required: ['status'],
    properties: { status: { type: 'string', enum: ['ok', 'starting', 'unavailable'] } },
  },
};

/** What a route handler takes and how it is guarded, read from the metadata Nest routes by. */
export interface RouteInfo {
  /** The operationId @nestjs/swagger gives the operation: `@ApiOperation`'s, else `${Controller}_${handler}`. */
  operationId: string;
  method: string;
  /** OpenAPI form: `/v1/orgs/{organizationId}`. */
  path: string;
  body?: Function;
  query?: Function;
  /** Path parameters taken as they are (`@Param`), not as ids (`@PathId`). */
  plainParams: string[];
  /** Reads `If-Match` (412 when stale). */
  conditional: boolean;
  isPublic: boolean;
  adminOnly: boolean;
}

// The keys under which auth.ts's @Public() and @AdminOnly() record themselves.
const PUBLIC = 'auth:public';
const ADMIN_ONLY = 'auth:admin';

const joinPath = (...parts: unknown[]) =>
  `/${parts
    .map((part) => String(part ?? '').replace(/^\/+|\/+$/g, ''))
    .filter((part) => part !== '')
    .join('/')}`
    .replace(/:([A-Za-z0-9_]+)/g, '{$1}')
    .replace(/\/\*$/, `/{${WILDCARD_PARAMETER}}`);

/**
 * The one wildcard route parameter: a page's path of slugs (`/content/path/*`). Fastify names it
 * `*` and Swagger `{path}`; the document names it as the interface does.
 */
const WILDCARD_PARAMETER = 'pagePath';

/** Every route of every controller, with its body and query DTOs. */
export function routesOf(app: INestApplication): RouteInfo[] {
  const routes: RouteInfo[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const controller of module.controllers.values()) {
      const type = controller.metatype as Function & { prototype: Record<string, unknown> };
      if (!type) continue;
      const prefix = Reflect.getMetadata(PATH_METADATA, type) as string | string[] | undefined;
      for (const name of Object.getOwnPropertyNames(type.prototype)) {
        const handler = type.prototype[name];
        if (typeof handler !== 'function') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) continue;
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, type, name) ?? {}) as Record<string, { index: number; data?: unknown }>;
        const paramTypes = (Reflect.getMetadata('design:paramtypes', type.prototype, name) ?? []) as Function[];
        const route: RouteInfo = {
          operationId:
            (Reflect.getMetadata(DECORATORS.API_OPERATION, handler) as { operationId?: string } | undefined)?.operationId ??
            `${type.name}_${name}`,
          method: RequestMethod[method].toLowerCase(),
          path: joinPath(Array.isArray(prefix) ? prefix[0] : prefix, Reflect.getMetadata(PATH_METADATA, handler)),
          plainParams: [],
          conditional: false,
          isPublic: Boolean(Reflect.getMetadata(PUBLIC, handler) ?? Reflect.getMetadata(PUBLIC, type)),
          adminOnly: Boolean(Reflect.getMetadata(ADMIN_ONLY, handler) ?? Reflect.getMetadata(ADMIN_ONLY, type)),
        };
        for (const [key, arg] of Object.entries(args)) {
          const kind = Number(key.split(':')[0]);
          if (kind === RouteParamtypes.BODY) route.body = paramTypes[arg.index];
          else if (kind === RouteParamtypes.QUERY) route.query = paramTypes[arg.index];
          else if (kind === RouteParamtypes.PARAM && typeof arg.data === 'string')
            route.plainParams.push(arg.data === '*' ? WILDCARD_PARAMETER : arg.data);
          else if (kind === RouteParamtypes.HEADERS && typeof arg.data === 'string' && arg.data.toLowerCase() === 'if-match')
            route.conditional = true;
        }
        routes.push(route);
      }
    }
  }
  return routes;
}

/** Defaults the handlers apply to absent query parameters (class-validator metadata does not carry them). */
const QUERY_DEFAULTS: Record<string, Record<string, unknown>> = {
  ListQuery: { limit: 50 },
  MemberListQuery: { order: 'desc', sort: 'joinedAt' },
  MemberSpacesQuery: { order: 'desc' },
  CollectionListQuery: { nested: 'true' },
};

const QUERY_DESCRIPTIONS: Record<string, string> = {
  page: 'the `next.page` of the previous answer',
  limit: 'items per page (0: the default page size)',
};

/** `position` of a move: before and/or after a sibling, a space or a collection (they share one order). */
function positionSchema(): JsonSchema {
  const pointer = (type: string) => ({
    type: 'object',
    additionalProperties: false,
    required: ['type', type],
    properties: { type: { type: 'string', enum: [type] }, [type]: { type: 'string', pattern: ID_PATTERN.source } },
  });
  const anchor = { oneOf: [pointer('space'), pointer('collection')] };
  return { type: 'object', additionalProperties: false, properties: { before: anchor, after: anchor } };
}

/** Validators of our own (`ValidateBy`) that class-validator-jsonschema cannot see into. */
const CUSTOM_CONVERTERS: Record<string, (meta: { target: Function | string }) => JsonSchema> = {
  isPosition: () => positionSchema(),
  isMergeRules: (meta) => mergeRulesSchema({ inherit: typeof meta.target === 'function' && /Space/.test(meta.target.name) }),
  isTemplate: () => ({
    type: 'object',
    additionalProperties: false,
    required: ['id'],
    properties: { id: { type: 'string', maxLength: 128 }, params: { type: 'object' } },
    description: 'accepted, not acted on: the space starts empty',
  }),
  isMembershipMap: () => ({
    type: 'object',
    maxProperties: MAX_TEAM_ENTRIES,
    description: 'user ids or e-mail addresses mapped to their role in the team',
    additionalProperties: {
      type: 'object',
      additionalProperties: false,
      required: ['role'],
      properties: { role: { type: 'string', enum: [...TEAM_ROLES] } },
    },
  }),
  isX509Certificate: () => ({ description: 'an X.509 certificate, PEM' }),
  isContentSecurityPolicy: () => ({
    description: 'a policy (text, one line), or an object of directives (`connect-src`, …) with values without `;` or `,`',
    oneOf: [
      { type: 'string', maxLength: 4000 },
      { type: 'object', additionalProperties: { type: 'string', maxLength: 1000 } },
    ],
  }),
  isSpacesValue: () => ({
    description: "space ids to show, or 'new' for a new space named after the site",
    oneOf: [
      { type: 'array', maxItems: 50, items: { type: 'string', pattern: ID_PATTERN.source } },
      { type: 'string', enum: ['new'] },
    ],
  }),
};

/** Members whose shape comes from a `@Transform`, which metadata does not describe. */
const PROPERTY_OVERRIDES: Record<string, JsonSchema> = {
  'InviteBody.emails': {
    type: 'array',
    minItems: 1,
    maxItems: 100,
    description: 'e-mail addresses, or `{ email, role }` objects',
    items: { anyOf: [{ type: 'string', format: 'email', maxLength: 254 }, ref('InvitationBody')] },
  },
};

/**
 * Which members may be absent or null, from the `@ValidateIf` / `@IsOptional` conditions: a member
 * whose conditions skip validation when it is undefined is optional; when it is null, nullable.
 */
function presence(target: Function): Map<string, { optional: boolean; nullable: boolean }> {
  const found = new Map<string, { optional: boolean; nullable: boolean }>();
  for (const meta of getMetadataStorage().getTargetValidationMetadatas(target, '', true, false)) {
    const entry = found.get(meta.propertyName) ?? { optional: false, nullable: false };
    if (meta.type === ValidationTypes.CONDITIONAL_VALIDATION) {
      const condition = meta.constraints[0] as (object: object, value: unknown) => boolean;
      if (!condition({ [meta.propertyName]: undefined }, undefined)) entry.optional = true;
      if (!condition({ [meta.propertyName]: null }, null)) entry.nullable = true;
    }
    found.set(meta.propertyName, entry);
  }
  return found;
}

/** The JSON Schema of every DTO, from its class-validator and class-transformer metadata. */
function requestSchemas(dtos: Function[]): Record<string, JsonSchema> {
  const generated = validationMetadatasToSchemas({
    refPointerPrefix: '#/components/schemas/',
    classTransformerMetadataStorage: defaultMetadataStorage,
    additionalConverters: CUSTOM_CONVERTERS as never,
  }) as Record<string, JsonSchema>;
  const classes = new Map<string, Function>();
  const seen = new Set<Function>();
  const visit = (target: Function) => {
    if (seen.has(target)) return;
    seen.add(target);
    classes.set(target.name, target);
    for (const meta of getMetadataStorage().getTargetValidationMetadatas(target, '', true, false)) {
      const type = defaultMetadataStorage.findTypeMetadata(meta.target as Function, meta.propertyName);
      if (type) visit(type.typeFunction() as Function);
    }
  };
  dtos.forEach(visit);
  const schemas: Record<string, JsonSchema> = {};
  const add = (name: string) => {
    if (schemas[name] || !generated[name]) return;
    const schema = structuredClone(generated[name]) as { properties?: Record<string, JsonSchema>; required?: string[] };
    const target = classes.get(name);
    const properties = schema.properties ?? {};
    const required: string[] = [];
    for (const [property, entry] of target ? presence(target) : new Map<string, { optional: boolean; nullable: boolean }>()) {
      if (!properties[property]) continue;
      const override = PROPERTY_OVERRIDES[`${name}.${property}`];
      if (override) properties[property] = override;
      if (!entry.optional) required.push(property);
      if (entry.nullable) {
        const member = properties[property];
        properties[property] = member.$ref
          ? { anyOf: [{ $ref: member.$ref }, { type: 'object', nullable: true, enum: [null] }] }
          : { ...member, nullable: true, ...(Array.isArray(member.enum) ? { enum: [...(member.enum as unknown[]), null] } : {}) };
      }
    }
    schemas[name] = { type: 'object', additionalProperties: false, properties, ...(required.length ? { required } : {}) };
    for (const text of JSON.stringify(schemas[name]).match(/#\/components\/schemas\/[A-Za-z0-9_]+/g) ?? []) {
      const referenced = text.slice('#/components/schemas/'.length);
      if (!classes.has(referenced)) {
        const found = findClass(referenced);
        if (found) classes.set(referenced, found);
      }
      add(referenced);
    }
  };
  for (const dto of dtos) add(dto.name);
  return schemas;
}

/** A class that has validation metadata, by name (nested DTOs reached through overrides). */
function findClass(name: string): Function | undefined {
  const storage = getMetadataStorage() as unknown as { validationMetadatas: Map<Function, unknown[]> | Array<{ target: Function }> };
  const targets =
    storage.validationMetadatas instanceof Map
      ? [...storage.validationMetadatas.keys()]
      : storage.validationMetadatas.map((meta) => meta.target);
  return targets.find((target) => typeof target === 'function' && target.name === name);
}

const ERRORS: Record<number, string> = {
  400: 'invalid input; the message names the field',
  401: 'missing, unknown or revoked token',
  403: 'not allowed',
  404: 'unknown resource, or one the caller may not see',
  409: 'conflict with the current state, or a concurrent change',
  412: 'the `If-Match` ETag is stale',
  414: 'a path segment is too long',
  413: 'the request body is too large',
  415: 'the request body is not JSON',
  422: 'the `Idempotency-Key` was used with another request',
  429: 'rate limited; retry after `Retry-After` seconds',
  503: 'a store is unavailable, or the service is starting',
};

/** The error statuses an operation can answer with, from what it takes and how it is guarded. */
function errorStatuses(route: RouteInfo): number[] {
  const statuses = new Set<number>([429, 503]);
  const takesBody = ['post', 'put', 'patch'].includes(route.method);
  if (route.body || route.query || route.plainParams.length > 0 || takesBody) statuses.add(400);
  if (!route.isPublic) statuses.add(401).add(403);
  // Public routes that check what they are given (SAML responses) refuse with 401/403 too.
  if (route.isPublic && route.body) statuses.add(401).add(403);
  // The router refuses malformed URLs (400) and over-long path segments (414) before any handler.
  if (route.path.includes('{')) statuses.add(400).add(404).add(414);
  if (route.method !== 'get') statuses.add(409);
  if (route.conditional) statuses.add(412);
  if (takesBody) statuses.add(413).add(415);
  if (route.method === 'post') statuses.add(422);
  return [...statuses].sort((a, b) => a - b);
}

/** Every POST takes it (docs/api/conventions.md, Retrying a POST; libs/platform/src/http/idempotency.ts). */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'A quoted string of 1 to 255 printable ASCII characters (a Structured Field String, e.g. `"8e03978e-40d5-43e8-bc93-6894a57f9324"`), ' +
    'unique per request of the caller: the same request again within 24 hours is answered from the first one’s record, with ' +
    '`Idempotent-Replayed: true`, without running again. The key with another request answers 422, while the first still runs 409, ' +
    'malformed 400. Server errors (5xx) are not recorded.',
  schema: { type: 'string', minLength: 3, maxLength: 257 },
};

const BEARER_DESCRIPTION =
  'An opaque bearer token (not a JWT): `POST /v1/admin/users` and `POST /v1/admin/users/{userId}/tokens` issue them, ' +
  'a SAML login at `/v1/sso/saml/{providerId}/acs` answers with one, and `DELETE /v1/admin/tokens/{tokenId}` revokes one. ' +
  'The service keeps only their SHA-256 hashes. `/v1/admin/*` takes the service’s ADMIN_TOKEN instead.';

/**
 * The OpenAPI document of the service: Nest's routes and response decorators, completed with what the
 * swagger compiler plugin would otherwise add (we build with plain tsc and test with SWC): request body
 * and query schemas from the DTOs' class-validator metadata, error responses, and per-route security.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Docs platform management API')
    .setDescription(
      'Organizations, members, teams, SSO, spaces, content, change requests, comments, sites, integrations, OpenAPI specs and translations.',
    )
    .setVersion('1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'opaque', description: BEARER_DESCRIPTION }, 'bearer')
    .addSecurityRequirements('bearer')
    .build();
  const document = SwaggerModule.createDocument(app, config);
  const routes = routesOf(app);
  const dtos = routes.flatMap((route) => [route.body, route.query]).filter((dto): dto is Function => dto !== undefined);
  const requests = requestSchemas(dtos);
  document.components = document.components ?? {};
  document.components.schemas = { ...document.components.schemas, ...requests, ...RESOURCE_SCHEMAS } as never;

  const byOperation = new Map(routes.map((route) => [route.operationId, route]));
  for (const path of Object.keys(document.paths)) {
    if (!path.endsWith('/{path}')) continue;
    const renamed = path.replace(/\/\{path\}$/, `/{${WILDCARD_PARAMETER}}`);
    document.paths[renamed] = document.paths[path];
    delete document.paths[path];
    for (const operation of Object.values(document.paths[renamed]) as Array<{ parameters?: Array<{ name: string }> }>) {
      for (const parameter of operation?.parameters ?? [])
        if (parameter.name === 'path' || parameter.name === '*') parameter.name = WILDCARD_PARAMETER;
    }
  }
  for (const [path, item] of Object.entries(document.paths)) {
    for (const operation of Object.values(item) as Record<string, any>[]) {
      if (!operation || typeof operation !== 'object' || !('responses' in operation)) continue;
      const route = byOperation.get(operation.operationId);
      if (!route) continue;
      const parameters: Record<string, any>[] = operation.parameters ?? [];
      for (const parameter of parameters) {
        if (parameter.in !== 'path') continue;
        parameter.schema = route.plainParams.includes(parameter.name)
          ? { type: 'string', minLength: 1 }
          : { type: 'string', pattern: ID_PATTERN.source, description: 'an id; anything else is not found (404)' };
      }
      if (route.query) {
        const schema = requests[route.query.name] as { properties: Record<string, JsonSchema>; required?: string[] };
        const defaults = defaultsOf(route.query);
        for (const [name, { nullable: _querystringsHaveNoNull, ...property }] of Object.entries(schema.properties)) {
          parameters.push({
            name,
            in: 'query',
            required: schema.required?.includes(name) ?? false,
            ...(QUERY_DESCRIPTIONS[name] ? { description: QUERY_DESCRIPTIONS[name] } : {}),
            schema: {
              ...property,
              ...(Array.isArray(property.enum) ? { enum: (property.enum as unknown[]).filter((value) => value !== null) } : {}),
              ...(name in defaults ? { default: defaults[name] } : {}),
            },
          });
        }
      }
      if (route.conditional && !parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'if-match')) {
        parameters.push({
          name: 'If-Match',
          in: 'header',
          required: false,
          description: 'the ETag of the version this change is based on: 412 when it is stale',
          schema: { type: 'string' },
        });
      }
      if (route.method === 'post' && path.startsWith('/v1')) parameters.push({ ...IDEMPOTENCY_KEY_PARAMETER });
      operation.parameters = parameters;
      if (route.body && operation.requestBody?.content?.['application/json']) {
        const json = { schema: ref(route.body.name) };
        operation.requestBody.content = route.path.endsWith('/acs')
          ? { 'application/json': json, 'application/x-www-form-urlencoded': json }
          : { 'application/json': json };
      }
      if (route.isPublic) operation.security = [];
      else if (route.adminOnly)
        operation.description = [operation.description, 'Needs the service’s ADMIN_TOKEN as the bearer token.'].filter(Boolean).join(' ');
      if (path.startsWith('/v1')) {
        for (const status of errorStatuses(route)) {
          operation.responses[status] ??= {
            description: ERRORS[status],
            content: { 'application/json': { schema: ref('ErrorEnvelope') } },
          };
        }
      }
    }
  }
  return document;
}

function defaultsOf(query: Function): Record<string, unknown> {
  const chain: Function[] = [];
  for (let type: any = query; type && type !== Function.prototype && type !== Object; type = Object.getPrototypeOf(type))
    chain.unshift(type);
  return Object.assign({}, ...chain.map((type) => QUERY_DEFAULTS[type.name] ?? {}));
}

/**
 * The service's own OpenAPI document at `/v1/openapi.json`, with an interactive page at `/docs`.
 * Built on the first request for it, once: converting every DTO's metadata costs start-up time that
 * most starts never need (openapi.e2e.ts builds it in every test run).
 */
export function setUpOpenApi(app: NestFastifyApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'v1/openapi.json',
    yamlDocumentUrl: 'v1/openapi.yaml',
  });
}
