/**
 * Who may call what, generated from the service's own OpenAPI document: every operation × every
 * kind of caller, each expected outcome derived from ONE declared rule per operation (RULES in
 * operation-rules.ts). The operations are split into areas, one suite file each, so that test
 * workers share the matrix; every operation belongs to exactly one area.
 *
 * Expected outcomes: 401 without a token or with a bad one (public routes aside); 404 for anything
 * inside an organization to people outside it (its existence is not revealed), including other
 * organizations' admins; 403 for members below the role needed (or 404 where the resource itself is
 * invisible to them, say a private space to a guest); a documented 2xx for allowed callers.
 *
 * Reads run on one organization. Writes run on a second one shared by the area's writes, except
 * those ISOLATION names: a write that deletes, transfers or merges what the fixture's ids name runs
 * each allowed caller on an organization of its own, so that one caller's success cannot hide or
 * cause another's outcome.
 */
import { ADMIN_TOKEN, envelopeProblem, fillPath, operationsOf, startInProcess, type InProcessApi, type Operation } from './api-spec';
import { expectStatus, joinWithRole, organizationFixture } from './api-spec-fixtures';
import {
  CALLERS,
  ISOLATION,
  ROLES,
  RULES,
  ruleUsers,
  type CallerName,
  type Context,
  type MatrixFixture,
  type Role,
  type Rule,
  type User,
} from './operation-rules';

export const AREAS = ['organizations', 'spaces', 'change-requests', 'sites', 'integrations'] as const;
export type Area = (typeof AREAS)[number];

/** The area an operation's rule is checked in, by its path. */
export function areaOf(key: string): Area {
  const path = key.slice(key.indexOf(' ') + 1);
  if (path.startsWith('/v1/integrations')) return 'integrations';
  if (/^\/v1\/orgs\/\{organizationId\}\/(sites|openapi|translations)\b/.test(path)) return 'sites';
  if (/\/change-requests\b/.test(path)) return 'change-requests';
  if (/^\/v1\/(spaces|collections)\b/.test(path) || /^\/v1\/orgs\/\{organizationId\}\/(spaces|collections|search)\b/.test(path))
    return 'spaces';
  return 'organizations';
}

const rank = (role: 'guest' | Role) => (role === 'guest' ? 0 : ROLES.length - ROLES.indexOf(role));

/** The outcome the rule gives a caller: 'success' or the error status. */
export function expectedOutcome(rule: Rule, caller: CallerName, self: boolean): 'success' | number {
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

/** Every check the matrix makes for the rules of an area: operation (and own-userId variant) × caller. */
export function checksOf(keys: readonly string[]): string[] {
  return keys.flatMap((key) =>
    (RULES[key].self ? [false, true] : [false]).flatMap((self) => CALLERS.map((caller) => scenarioOf(key, self, caller))),
  );
}

const scenarioOf = (key: string, self: boolean, caller: CallerName) => `${key}${self ? ' (own userId)' : ''} as ${caller}`;

/** The suite of one area: every rule of it, each caller's outcome checked. */
export function describeAuthorizationMatrix(area: Area, options: { coverage?: boolean } = {}): void {
  const keys = Object.keys(RULES).filter((key) => areaOf(key) === area);

  describe(`the authorization matrix (${area}), for every operation of the OpenAPI document`, () => {
    let api: InProcessApi;
    const users = {} as Record<CallerName | 'victim', User>;
    let readOn: MatrixFixture;
    let writeOn: Promise<MatrixFixture> | undefined;
    let counter = 0;
    let owner: User;
    const checked = new Set<string>();

    async function newFixture(): Promise<MatrixFixture> {
      const org = await organizationFixture(api, owner);
      const victim = users.victim;
      await Promise.all([
        ...(['guest', ...ROLES] as const).map((role) =>
          joinWithRole(api, owner, org.organizationId, users[role], role === 'guest' ? null : role),
        ),
        joinWithRole(api, owner, org.organizationId, victim, 'read'),
      ]);
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

    beforeAll(async () => {
      api = await startInProcess();
      ruleUsers.owner = owner = await api.createUser('Owner');
      const names = ['outsider', 'otherAdmin', 'guest', ...ROLES] as const;
      for (const name of [...names, 'victim'] as const) users[name] = await api.createUser(name);
      ruleUsers.reviewer = users.review;
      // Every user owns an organization of their own (the destination of transfers); the other admin's is "another organization".
      const own = await Promise.all(
        names.map((name) => api.request({ method: 'POST', url: '/v1/orgs', token: users[name].token, body: { title: `${name}'s own` } })),
      );
      names.forEach((name, i) =>
        ruleUsers.ownOrganizations.set(users[name].id, expectStatus(own[i], 201, 'creating an own organization').id),
      );
      readOn = await newFixture();
    }, 120_000);
    afterAll(async () => {
      await api?.close();
    });

    if (options.coverage) {
      it('declares a rule for every operation of the document', () => {
        const missing = operationsOf(api.document)
          .map((o) => o.key)
          .filter((key) => !RULES[key]);
        expect(missing).toEqual([]);
      });
    }

    async function attempt(
      operation: Operation,
      rule: Rule,
      caller: CallerName,
      self: boolean,
      fixture: MatrixFixture,
      failures: string[],
    ) {
      const user = caller in users ? users[caller as keyof typeof users] : undefined;
      const ctx: Context = { api, org: fixture, caller, user, unique: `${Date.now().toString(36)}${++counter}` };
      const bound = (await rule.setup?.(ctx)) ?? {};
      const ids: Record<string, string> = { ...fixture.ids, ...(self && user ? { userId: user.id } : {}), ...bound };
      const token =
        caller === 'anonymous'
          ? undefined
          : caller === 'badToken'
            ? 'not-a-token-of-ours'
            : caller === 'service'
              ? ADMIN_TOKEN
              : user!.token;
      const body = rule.body?.(ctx);
      // Bad tokens are rate limited per address: each comes from an address of its own.
      const remoteAddress =
        caller === 'badToken' ? `10.${counter % 250}.${(counter >> 8) % 250}.${((counter >> 16) % 250) + 1}` : undefined;
      const query = rule.query ? `?${await rule.query(ctx)}` : '';
      const response = await api.request({
        method: operation.method,
        url: `${fillPath(operation.path, ids)}${query}`,
        token,
        body,
        remoteAddress,
      });
      const expected = expectedOutcome(rule, caller, self);
      const scenario = scenarioOf(operation.key, self, caller);
      if (expected === 'success' && rule.allowedStatus !== undefined) {
        if (response.status !== rule.allowedStatus)
          failures.push(`${scenario}: expected ${rule.allowedStatus}, got ${response.status} ${response.text.slice(0, 120)}`);
      } else if (expected === 'success') {
        if (!operation.successes.includes(response.status))
          failures.push(`${scenario}: expected ${operation.successes.join('/')}, got ${response.status} ${response.text.slice(0, 120)}`);
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
    for (const key of keys) {
      const rule = RULES[key];
      it(`gives every caller the outcome the rule of ${key} says`, async () => {
        const operation = operationsOf(api.document).find((candidate) => candidate.key === key);
        if (!operation) throw new Error(`${key} has a rule but is not an operation of the document`);
        const failures: string[] = [];
        const writes = rule.fresh ?? operation.method !== 'GET';
        const isolation = writes ? ISOLATION[key] : undefined;
        for (const self of rule.self ? [false, true] : [false]) {
          // Refused callers first: they change nothing, so the allowed ones meet the organization as it was made.
          const ordered = [...CALLERS].sort(
            (a, b) => Number(expectedOutcome(rule, a, self) === 'success') - Number(expectedOutcome(rule, b, self) === 'success'),
          );
          let own: MatrixFixture | undefined;
          let firstAllowed = true;
          for (const caller of ordered) {
            const allowed = expectedOutcome(rule, caller, self) === 'success';
            let fixture: MatrixFixture;
            if (!writes) fixture = readOn;
            else if (!isolation) fixture = await (writeOn ??= newFixture());
            else if (isolation === 'caller' && allowed && !firstAllowed) fixture = await newFixture();
            else fixture = own ??= await newFixture();
            if (allowed) firstAllowed = false;
            checked.add(scenarioOf(key, self, caller));
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

    it('has tried every caller on every operation of the area', () => {
      expect(checksOf(keys).filter((scenario) => !checked.has(scenario))).toEqual([]);
      expect(checked.size).toBe(checksOf(keys).length);
    });
  });
}
