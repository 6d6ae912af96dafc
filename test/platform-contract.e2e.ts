/**
 * The platform's clients against this service: every operation of the interface document, sent
 * as an allowed caller over an organization with one of everything, through the platform's
 * official client (`@gitbook/api`) where it has the method, and every success answer validated
 * against the platform's published schema with its `required` members and enumerations. Where
 * the platform has no such operation, the answer is validated against the service's own document.
 * The places where the interface document knowingly differs from the platform are DIFFERENCES.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GitBookAPI } from '@gitbook/api';
import {
  ADMIN_TOKEN,
  fillPath,
  operationsOf,
  startInProcess,
  type ApiResponse,
  type InProcessApi,
  type Operation,
} from './support/api-spec';
import { INTERFACE_OPERATIONS } from './support/interface-operations';
import { ISOLATION, ownerCallers, ownerFixture, RULES, type Context, type MatrixFixture, type User } from './support/operation-rules';
import { platformOperation, platformResponseProblem, type PlatformOperation } from './support/platform-schema';

/**
 * Where the interface document and the platform differ, the interface document wins: these answers
 * are validated against the service's own document instead (README, "Where the service differs from the platform").
 */
const TRANSLATION_SETTINGS =
  "the interface document's translation settings ({ title, languages }) are not the platform's translation runs, which share the path";
const DIFFERENCES: Record<string, string> = {
  'GET /v1/orgs/{organizationId}/translations': TRANSLATION_SETTINGS,
  'POST /v1/orgs/{organizationId}/translations': TRANSLATION_SETTINGS,
  'GET /v1/orgs/{organizationId}/translations/{translationSettingsId}': TRANSLATION_SETTINGS,
  'PUT /v1/orgs/{organizationId}/translations/{translationSettingsId}': TRANSLATION_SETTINGS,
  'DELETE /v1/orgs/{organizationId}/translations/{translationSettingsId}': TRANSLATION_SETTINGS,
};

/** The interface document's status differs from the platform's: the body is still the platform's (README). */
const CREATED_NOT_OK = "the interface document's status table answers 201 to the creation of a comment or reply; the platform answers 200";
const STATUS_DIFFERENCES: Record<string, { status: number; platform: number; reason: string }> = {
  'POST /v1/spaces/{spaceId}/comments': { status: 201, platform: 200, reason: CREATED_NOT_OK },
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments': { status: 201, platform: 200, reason: CREATED_NOT_OK },
  'POST /v1/spaces/{spaceId}/comments/{commentId}/replies': { status: 201, platform: 200, reason: CREATED_NOT_OK },
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies': {
    status: 201,
    platform: 200,
    reason: CREATED_NOT_OK,
  },
};

/** Imports fetch from a server on 127.0.0.1 (allowed for this suite only): the rules' imports aim at a closed port. */
const IMPORTS = new Set([
  'POST /v1/spaces/{spaceId}/content/import',
  'POST /v1/spaces/{spaceId}/content/page/{pageId}/import',
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/import',
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/import',
]);

const shapeOf = (path: string) => path.replace(/\{[^}]+\}/g, '{}');

describe("the platform's clients: every operation of the interface document answers in the platform's shapes", () => {
  let api: InProcessApi;
  let owner: User;
  let victim: User;
  let shared: MatrixFixture;
  let sharedWrites: Promise<MatrixFixture> | undefined;
  let counter = 0;
  /** The service's answer to the last request the official client sent. */
  let lastAnswer: ApiResponse | undefined;
  let files: Server;
  let filesUrl = '';

  const newFixture = () => ownerFixture(api, owner, victim);

  /** The official client, its requests injected into the service in process. */
  function officialClient(token: string): GitBookAPI {
    return new GitBookAPI({
      endpoint: 'http://service.test',
      authToken: token,
      serviceBinding: {
        fetch: async (input: string | URL | Request, init?: RequestInit) => {
          const url = new URL(String(input instanceof Request ? input.url : input));
          const headers = Object.fromEntries(new Headers(init?.headers).entries());
          const body = init?.body === null || init?.body === undefined ? undefined : String(init.body);
          const answer = await api.request({
            method: init?.method ?? 'GET',
            url: `${url.pathname}${url.search}`,
            headers,
            ...(body === undefined ? {} : { rawBody: body, contentType: headers['content-type'] ?? 'application/json' }),
          });
          lastAnswer = answer;
          const empty = [204, 205, 304].includes(answer.status);
          const responseHeaders = Object.entries(answer.headers).flatMap(([name, value]) =>
            value === undefined ? [] : (Array.isArray(value) ? value : [String(value)]).map((one) => [name, one] as [string, string]),
          );
          return new Response(empty ? null : answer.text, { status: answer.status, headers: responseHeaders });
        },
      } as unknown as never,
    });
  }

  /** The client's method for the platform's operation, if the client has one. */
  function clientMethod(client: GitBookAPI, operation: PlatformOperation): ((...args: unknown[]) => Promise<unknown>) | undefined {
    for (const group of Object.values(client as unknown as Record<string, unknown>)) {
      const method = group && typeof group === 'object' ? (group as Record<string, unknown>)[operation.operationId] : undefined;
      if (typeof method === 'function') return method as (...args: unknown[]) => Promise<unknown>;
    }
    return undefined;
  }

  beforeAll(async () => {
    files = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/markdown' });
      response.end('# Imported\n\nA page imported from markdown.\n');
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    api = await startInProcess({ IMPORT_ALLOW_PRIVATE_NETWORKS: 'true' });
    ({ owner, victim } = await ownerCallers(api));
    shared = await newFixture();
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    files?.close();
  });

  function serviceOperation(method: string, path: string): Operation {
    const found = operationsOf(api.document).find((candidate) => candidate.method === method && shapeOf(candidate.path) === shapeOf(path));
    if (!found) throw new Error(`${method} ${path} is not an operation of the service's document`);
    return found;
  }

  for (const { method, path, status } of INTERFACE_OPERATIONS) {
    const key = `${method} ${path}`;
    it(`${key} answers in the platform's shape`, async () => {
      const operation = serviceOperation(method, path);
      const rule = RULES[operation.key];
      if (!rule) throw new Error(`${operation.key} has no rule in test/support/operation-rules.ts`);
      // Writes that delete, move or transfer the fixture's resources get an organization of their own; the others share one.
      const writes = rule.fresh ?? method !== 'GET';
      const fixture = !writes ? shared : ISOLATION[operation.key] ? await newFixture() : await (sharedWrites ??= newFixture());
      const ctx: Context = { api, org: fixture, caller: 'admin', user: owner, unique: `${Date.now().toString(36)}${++counter}` };
      const ids = { ...fixture.ids, ...((await rule.setup?.(ctx)) ?? {}) };
      const token = rule.allow === 'adminToken' ? ADMIN_TOKEN : rule.allow === 'public' ? '' : owner.token;
      const body = IMPORTS.has(key) ? { source: 'markdown', url: `${filesUrl}/notes.md` } : rule.body?.(ctx);
      const query = rule.query ? await rule.query(ctx) : '';
      const platform = platformOperation(method, path);
      const client = platform && token ? clientMethod(officialClient(token), platform) : undefined;

      let answer: ApiResponse;
      if (client && platform) {
        lastAnswer = undefined;
        const values = [...operation.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ids[name]);
        const args: unknown[] = [...values];
        if (platform.operation.requestBody) args.push(body ?? {});
        if ((platform.operation.parameters ?? []).some((parameter: { in: string }) => parameter.in === 'query'))
          args.push(Object.fromEntries(new URLSearchParams(query)));
        args.push({});
        await client(...args).catch(() => undefined); // the client throws on errors: the answer is checked below
        if (!lastAnswer) throw new Error(`the official client sent no request for ${platform.operationId}`);
        answer = lastAnswer;
      } else {
        answer = await api.request({
          method,
          url: `${fillPath(operation.path, ids)}${query ? `?${query}` : ''}`,
          ...(token ? { token } : {}),
          body,
        });
      }

      if (status !== undefined) expect({ status: answer.status, body: answer.body }).toMatchObject({ status });
      if (answer.status >= 300) throw new Error(`answered ${answer.status}: ${answer.text.slice(0, 300)}`);
      const bodyOf = STATUS_DIFFERENCES[key]?.status === answer.status ? STATUS_DIFFERENCES[key].platform : undefined;
      const problem =
        platform && !DIFFERENCES[key]
          ? platformResponseProblem(platform, answer.status, answer.body, { bodyOf })
          : api.responseProblem(operation, answer);
      expect(problem).toBeNull();
    });
  }
});
