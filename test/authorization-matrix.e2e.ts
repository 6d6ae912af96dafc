/**
 * Who may call what, generated from the service's own OpenAPI document: every operation × every
 * kind of caller, each expected outcome derived from ONE declared rule per operation (RULES below).
 * An operation of the document without a rule fails the suite: a new endpoint must say who may
 * call it.
 *
 * Expected outcomes: 401 without a token or with a bad one (public routes aside); 404 for anything
 * inside an organization to people outside it (its existence is not revealed), including other
 * organizations' admins; 403 for members below the role needed (or 404 where the resource itself is
 * invisible to them, say a private space to a guest); a documented 2xx for allowed callers.
 * Writes run on a fresh organization for each allowed caller, so that one caller's success cannot
 * hide or cause another's outcome.
 */
import { ADMIN_TOKEN, envelopeProblem, fillPath, operationsOf, startInProcess, type InProcessApi, type Operation } from './support/api-spec';
import { expectStatus, joinWithRole, organizationFixture } from './support/api-spec-fixtures';
import { CALLERS, ROLES, RULES, ruleUsers, type CallerName, type Context, type MatrixFixture, type Role, type Rule, type User } from './support/operation-rules';

const rank = (role: 'guest' | Role) => (role === 'guest' ? 0 : ROLES.length - ROLES.indexOf(role));

/** The outcome the rule gives a caller: 'success' or the error status. */
function expectedOutcome(rule: Rule, caller: CallerName, self: boolean): 'success' | number {
  if (rule.allow === 'public') return 'success';
  if (caller === 'anonymous' || caller === 'badToken') return 401;
  if (rule.allow === 'adminToken') return caller === 'service' ? 'success' : 403;
  if (caller === 'service') return 403;
  if (rule.allow === 'user') return 'success';
  if (caller === 'outsider' || caller === 'otherAdmin') return 404;
  const needed = self ? rule.self! : rule.allow;
  if (rank(caller) >= rank(needed)) return 'success';
  return caller === 'guest' ? (rule.guest ?? rule.below ?? 403) : (rule.below ?? 403);
}

describe('the authorization matrix, for every operation of the OpenAPI document', () => {
  let api: InProcessApi;
  const users = {} as Record<CallerName | 'victim', User>;
  let shared: MatrixFixture;
  let counter = 0;
  let owner: User;

  async function newFixture(): Promise<MatrixFixture> {
    const org = await organizationFixture(api, owner);
    const victim = users.victim;
    await Promise.all([
      ...(['guest', ...ROLES] as const).map((role) => joinWithRole(api, owner, org.organizationId, users[role], role === 'guest' ? null : role)),
      joinWithRole(api, owner, org.organizationId, victim, 'read'),
    ]);
    expectStatus(await api.request({ method: 'PUT', url: `/v1/orgs/${org.organizationId}/teams/${org.teamId}/members/${victim.id}`, token: owner.token, body: {} }), 204, 'adding the victim to the team');
    return { ...org, victim, ids: { ...org.ids, userId: victim.id } };
  }

  beforeAll(async () => {
    api = await startInProcess();
    ruleUsers.owner = owner = await api.createUser('Owner');
    for (const name of ['outsider', 'otherAdmin', 'guest', ...ROLES, 'victim'] as const) users[name] = await api.createUser(name);
    ruleUsers.reviewer = users.review;
    // Every user owns an organization of their own (the destination of transfers); the other admin's is "another organization".
    for (const name of ['outsider', 'otherAdmin', 'guest', ...ROLES] as const) {
      ruleUsers.ownOrganizations.set(users[name].id, expectStatus(await api.request({ method: 'POST', url: '/v1/orgs', token: users[name].token, body: { title: `${name}'s own` } }), 201, 'creating an own organization').id);
    }
    shared = await newFixture();
  }, 60_000);
  afterAll(async () => {
    await api?.close();
  });

  it('declares a rule for every operation of the document', () => {
    const missing = operationsOf(api.document)
      .map((o) => o.key)
      .filter((key) => !RULES[key]);
    expect(missing).toEqual([]);
  });

  async function attempt(operation: Operation, rule: Rule, caller: CallerName, self: boolean, fixture: MatrixFixture, failures: string[]) {
    const user = caller in users ? users[caller as keyof typeof users] : undefined;
    const ctx: Context = { api, org: fixture, caller, user, unique: `${Date.now().toString(36)}${++counter}` };
    const bound = (await rule.setup?.(ctx)) ?? {};
    const ids: Record<string, string> = { ...fixture.ids, ...(self && user ? { userId: user.id } : {}), ...bound };
    const token = caller === 'anonymous' ? undefined : caller === 'badToken' ? 'not-a-token-of-ours' : caller === 'service' ? ADMIN_TOKEN : user!.token;
    const body = rule.body?.(ctx);
    // Bad tokens are rate limited per address: each comes from an address of its own.
    const remoteAddress = caller === 'badToken' ? `10.${counter % 250}.${(counter >> 8) % 250}.${(counter >> 16) % 250 + 1}` : undefined;
    const query = rule.query ? `?${await rule.query(ctx)}` : '';
    const response = await api.request({ method: operation.method, url: `${fillPath(operation.path, ids)}${query}`, token, body, remoteAddress });
    const expected = expectedOutcome(rule, caller, self);
    const scenario = `${operation.key}${self ? ' (own userId)' : ''} as ${caller}`;
    if (expected === 'success' && rule.allowedStatus !== undefined) {
      if (response.status !== rule.allowedStatus) failures.push(`${scenario}: expected ${rule.allowedStatus}, got ${response.status} ${response.text.slice(0, 120)}`);
    } else if (expected === 'success') {
      if (!operation.successes.includes(response.status)) failures.push(`${scenario}: expected ${operation.successes.join('/')}, got ${response.status} ${response.text.slice(0, 120)}`);
      else {
        const problem = api.responseProblem(operation, response);
        if (problem) failures.push(`${scenario}: ${problem}`);
      }
    } else if (response.status !== expected) {
      failures.push(`${scenario}: expected ${expected}, got ${response.status} ${response.text.slice(0, 120)}`);
    } else {
      const problem = envelopeProblem(response);
      if (problem) failures.push(`${scenario}: ${problem}`);
    }
  }

  // One test per rule: each operation's callers run on their own, with the default time limit.
  for (const [key, rule] of Object.entries(RULES)) {
    it(`gives every caller the outcome the rule of ${key} says`, async () => {
      const operation = operationsOf(api.document).find((candidate) => candidate.key === key);
      if (!operation) throw new Error(`${key} has a rule but is not an operation of the document`);
      const failures: string[] = [];
      const writes = rule.fresh ?? operation.method !== 'GET';
      for (const self of rule.self ? [false, true] : [false]) {
        // Refused callers first, on one organization; then each allowed caller on a fresh one.
        const ordered = [...CALLERS].sort((a, b) => Number(expectedOutcome(rule, a, self) === 'success') - Number(expectedOutcome(rule, b, self) === 'success'));
        let refusedOn: MatrixFixture | undefined;
        for (const caller of ordered) {
          const allowed = expectedOutcome(rule, caller, self) === 'success';
          const fixture = !writes ? shared : allowed ? await newFixture() : (refusedOn ??= await newFixture());
          try {
            await attempt(operation, rule, caller, self, fixture, failures);
          } catch (error) {
            failures.push(`${operation.key} as ${caller}: ${(error as Error).message.slice(0, 200)}`);
          }
        }
      }
      expect(failures).toEqual([]);
    });
  }
});
