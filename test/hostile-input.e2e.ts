/**
 * Hostile input, generated from the service's own OpenAPI document: every operation gets wrong
 * types, missing members, oversized and deeply nested values, prototype-named keys and ids,
 * ill-formed Unicode, bad cursors and limits, and unknown ids, all aimed at an organization with one
 * of everything. Whatever it is sent, the service answers without a 5xx, every error is exactly the
 * envelope, what the document calls invalid is never accepted, and another user's organization
 * reads the same afterwards.
 */
import { randomBytes } from 'node:crypto';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import {
  envelopeProblem,
  fillPath,
  operationsOf,
  resolve,
  startInProcess,
  ADMIN_TOKEN,
  type ApiResponse,
  type InProcessApi,
  type Operation,
} from './support/api-spec';
import { organizationFixture, type Caller, type OrganizationFixture } from './support/api-spec-fixtures';

const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
const MEGABYTE = 1024 * 1024;
const DEPTH = 10_000;
/** A lone high surrogate, as a JSON escape: valid JSON, ill-formed Unicode. */
const LONE_SURROGATE_JSON = '"\\ud800"';
const CONTROL_CHARACTERS = '"a\\u0000b\\u0007c\\u001b"';

interface Case {
  label: string;
  method: string;
  url: string;
  body?: unknown;
  rawBody?: string;
  contentType?: string;
  /** The request is invalid by the document (or names something the caller cannot act on): a 2xx is a failure. */
  mustFail: boolean;
}

const unknownId = () =>
  randomBytes(15)
    .toString('base64url')
    .replace(/[^A-Za-z0-9]/g, 'x');

describe('hostile input, for every operation of the OpenAPI document', () => {
  let api: InProcessApi;
  let admin: Caller;
  let witness: Caller;
  let fixture: OrganizationFixture;
  let foreign: OrganizationFixture;
  let witnessBefore: Record<string, unknown>;
  const ajv = new Ajv({ strict: false, allErrors: false });
  addFormats(ajv);
  ajv.addFormat('url', /^https?:\/\/\S+$/i);

  /** What the witness sees of their organization; must not change, whatever is sent to the other one. */
  async function witnessView(): Promise<Record<string, unknown>> {
    const base = `/v1/orgs/${foreign.organizationId}`;
    const urls = [
      base,
      `${base}/members`,
      `${base}/teams`,
      `${base}/teams/${foreign.teamId}`,
      `${base}/teams/${foreign.teamId}/members`,
      `${base}/spaces`,
      `${base}/collections`,
      `${base}/link-invites`,
      `${base}/saml`,
      `${base}/saml/${foreign.samlProviderId}`,
      `${base}/audit-events?limit=1000`,
      `/v1/spaces/${foreign.spaceId}`,
      `/v1/spaces/${foreign.spaceId}/share-links`,
      `/v1/collections/${foreign.collectionId}`,
      `/v1/users/${witness.id}`,
    ];
    const view: Record<string, unknown> = {};
    for (const url of urls) {
      const response = await api.request({ method: 'GET', url, token: witness.token, headers: { 'cache-control': 'no-cache' } });
      view[url] = { status: response.status, etag: response.headers.etag, body: response.body };
    }
    return view;
  }

  beforeAll(async () => {
    api = await startInProcess();
    admin = await api.createUser('Hostile Admin');
    witness = await api.createUser('Witness');
    fixture = await organizationFixture(api, admin);
    foreign = await organizationFixture(api, witness);
    // A token nobody uses, for the token routes.
    const spare = await api.createUser('Spare');
    fixture.ids.tokenId = (await api.request({ method: 'POST', url: `/v1/admin/users/${spare.id}/tokens`, token: ADMIN_TOKEN })).body.id;
    witnessBefore = await witnessView();
  }, 60_000);
  afterAll(async () => {
    await api?.close();
  });

  /** A value the schema accepts (for the members a case leaves alone). */
  function sample(schema: Record<string, any> | undefined, depth = 0): unknown {
    const s = schema ? resolve(api.document, schema) : undefined;
    if (!s || depth > 5) return 'x';
    if (s.anyOf || s.oneOf) return sample((s.anyOf ?? s.oneOf)[0], depth + 1);
    if (Array.isArray(s.enum)) return s.enum.find((value: unknown) => value !== null);
    switch (s.type) {
      case 'string':
        if (s.format === 'email') return `x${unknownId().slice(0, 8).toLowerCase()}@example.com`;
        if (s.format === 'url' || s.format === 'uri') return 'https://example.com/x';
        if (s.format === 'hostname') return 'example.com';
        return 'x'.repeat(Math.min(Math.max(s.minLength ?? 1, 3), s.maxLength ?? 3));
      case 'integer':
      case 'number':
        return s.minimum ?? 1;
      case 'boolean':
        return true;
      case 'array':
        return Array.from({ length: s.minItems ?? 0 }, () => sample(s.items, depth + 1));
      default:
        return Object.fromEntries((s.required ?? []).map((name: string) => [name, sample(s.properties?.[name], depth + 1)]));
    }
  }

  /** The JSON types a schema accepts, or null when it cannot say (references, unions). */
  function acceptedTypes(schema: Record<string, any>): Set<string> | null {
    const s = resolve(api.document, schema);
    if (!s?.type) return null;
    const types = new Set<string>([s.type === 'integer' ? 'number' : s.type]);
    if (s.nullable) types.add('null');
    return types;
  }

  const jsonType = (value: unknown) =>
    value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value;

  function bodyCases(operation: Operation, url: string): Case[] {
    const schema = operation.body!;
    const base = sample(schema) as Record<string, unknown>;
    const validator = ajv.compile({ ...schema, components: api.document.components, $id: `body:${operation.key}` } as object);
    const valid = (body: unknown) => validator(body) === true;
    const cases: Case[] = [];
    const add = (label: string, body: unknown) => cases.push({ label, method: operation.method, url, body, mustFail: !valid(body) });
    const raw = (label: string, rawBody: string, contentType = 'application/json') =>
      cases.push({ label, method: operation.method, url, rawBody, contentType, mustFail: true });
    /** The base body with one member given as raw JSON text. */
    const withRawMember = (name: string, json: string) => {
      const rest = Object.entries(base).filter(([key]) => key !== name);
      return `{${[...rest.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`), `${JSON.stringify(name)}:${json}`].join(',')}}`;
    };

    for (const [label, value] of Object.entries({ array: [], string: 'text', number: 42, null: null, boolean: true }))
      add(`body is ${label}`, value);
    raw('empty JSON body', '');
    raw('truncated JSON', '{"a":');
    raw(`${DEPTH} nested arrays`, '['.repeat(DEPTH) + ']'.repeat(DEPTH));
    raw(`${DEPTH} nested objects`, '{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH));
    raw('__proto__ member', withRawMember('__proto__', '{"polluted":true}'));
    raw('constructor.prototype member', withRawMember('constructor', '{"prototype":{"polluted":true}}'));
    add('unknown member', { ...base, unexpectedMember: 1 });
    raw('1 MB body', JSON.stringify({ ...base, padding: 'x'.repeat(MEGABYTE) }));
    cases.push({
      label: 'text/plain body',
      method: operation.method,
      url,
      rawBody: JSON.stringify(base),
      contentType: 'text/plain',
      mustFail: true,
    });
    if (!operation.operation.requestBody.content['application/x-www-form-urlencoded']) {
      cases.push({
        label: 'form body',
        method: operation.method,
        url,
        rawBody: 'a=1',
        contentType: 'application/x-www-form-urlencoded',
        mustFail: true,
      });
    }

    for (const [name, member] of Object.entries<Record<string, any>>(schema.properties ?? {})) {
      const property = resolve(api.document, member);
      const types = acceptedTypes(member);
      for (const wrong of [42, true, 'text', [], {}, null]) {
        if (types && !types.has(jsonType(wrong))) add(`${name}: ${jsonType(wrong)}`, { ...base, [name]: wrong });
      }
      if ((schema.required ?? []).includes(name)) {
        const { [name]: _missing, ...rest } = base;
        add(`${name} missing`, rest);
      }
      if (property?.type === 'string' || types === null) {
        if (property?.maxLength)
          add(`${name}: ${property.maxLength + 1} characters`, { ...base, [name]: 'x'.repeat(property.maxLength + 1) });
        raw(`${name}: 1 MB string`, withRawMember(name, JSON.stringify('x'.repeat(MEGABYTE))));
        raw(`${name}: lone surrogate`, withRawMember(name, LONE_SURROGATE_JSON));
        raw(`${name}: control characters`, withRawMember(name, CONTROL_CHARACTERS));
        add(`${name}: prototype name`, { ...base, [name]: '__proto__' });
      }
      if (property?.type === 'array') {
        const item = sample(property.items);
        if (property.maxItems)
          add(`${name}: ${property.maxItems + 1} items`, { ...base, [name]: Array.from({ length: property.maxItems + 1 }, () => item) });
        raw(`${name}: 1 MB array`, withRawMember(name, `[${Array.from({ length: MEGABYTE / 2 }, () => '0').join(',')}]`));
        raw(`${name}: lone surrogate item`, withRawMember(name, `[${LONE_SURROGATE_JSON}]`));
      }
      if (property?.type === 'object' || types === null) {
        raw(`${name}: __proto__ key`, withRawMember(name, '{"__proto__":{"polluted":true}}'));
        raw(`${name}: constructor key`, withRawMember(name, '{"constructor":{"prototype":{"polluted":true}}}'));
        add(`${name}: toString key`, { ...base, [name]: { toString: 'x', valueOf: 1 } });
      }
      raw(`${name}: ${DEPTH} nested arrays`, withRawMember(name, '['.repeat(DEPTH) + ']'.repeat(DEPTH)));
      raw(`${name}: ${DEPTH} nested objects`, withRawMember(name, '{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH)));
    }
    return cases;
  }

  function queryCases(operation: Operation, url: string): Case[] {
    const cases: Case[] = [];
    const add = (label: string, query: string, mustFail = true) =>
      cases.push({ label, method: operation.method, url: `${url}?${query}`, mustFail });
    const names = operation.queryParameters.map((p) => p.name);
    add('unknown query parameter', 'unexpectedParameter=1');
    for (const name of PROTOTYPE_NAMES) add(`query parameter ${name}`, `${name}=1`);
    add('query parameter __proto__[polluted]', '__proto__%5Bpolluted%5D=1');
    add('a query value with a lone surrogate', `${names[0]}=%ED%A0%80`);
    for (const parameter of operation.queryParameters) {
      const { name, schema } = parameter;
      if (name === 'page') {
        for (const [label, value] of Object.entries({
          garbage: 'garbage',
          'base64 junk': Buffer.from('{"junk":true}').toString('base64url'),
          'base64 of a prototype name': Buffer.from('__proto__').toString('base64url'),
          'base64 of binary': randomBytes(24).toString('base64'),
        })) {
          add(`page: ${label}`, `page=${encodeURIComponent(value)}`);
        }
      }
      // `limit=0` and an empty `limit=` ask for the default page size (the platform's schema allows 0).
      if (name === 'limit')
        for (const value of ['-1', '1001', 'x', '1.5', '1e3x']) add(`limit: ${JSON.stringify(value)}`, `limit=${value}`);
      if (schema.type === 'string') {
        if (schema.maxLength) add(`${name}: ${schema.maxLength + 1} characters`, `${name}=${'x'.repeat(schema.maxLength + 1)}`);
        if (schema.enum) add(`${name}: not one of ${schema.enum.join(', ')}`, `${name}=zzz`);
        // Accepted or refused by the service, but never a 5xx.
        add(`${name}: lone surrogate`, `${name}=%ED%A0%80`, false);
        add(`${name}: NUL and control characters`, `${name}=a%00b%07c%1B`, false);
        add(`${name}: a prototype name`, `${name}=__proto__`, false);
      }
      add(
        `${name} repeated`,
        `${name}=${encodeURIComponent(String(sample(schema)))}&${name}=${encodeURIComponent(String(sample(schema)))}`,
      );
    }
    return cases;
  }

  function pathCases(operation: Operation, body: unknown): Case[] {
    const cases: Case[] = [];
    const withBody = operation.body ? { body } : {};
    for (const parameter of operation.pathParameters) {
      const isId = Boolean(parameter.schema.pattern);
      const values: [string, string, boolean][] = [
        ...PROTOTYPE_NAMES.map((name): [string, string, boolean] => [name, name, isId]),
        ['unknown id', unknownId(), isId],
        ['65 characters', 'x'.repeat(65), isId],
        ['2,000 characters', 'x'.repeat(2000), true],
      ];
      const foreignId = foreign.ids[parameter.name];
      // Another user's resources: not found for this caller, except on public routes (a login page lists any organization's providers).
      // Admin-token routes act on anything by design, so they are not sent the witness's ids.
      const adminRoute = operation.path.startsWith('/v1/admin/');
      if (foreignId && foreignId !== fixture.ids[parameter.name] && !adminRoute)
        values.push(['another user’s id', foreignId, isId && !operation.isPublic]);
      for (const [label, value, mustFail] of values) {
        cases.push({
          label: `${parameter.name}: ${label}`,
          method: operation.method,
          url: fillPath(operation.path, { ...fixture.ids, [parameter.name]: value }),
          ...withBody,
          mustFail,
        });
      }
      for (const [label, value] of [
        ['lone surrogate (percent-encoded)', '%ED%A0%80'],
        ['NUL', '%00'],
        ['encoded slash', 'a%2Fb'],
      ]) {
        cases.push({
          label: `${parameter.name}: ${label}`,
          method: operation.method,
          url: fillPath(operation.path, { ...fixture.ids, [parameter.name]: value }, [parameter.name]),
          ...withBody,
          mustFail: isId,
        });
      }
    }
    return cases;
  }

  it('never answers 5xx, always answers errors with the envelope, refuses what the document calls invalid, and leaves other organizations alone', async () => {
    const operations = operationsOf(api.document);
    const statuses: Record<number, number> = {};
    const failures = new Map<string, string[]>();
    const fail = (cause: string, example: string) => failures.set(cause, [...(failures.get(cause) ?? []), example]);
    let requests = 0;
    const started = Date.now();

    for (const operation of operations) {
      const url = fillPath(operation.path, fixture.ids);
      const body = operation.body ? sample(operation.body) : undefined;
      const cases = [
        ...pathCases(operation, body),
        ...(operation.body ? bodyCases(operation, url) : []),
        ...(operation.queryParameters.length ? queryCases(operation, url) : []),
      ];
      const token = operation.path.startsWith('/v1/admin/') ? ADMIN_TOKEN : admin.token;
      for (const hostile of cases) {
        let response: ApiResponse;
        try {
          response = await api.request({
            method: hostile.method,
            url: hostile.url,
            token,
            body: hostile.body,
            rawBody: hostile.rawBody,
            contentType: hostile.contentType,
          });
        } catch (error) {
          fail(`${operation.key}: the request threw`, `${hostile.label}: ${(error as Error).message.slice(0, 200)}`);
          continue;
        }
        requests++;
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        const where = `${operation.key} [${hostile.label}]`;
        if (response.status >= 500)
          fail(`${operation.key} answered ${response.status}`, `${hostile.label}: ${response.text.slice(0, 160)}`);
        else if (response.status >= 400) {
          const problem = envelopeProblem(response);
          if (problem) fail(`${operation.key} answered ${response.status} without the envelope`, `${hostile.label}: ${problem}`);
          if (!operation.operation.responses[response.status])
            fail(`${operation.key} answered undocumented ${response.status}`, hostile.label);
        } else if (hostile.mustFail) {
          fail(`${operation.key} accepted invalid input (${response.status})`, `${hostile.label}`);
        } else {
          const problem = api.responseProblem(operation, response);
          if (problem) fail(`${operation.key} answered ${response.status} against its schema`, `${where}: ${problem}`);
        }
      }
    }

    const health = await api.request({ method: 'GET', url: '/health' });
    if (health.status !== 200) fail('GET /health is not 200 afterwards', `${health.status}: ${health.text.slice(0, 200)}`);
    if (({} as Record<string, unknown>).polluted !== undefined || (Object.prototype as Record<string, unknown>).polluted !== undefined)
      fail('Object.prototype was polluted', 'polluted');
    const witnessAfter = await witnessView();
    for (const [url, before] of Object.entries(witnessBefore)) {
      if (JSON.stringify(before) !== JSON.stringify(witnessAfter[url]))
        fail(
          'the witness organization changed',
          `${url}: ${JSON.stringify(before).slice(0, 200)} → ${JSON.stringify(witnessAfter[url]).slice(0, 200)}`,
        );
    }

    const histogram = Object.entries(statuses)
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ');
    const report = [...failures.entries()].map(
      ([cause, examples]) => `  ${cause} (${examples.length}×), e.g. ${examples.slice(0, 3).join(' | ')}`,
    );
    console.log(
      [
        `hostile input: ${operations.length} operations, ${requests} requests in ${((Date.now() - started) / 1000).toFixed(1)} s`,
        `statuses: ${histogram}`,
        `failures: ${report.length} causes`,
        ...report,
      ].join('\n'),
    );
    expect([...failures.keys()]).toEqual([]);
  }, 180_000);
});
