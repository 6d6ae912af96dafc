/**
 * The service in process, driven by its own OpenAPI document: for suites generated from the
 * document (hostile input, authorization matrix).
 *
 *   const api = await startInProcess();                  // temp DATA_DIR, projections caught up
 *   const response = await api.request({ method: 'GET', url: '/v1/user', token });
 *   const operations = operationsOf(api.document);      // every operation, with its parameters and schemas
 *   api.responseProblem(operation, response);           // null, or why the answer breaks the document
 *   await api.close();
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { loadConfig } from '../../libs/platform/src/config';
import { createService, type Service } from '../../apps/api/src/app';

export const ADMIN_TOKEN = 'admin-token-for-generated-suites-0123456789';

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or the text when the answer is not JSON. */
  body: any;
  text: string;
}

export interface ApiRequest {
  method: string;
  url: string;
  token?: string;
  /** Serialized as JSON. */
  body?: unknown;
  /** Sent as is (`contentType` defaults to JSON). */
  rawBody?: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
  /** The client's address (rate limits without a valid token count per address). */
  remoteAddress?: string;
}

export interface InProcessApi {
  service: Service;
  document: OpenApiDocument;
  /** PUBLIC_URL: the base of every `urls.*` member and of the SAML service URLs. */
  publicUrl: string;
  request(request: ApiRequest): Promise<ApiResponse>;
  /** `POST /v1/admin/users`: a user and their token. */
  createUser(displayName: string): Promise<{ id: string; token: string; email: string }>;
  /** Null when the answer is what the document says this operation answers, else what is wrong. */
  responseProblem(operation: Operation, response: ApiResponse): string | null;
  close(): Promise<void>;
}

let users = 0;

export async function startInProcess(env: Record<string, string> = {}): Promise<InProcessApi> {
  const dataDir = mkdtempSync(join(tmpdir(), 'api-generated-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '10000000', ...env });
  const service = await createService({ config, adminToken: ADMIN_TOKEN });
  await service.runtime.runner!.start();
  await service.runtime.runner!.whenCaughtUp();

  async function request({ method, url, token, body, rawBody, contentType, headers, remoteAddress }: ApiRequest): Promise<ApiResponse> {
    const sent: Record<string, string> = { ...headers };
    if (token !== undefined) sent.authorization = `Bearer ${token}`;
    let payload: string | Buffer | undefined;
    if (rawBody !== undefined) payload = rawBody;
    else if (body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined) sent['content-type'] = contentType ?? 'application/json';
    const response = await service.app.inject({ method: method as 'GET', url, headers: sent, ...(remoteAddress ? { remoteAddress } : {}), ...(payload !== undefined ? { payload } : {}) });
    let parsed: unknown = response.body;
    if (String(response.headers['content-type'] ?? '').includes('json') && response.body !== '') {
      try {
        parsed = JSON.parse(response.body);
      } catch {
        parsed = response.body;
      }
    }
    return { status: response.statusCode, headers: response.headers as ApiResponse['headers'], body: parsed, text: response.body };
  }

  const documentResponse = await request({ method: 'GET', url: '/v1/openapi.json' });
  const document = documentResponse.body as OpenApiDocument;
  const validators = responseValidators(document);

  return {
    service,
    document,
    publicUrl: config.publicUrl,
    request,
    async createUser(displayName) {
      const n = ++users;
      const email = `user${n}-${Date.now()}@example.com`;
      const created = await request({ method: 'POST', url: '/v1/admin/users', token: ADMIN_TOKEN, body: { email, displayName } });
      if (created.status !== 201) throw new Error(`creating a user answered ${created.status}: ${created.text}`);
      return { id: created.body.user.id, token: created.body.token, email };
    },
    responseProblem(operation, response) {
      return validators(operation, response);
    },
    async close() {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, any>; securitySchemes?: Record<string, any> };
  security?: Record<string, string[]>[];
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Record<string, any>;
}

export interface Operation {
  /** `GET /v1/orgs/{organizationId}`. */
  key: string;
  method: string;
  path: string;
  operation: Record<string, any>;
  pathParameters: Parameter[];
  queryParameters: Parameter[];
  /** The JSON request body's schema, references resolved one level (its properties may hold references). */
  body?: Record<string, any>;
  /** 2xx statuses. */
  successes: number[];
  isPublic: boolean;
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation?.responses) continue;
      const parameters = (operation.parameters ?? []) as Parameter[];
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
      operations.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        operation,
        pathParameters: parameters.filter((p) => p.in === 'path'),
        queryParameters: parameters.filter((p) => p.in === 'query'),
        ...(bodySchema ? { body: resolve(document, bodySchema) } : {}),
        successes: Object.keys(operation.responses).map(Number).filter((status) => status >= 200 && status < 400),
        isPublic: Array.isArray(operation.security) && operation.security.length === 0,
      });
    }
  }
  return operations;
}

/** A schema with its `$ref` followed (one level). */
export function resolve(document: OpenApiDocument, schema: Record<string, any>): Record<string, any> {
  let current = schema;
  while (current?.$ref) current = document.components.schemas[String(current.$ref).replace('#/components/schemas/', '')];
  return current;
}

/** `/v1/orgs/{organizationId}` with the values given (URL-encoded unless `raw`). */
export function fillPath(path: string, values: Record<string, string>, raw: readonly string[] = []): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`no value for path parameter ${name} of ${path}`);
    return raw.includes(name) ? values[name] : encodeURIComponent(values[name]);
  });
}

/** Null when an error answer is exactly the envelope `{ error: { code, message } }` with `code` equal to the status. */
export function envelopeProblem(response: ApiResponse): string | null {
  const body = response.body;
  const exact =
    body !== null &&
    typeof body === 'object' &&
    Object.keys(body).length === 1 &&
    typeof body.error === 'object' &&
    body.error !== null &&
    Object.keys(body.error).sort().join() === 'code,message' &&
    body.error.code === response.status &&
    typeof body.error.message === 'string';
  return exact ? null : `not the error envelope: ${response.text.slice(0, 200)}`;
}

/** Compiles each documented response schema on first use; checks status and body against the document. */
function responseValidators(document: OpenApiDocument): (operation: Operation, response: ApiResponse) => string | null {
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  ajv.addFormat('url', true);
  ajv.addSchema({ ...document, $id: 'openapi' } as object);
  const compiled = new Map<string, ValidateFunction | null>();
  return (operation, response) => {
    const documented = operation.operation.responses[String(response.status)];
    if (!documented) return `status ${response.status} is not documented`;
    const content = documented.content as Record<string, { schema?: unknown }> | undefined;
    if (!content?.['application/json']) return null;
    const key = `${operation.key} ${response.status}`;
    if (!compiled.has(key)) {
      const pointer = ['paths', operation.path, operation.method.toLowerCase(), 'responses', String(response.status), 'content', 'application/json', 'schema']
        .map((part) => encodeURIComponent(part.replace(/~/g, '~0').replace(/\//g, '~1')))
        .join('/');
      compiled.set(key, ajv.compile({ $ref: `openapi#/${pointer}` }));
    }
    const validate = compiled.get(key)!;
    if (validate(response.body)) return null;
    return `body breaks the documented schema (${ajv.errorsText(validate.errors)}): ${response.text.slice(0, 300)}`;
  };
}
