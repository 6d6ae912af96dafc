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
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Service } from '#composition/api/app';
import { apiSpec, type ApiRequest, type ApiResponse } from '#testing/api-spec';

export type { ApiRequest, ApiResponse } from '#testing/api-spec';

export const ADMIN_TOKEN = 'admin-token-for-generated-suites-0123456789';

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

/** The in-process start of the test kit (libs/testing), with the OpenAPI document and its response validators. */
export async function startInProcess(env: Record<string, string> = {}): Promise<InProcessApi> {
  const api = await apiSpec({ env, adminToken: ADMIN_TOKEN });
  const request = ({ method, url, ...options }: ApiRequest) => api.request(method, url, options);
  const document = (await request({ method: 'GET', url: '/v1/openapi.json' })).body as OpenApiDocument;
  const validators = responseValidators(document);
  return {
    service: api.service,
    document,
    publicUrl: api.publicUrl,
    request,
    createUser: (displayName) => api.createUser(displayName),
    responseProblem: (operation, response) => validators(operation, response),
    close: () => api.close(),
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
        successes: Object.keys(operation.responses)
          .map(Number)
          .filter((status) => status >= 200 && status < 400),
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
      const pointer = [
        'paths',
        operation.path,
        operation.method.toLowerCase(),
        'responses',
        String(response.status),
        'content',
        'application/json',
        'schema',
      ]
        .map((part) => encodeURIComponent(part.replace(/~/g, '~0').replace(/\//g, '~1')))
        .join('/');
      compiled.set(key, ajv.compile({ $ref: `openapi#/${pointer}` }));
    }
    const validate = compiled.get(key)!;
    if (validate(response.body)) return null;
    return `body breaks the documented schema (${ajv.errorsText(validate.errors)}): ${response.text.slice(0, 300)}`;
  };
}
