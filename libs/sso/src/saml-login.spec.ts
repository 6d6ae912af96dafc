import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandBus } from '@nestjs/cqrs';
import { LmdbEventStore } from '../../event-store/src/lmdb/lmdb-event-store';
import type { AppConfig } from '../../platform/src/config';
import type { Caller } from '../../platform/src/http/auth';
import type { OrganizationRole } from '../../platform/src/permissions';
import { CommandRunner } from '../../runtime/src/command-runner';
import { Metrics } from '../../runtime/src/metrics';
import { CreateUser, IssueToken } from '../../identity/src/identity.commands';
import type { UserDoc } from '../../identity/src/identity.projections';
import type { UserQueries } from '../../identity/src/identity.queries';
import { JoinBySso } from '../../organizations/src/member.commands';
import type { OrganizationMembership } from '../../organizations/src/organization.queries';
import { normalizeCertificate } from './certificate';
import { ConsumeSamlResponse, ConsumeSamlResponseHandler, StartSamlLogin, StartSamlLoginHandler } from './saml-login';
import { samlAssertionStream, samlProviderDecider, samlProviderStream, samlRequestStream } from './saml-provider.decider';
import type { SamlProviderSettings } from './saml-provider.events';
import { samlServiceUrls } from './saml-service';
import { samlLoginCaller } from './sso.caller';
import type { SsoTeams } from './sso-teams.port';
import { authnRequestOf, FakeIdp, type ResponseOptions } from './testing/fake-idp';

const PUBLIC_URL = 'https://docs.example.test';
const config = { publicUrl: PUBLIC_URL } as AppConfig;
const idp = new FakeIdp('https://idp.example.test/metadata');
const admin: Caller = { kind: 'admin', requestId: 'setup' };

/** The identity and organizations contexts, as far as a login uses them. */
class FakeContexts {
  readonly users = new Map<string, UserDoc>();
  readonly members = new Map<string, { role: OrganizationRole; sso: boolean }>();
  readonly executed: object[] = [];

  readonly directory = {
    byEmail: async (email: string) => [...this.users.values()].find((u) => u.email === email.toLowerCase()) ?? null,
    byId: async (id: string) => this.users.get(id) ?? null,
    present: (user: UserDoc) => ({ object: 'user' as const, id: user._id, displayName: user.displayName, email: user.email, photoURL: user.photoURL, urls: { location: `${PUBLIC_URL}/v1/users/${user._id}` } }),
  };
  readonly membership = {
    roleOf: async (organizationId: string, userId: string) => {
      const member = this.members.get(`${organizationId}:${userId}`);
      return member ? { member: true, role: member.role } : { member: false, role: null };
    },
  };
  readonly bus = {
    execute: async (command: object) => {
      this.executed.push(command);
      if (command instanceof CreateUser) {
        const userId = `u${this.users.size + 1}`;
        this.users.set(userId, { _id: userId, email: command.email.toLowerCase(), displayName: command.displayName, photoURL: null, createdAt: '2026-01-01T00:00:00.000Z' });
        return { userId };
      }
      if (command instanceof JoinBySso) {
        const key = `${command.organizationId}:${command.userId}`;
        this.members.set(key, { role: this.members.get(key)?.role ?? command.role, sso: true });
        return undefined;
      }
      if (command instanceof IssueToken) return { tokenId: 't1', token: `dpt_${command.userId}` };
      throw new Error(`unexpected command ${command.constructor.name}`);
    },
  };
}

class FakeTeams implements SsoTeams {
  readonly teams = new Set(['team1']);
  readonly added: Array<{ organizationId: string; teamId: string; userId: string; caller: Caller }> = [];
  async findTeam(organizationId: string, teamId: string) {
    return organizationId === 'o1' && this.teams.has(teamId) ? { id: teamId, object: 'team' as const, title: 'Engineering' } : null;
  }
  async addMember(organizationId: string, teamId: string, userId: string, caller: Caller) {
    this.added.push({ organizationId, teamId, userId, caller });
  }
}

let directory: string;
let store: LmdbEventStore;
let clock: { current: Date; now(): Date };
/** Two API replicas: separate command runners (and state caches) over one event store. */
let replicaA: CommandRunner;
let replicaB: CommandRunner;
let contexts: FakeContexts;
let teams: FakeTeams;
let providerCounter = 0;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'sso-login-'));
  store = LmdbEventStore.open(directory);
  clock = { current: new Date(), now: () => new Date(clock.current) };
  const runner = () => new CommandRunner(store, { wait: async () => undefined }, clock, new Metrics());
  replicaA = runner();
  replicaB = runner();
});
afterAll(async () => {
  await store.close();
  rmSync(directory, { recursive: true, force: true });
});
beforeEach(() => {
  clock.current = new Date();
  contexts = new FakeContexts();
  teams = new FakeTeams();
});

async function createProvider(overrides: Partial<SamlProviderSettings> = {}): Promise<string> {
  const providerId = `p${++providerCounter}`;
  const settings: SamlProviderSettings = {
    label: 'Okta',
    entityID: idp.entityID,
    certificate: normalizeCertificate(idp.certificate),
    ssoURL: 'https://idp.example.test/sso',
    defaultTeam: 'team1',
    defaultRole: 'edit',
    ...overrides,
  };
  await replicaA.run(samlProviderStream(providerId), samlProviderDecider, { kind: 'CreateSamlProvider', providerId, organizationId: 'o1', settings, now: clock.now().toISOString() }, { caller: admin });
  return providerId;
}

const start = (providerId: string, replica = replicaA) => new StartSamlLoginHandler(replica, config).execute(new StartSamlLogin(providerId, undefined, samlLoginCaller('r-start')));
const consume = (providerId: string, samlResponse: string, replica = replicaB) =>
  new ConsumeSamlResponseHandler(
    replica,
    config,
    contexts.bus as unknown as CommandBus,
    contexts.directory as unknown as UserQueries,
    contexts.membership as unknown as OrganizationMembership,
    teams,
  ).execute(new ConsumeSamlResponse(providerId, samlResponse, samlLoginCaller('r-acs')));

/** GET /start, then the identity provider's answer to that request. */
async function loginResponse(providerId: string, options: Partial<ResponseOptions> = {}): Promise<string> {
  const { url } = await start(providerId);
  const service = samlServiceUrls(PUBLIC_URL, providerId);
  return idp.response({ audience: service.entityID, acsURL: service.acsURL, inResponseTo: authnRequestOf(url).id, nameID: 'ada@acme.io', attributes: { displayName: 'Ada Lovelace' }, ...options });
}

async function refusal(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    return { status: (error as { status: number }).status, message: (error as Error).message };
  }
  throw new Error('the login succeeded');
}

describe('SAML login', () => {
  it('given a newcomer, when the provider answers a request another replica issued, then the user is created, joins as an SSO member with the default role and team, and gets a token', async () => {
    const providerId = await createProvider();
    const login = await consume(providerId, await loginResponse(providerId));
    expect(login).toEqual({
      user: { object: 'user', id: 'u1', displayName: 'Ada Lovelace', email: 'ada@acme.io', photoURL: null, urls: { location: `${PUBLIC_URL}/v1/users/u1` } },
      token: 'dpt_u1',
    });
    expect(contexts.executed.map((c) => c.constructor.name)).toEqual(['CreateUser', 'JoinBySso', 'IssueToken']);
    expect(contexts.executed[1]).toMatchObject({ organizationId: 'o1', userId: 'u1', role: 'edit' });
    expect(teams.added).toEqual([{ organizationId: 'o1', teamId: 'team1', userId: 'u1', caller: expect.objectContaining({ kind: 'system', id: 'sso' }) }]);
  });

  it('records what the login did as the system actor `SAML login`, never as the administrator', async () => {
    const providerId = await createProvider();
    const samlResponse = await loginResponse(providerId, { assertionId: '_actor-check' });
    const requestId = /InResponseTo="([^"]+)"/.exec(Buffer.from(samlResponse, 'base64').toString())![1];
    await consume(providerId, samlResponse);
    for (const stream of [samlRequestStream(requestId), samlAssertionStream('_actor-check')]) {
      for (const event of await store.readStream(stream)) {
        expect(event.metadata).toMatchObject({ actor: { type: 'system', id: 'sso', label: 'SAML login' }, source: 'system' });
      }
    }
    expect((await store.readStream(samlRequestStream(requestId))).map((e) => e.type)).toEqual(['SamlRequestIssued', 'SamlRequestConsumed']);
  });

  it('given a response already used, when posted again to any replica, then 401', async () => {
    const providerId = await createProvider();
    const samlResponse = await loginResponse(providerId);
    await consume(providerId, samlResponse, replicaB);
    expect(await refusal(consume(providerId, samlResponse, replicaA))).toEqual({ status: 401, message: expect.stringMatching(/^invalid SAML response: /) });
  });

  it('given an assertion already used, when it comes back inside the answer to a new request, then 401 (replay store)', async () => {
    const providerId = await createProvider();
    await consume(providerId, await loginResponse(providerId, { assertionId: '_replayed' }), replicaA);
    const again = await loginResponse(providerId, { assertionId: '_replayed' });
    expect(await refusal(consume(providerId, again, replicaB))).toEqual({ status: 401, message: 'invalid SAML response: its assertion was already used to log in (replayed response)' });
    expect(contexts.executed.filter((c) => c instanceof IssueToken)).toHaveLength(1);
  });

  it('given an existing member, when they log in, then they are neither re-created nor added to the default team again', async () => {
    const providerId = await createProvider();
    contexts.users.set('u7', { _id: 'u7', email: 'ada@acme.io', displayName: 'Ada', photoURL: null, createdAt: '2026-01-01T00:00:00.000Z' });
    contexts.members.set('o1:u7', { role: 'admin', sso: false });
    const login = await consume(providerId, await loginResponse(providerId, { nameID: 'ADA@acme.io' }));
    expect(login.user.id).toBe('u7');
    expect(contexts.executed.map((c) => c.constructor.name)).toEqual(['JoinBySso', 'IssueToken']);
    expect(contexts.members.get('o1:u7')).toEqual({ role: 'admin', sso: true });
    expect(teams.added).toEqual([]);
  });

  it('given a default team that no longer exists, when a newcomer logs in, then the login still succeeds', async () => {
    const providerId = await createProvider({ defaultTeam: 'gone' });
    expect((await consume(providerId, await loginResponse(providerId))).token).toBe('dpt_u1');
    expect(teams.added).toEqual([]);
  });

  it('given a request older than an hour, when answered, then 401', async () => {
    const providerId = await createProvider();
    const samlResponse = await loginResponse(providerId);
    clock.current = new Date(clock.current.getTime() + 61 * 60_000);
    expect(await refusal(consume(providerId, samlResponse))).toEqual({ status: 401, message: expect.stringMatching(/unknown, expired or already answered/) });
  });

  it("given a request issued for one provider, when answered at another provider's ACS, then 401", async () => {
    const first = await createProvider();
    const second = await createProvider();
    const { url } = await start(first);
    const service = samlServiceUrls(PUBLIC_URL, second);
    const samlResponse = idp.response({ audience: service.entityID, acsURL: service.acsURL, inResponseTo: authnRequestOf(url).id, nameID: 'ada@acme.io' });
    expect(await refusal(consume(second, samlResponse))).toEqual({ status: 401, message: expect.stringMatching(/unknown, expired or already answered/) });
  });

  it('given an unknown provider, then 404; given one without certificate, then /start is 409 and the ACS 401', async () => {
    expect(await refusal(start('nope'))).toEqual({ status: 404, message: 'no SAML provider nope' });
    expect(await refusal(consume('nope', 'x'))).toMatchObject({ status: 404 });
    const incomplete = await createProvider({ certificate: null });
    expect(await refusal(start(incomplete))).toEqual({ status: 409, message: expect.stringMatching(/needs an ssoURL and a certificate/) });
    expect(await refusal(consume(incomplete, 'x'))).toEqual({ status: 401, message: expect.stringMatching(/not ready for logins/) });
  });
});
