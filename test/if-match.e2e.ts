/**
 * One write convention, true everywhere (docs/api/conventions.md, If-Match), generated from the
 * service's own OpenAPI document: for every write on a single resource, as an allowed caller on an
 * organization with one of everything (one shared by the writes that leave its resources in place,
 * a fresh one for each write that deletes, moves or transfers them: ISOLATION in operation-rules.ts),
 *   (a) the GET of the resource answers an `ETag` (and the document says so);
 *   (b) the write with an `If-Match` that is not the current ETag (`"stale"`, and a well-formed tag
 *       naming another version) answers 412 in the error envelope, and the resource's GET answers
 *       the same ETag and body afterwards: nothing changed;
 *   (c) the write with `If-Match: <current ETag>` succeeds.
 *
 * Which writes, and which resource each one is conditional on, come from the document:
 * - a write's resource is the nearest path, from its own upwards (`…/{siteId}/move` → `…/{siteId}`),
 *   whose GET answers one object rather than a list: `…/sections/{siteSectionId}`, which has no GET
 *   of its own, is a part of the site, versioned by the site's ETag;
 * - writes that create a resource are out of scope: a POST to a path whose GET is a list, or a write
 *   whose only documented success is 201 Created;
 * - NO_SINGLE_RESOURCE names, with the reason, the few writes that have no resource a client could
 *   read a version of; the suite fails when one of them stops being a write in scope, so the list
 *   cannot go stale.
 * The request each write sends (body, set-up) is its rule in support/operation-rules.ts.
 */
import {
  ADMIN_TOKEN,
  envelopeProblem,
  fillPath,
  operationsOf,
  resolve,
  startInProcess,
  type ApiResponse,
  type InProcessApi,
  type OpenApiDocument,
  type Operation,
} from './support/api-spec';
import { expectStatus, joinWithRole, organizationFixture } from './support/api-spec-fixtures';
import { ISOLATION, RULES, ruleUsers, type Context, type MatrixFixture, type User } from './support/operation-rules';

/**
 * The body as JSON, signed URLs without their signature: a read signs download URLs anew, valid
 * from the second it answers, so two reads of an unchanged resource can differ there.
 */
const unsigned = (body: unknown): string => JSON.stringify(body).replace(/([?&])expires=\d+&signature=[\w-]+/g, '$1expires=&signature=');

/** Writes that act on no single resource a client could have read a version of. */
const NO_SINGLE_RESOURCE: Record<string, string> = {
  'POST /v1/orgs/{organizationId}/ping':
    "records that the caller was seen, in a stream of its own precisely so that it never changes the organization's ETag",
  'POST /v1/orgs/{organizationId}/invites':
    'creates invitations by e-mail (read back at /pending-invites): a creation, though not at the path that lists them',
  'POST /v1/orgs/{organizationId}/invites/{inviteId}':
    'joins by a link invite: the caller is not a member yet, so no version of the organization is visible to them',
  'POST /v1/user/invites/{inviteId}':
    'accepts an invitation of the caller: it has no GET of its own and its organization is not visible to them yet',
  'DELETE /v1/user/invites/{inviteId}':
    'declines an invitation of the caller: it has no GET of its own and its organization is not visible to them',
  'DELETE /v1/admin/tokens/{tokenId}': 'revokes a token: tokens are credentials, never readable, so there is no version to name',
  'POST /v1/admin/orgs/{organizationId}/verified-domains/{domain}':
    "the operators' stand-in for the DNS check: it records a fact observed outside the service, under /v1/admin where nothing is read",
  'POST /v1/sso/saml/{providerId}/acs': 'a SAML login posted by the identity provider: it signs a user in, it does not change the provider',
  'POST /v1/integrations/{integrationName}/render': 'renders a UI component from the state the request carries: nothing is written',
};

/**
 * Where the path does not name the resource a write is conditional on: rolling back to a revision
 * writes the space's content, so its precondition is the content's current revision, not the
 * (immutable) revision rolled back to.
 */
const CONDITIONAL_ON: Record<string, string> = {
  'POST /v1/spaces/{spaceId}/revisions/{revisionId}/rollback': '/v1/spaces/{spaceId}/content',
};

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A read; a creation; a write of NO_SINGLE_RESOURCE; a write with no GET on its path to read a version from; or a write conditional on `resource`'s ETag. */
type Scope = { kind: 'read' | 'creation' | 'excluded' | 'unreadable' } | { kind: 'single'; resource: Operation };

/** Whether a GET answers a list envelope (`{ count, items: [] }`) rather than one object. */
function answersList(document: OpenApiDocument, get: Operation): boolean {
  const schema = get.operation.responses['200']?.content?.['application/json']?.schema;
  return schema !== undefined && resolve(document, schema)?.properties?.items?.type === 'array';
}

/** Whether, and on which resource's version, the suite checks a write (see the file's comment). */
function scopeOf(document: OpenApiDocument, operations: Operation[], write: Operation): Scope {
  if (!WRITES.has(write.method)) return { kind: 'read' };
  const gets = new Map(operations.filter((o) => o.method === 'GET').map((o) => [o.path, o]));
  const ownGet = gets.get(write.path);
  if ((write.method === 'POST' && ownGet && answersList(document, ownGet)) || write.successes.every((status) => status === 201))
    return { kind: 'creation' };
  if (NO_SINGLE_RESOURCE[write.key]) return { kind: 'excluded' };
  const named = CONDITIONAL_ON[write.key];
  if (named) return gets.has(named) ? { kind: 'single', resource: gets.get(named)! } : { kind: 'unreadable' };
  const segments = write.path.split('/');
  for (let length = segments.length; length > 2; length -= 1) {
    const get = gets.get(segments.slice(0, length).join('/'));
    if (get && !answersList(document, get)) return { kind: 'single', resource: get };
  }
  return { kind: 'unreadable' };
}

/** An entity tag naming another version than `etag`, of the same form: the previous revision, or the opaque value with its last character changed. */
function anotherVersionOf(etag: string): string {
  const opaque = etag.replace(/^"|"$/g, '');
  if (/^\d+$/.test(opaque)) return `"${opaque === '0' ? 1 : Number(opaque) - 1}"`;
  return `"${opaque.slice(0, -1)}${opaque.endsWith('A') ? 'B' : 'A'}"`;
}

const header = (response: ApiResponse, name: string) => {
  const value = response.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

describe('If-Match on every write to a single resource of the OpenAPI document', () => {
  let api: InProcessApi;
  let operations: Operation[];
  let owner: User;
  let admin: User;
  let victim: User;
  let counter = 0;
  let sharedWrites: Promise<MatrixFixture> | undefined;

  beforeAll(async () => {
    api = await startInProcess();
    operations = operationsOf(api.document);
    ruleUsers.owner = owner = await api.createUser('Owner');
    admin = await api.createUser('Admin');
    victim = await api.createUser('Victim');
    // The admin's own organization: where transfers go.
    ruleUsers.ownOrganizations.set(
      admin.id,
      expectStatus(
        await api.request({ method: 'POST', url: '/v1/orgs', token: admin.token, body: { title: "Admin's own" } }),
        201,
        'creating an own organization',
      ).id,
    );
  }, 60_000);
  afterAll(async () => {
    await api?.close();
  });

  /** A fresh organization with one of everything, the admin (the caller) and the victim (a reader, in the team) as members. */
  async function newFixture(): Promise<MatrixFixture> {
    const org = await organizationFixture(api, owner);
    await joinWithRole(api, owner, org.organizationId, admin, 'admin');
    await joinWithRole(api, owner, org.organizationId, victim, 'read');
    expectStatus(
      await api.request({
        method: 'PUT',
        url: `/v1/orgs/${org.organizationId}/teams/${org.teamId}/members/${victim.id}`,
        token: owner.token,
        body: {},
      }),
      204,
      'adding the victim to the team',
    );
    return { ...org, victim, ids: { ...org.ids, userId: victim.id } };
  }

  it('knows, for every write of the document, whether and on which resource it is conditional', () => {
    const document = api.document;
    const unreadable = operations.filter((o) => scopeOf(document, operations, o).kind === 'unreadable').map((o) => o.key);
    // A write on a resource without a GET anywhere on its path must be given a reason here, or a GET.
    expect(unreadable).toEqual([]);
    // Every exclusion names a write of the document that would otherwise be in scope.
    const stale = Object.keys(NO_SINGLE_RESOURCE).filter((key) => {
      const operation = operations.find((o) => o.key === key);
      return !operation || scopeOf(document, operations, operation).kind !== 'excluded';
    });
    expect(stale).toEqual([]);
    const inScope = operations.filter((o) => scopeOf(document, operations, o).kind === 'single');
    expect(inScope.filter((o) => !RULES[o.key]).map((o) => o.key)).toEqual([]);
    expect(Object.keys(CONDITIONAL_ON).filter((key) => !operations.some((o) => o.key === key))).toEqual([]);
  });

  /**
   * Tests are declared before the service runs, so from the rules (one per operation of the
   * document, which the first test and the authorization matrix hold to); the document then says
   * which are writes on a single resource. Creations are accounted for by the first test.
   */
  const candidates = Object.keys(RULES).filter((key) => WRITES.has(key.split(' ')[0]) && !NO_SINGLE_RESOURCE[key]);

  for (const key of candidates) {
    it(`${key}, when it writes one resource: answers 412 to a stale If-Match, changing nothing, and accepts the current ETag`, async () => {
      const write = operations.find((o) => o.key === key);
      if (!write) throw new Error(`${key} has a rule but is not an operation of the document`);
      const scope = scopeOf(api.document, operations, write);
      if (scope.kind !== 'single') return; // a creation: out of scope
      const rule = RULES[key];
      // Each test reads the current ETag first: writes that leave the fixture's resources in place share one organization.
      const fixture = ISOLATION[key] ? await newFixture() : await (sharedWrites ??= newFixture());
      const ctx: Context = { api, org: fixture, caller: 'admin', user: admin, unique: `${Date.now().toString(36)}${++counter}` };
      const ids = { ...fixture.ids, ...((await rule.setup?.(ctx)) ?? {}) };
      const body = rule.body?.(ctx);
      const query = rule.query ? `?${await rule.query(ctx)}` : '';
      const writeToken = rule.allow === 'adminToken' ? ADMIN_TOKEN : admin.token;
      const resourceUrl = fillPath(scope.resource.path, ids);
      const read = () => api.request({ method: 'GET', url: resourceUrl, token: admin.token, headers: { 'cache-control': 'no-cache' } });
      const send = (ifMatch: string) =>
        api.request({
          method: write.method,
          url: `${fillPath(write.path, ids)}${query}`,
          token: writeToken,
          body,
          headers: { 'if-match': ifMatch },
        });
      const failures: string[] = [];

      // The document tells clients both halves of the convention.
      if (
        !(write.operation.parameters ?? []).some(
          (p: { in: string; name: string }) => p.in === 'header' && p.name.toLowerCase() === 'if-match',
        )
      )
        failures.push(`the document declares no If-Match header on ${key}`);
      if (!scope.resource.operation.responses['200']?.headers?.ETag)
        failures.push(`the document declares no ETag on ${scope.resource.key}`);

      // (a) the resource answers its version.
      const first = await read();
      const before = expectStatus(first, 200, `reading ${resourceUrl}`) as unknown;
      const current = header(first, 'etag');
      if (!current) {
        failures.push(`${scope.resource.key} answers no ETag`);
        expect(failures).toEqual([]);
        return;
      }

      // (b) a stale If-Match is refused and changes nothing.
      for (const stale of ['"stale"', anotherVersionOf(current)]) {
        const refused = await send(stale);
        if (refused.status !== 412)
          failures.push(`If-Match: ${stale} answered ${refused.status} (expected 412): ${refused.text.slice(0, 160)}`);
        else if (envelopeProblem(refused)) failures.push(`If-Match: ${stale}: ${envelopeProblem(refused)}`);
        const after = await read();
        if (header(after, 'etag') !== current)
          failures.push(`after If-Match: ${stale}, the ETag of ${resourceUrl} went from ${current} to ${header(after, 'etag')}`);
        else if (unsigned(after.body) !== unsigned(before))
          failures.push(`after If-Match: ${stale}, ${resourceUrl} changed: ${after.text.slice(0, 160)}`);
      }

      // (c) the current ETag lets the write through (to the status the rule allows, where it cannot fully succeed here).
      const accepted = await send(current);
      const expected = rule.allowedStatus !== undefined ? [rule.allowedStatus] : write.successes;
      if (!expected.includes(accepted.status))
        failures.push(
          `If-Match: ${current} (current) answered ${accepted.status} (expected ${expected.join('/')}): ${accepted.text.slice(0, 160)}`,
        );

      expect(failures).toEqual([]);
    });
  }
});
