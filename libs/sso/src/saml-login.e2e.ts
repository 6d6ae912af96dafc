import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandBus, CqrsModule } from '@nestjs/cqrs';
import { Test, type TestingModule } from '@nestjs/testing';
import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import type { Caller } from '#platform/http/auth';
import type { OrganizationRole } from '#platform/permissions';
import { COMMAND_RUNNER, CommandRunner } from '#runtime/command-runner';
import { Metrics } from '#runtime/metrics';
import type { UserDoc } from '#identity';
import { organizationDecider, organizationStream } from '#organizations';
import { normalizeCertificate } from './certificate';
import { CompleteSamlLogin, samlLoginCommandHandlers, StartSamlLogin } from './saml-login';
import { SAML_FAILURE_LIMITER, SamlFailureLimiter } from './saml-failure-limiter';
import {
  nameIdHash,
  samlAssertionStream,
  samlIdentityStream,
  samlProviderDecider,
  samlProviderStream,
  samlRefusalStream,
  samlRequestStream,
} from './saml-provider.decider';
import type { SamlProviderSettings } from './saml-provider.events';
import { samlServiceUrls } from './saml-service';
import { samlLoginCaller } from './sso.caller';
import { SSO_ORGANIZATIONS, SSO_TEAMS, SSO_USERS, type SsoOrganizations, type SsoTeams } from './sso.needs';
import { verifiedDomainsDecider, verifiedDomainsStream } from './verified-domain.decider';
import { authnRequestOf, FakeIdp, type ResponseOptions } from '#testing/fake-idp';

const PUBLIC_URL = 'https://docs.example.test';
const config = { publicUrl: PUBLIC_URL } as AppConfig;
const idp = new FakeIdp('https://idp.example.test/metadata');
const admin: Caller = { kind: 'admin', requestId: 'setup' };
const PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';

/** The identity and organizations contexts, as far as a login uses them. */
class FakeContexts {
  readonly users = new Map<string, UserDoc>();
  /** The SSO joins the login asked for, by `<organization>:<user>`. */
  readonly joined = new Map<string, OrganizationRole>();
  /** What the login asked of these contexts, in order. */
  readonly executed: Array<{ name: 'createUser' | 'joinBySso' | 'issueToken'; [k: string]: unknown }> = [];

  readonly directory = {
    byEmail: async (email: string) => [...this.users.values()].find((u) => u.email === email.toLowerCase()) ?? null,
    byId: async (id: string) => this.users.get(id) ?? null,
    present: (user: UserDoc) => ({
      object: 'user' as const,
      id: user._id,
      displayName: user.displayName,
      email: user.email,
      photoURL: user.photoURL,
      urls: { location: `${PUBLIC_URL}/v1/users/${user._id}` },
    }),
  };
  readonly identity = {
    createUser: async (email: string, displayName: string) => {
      this.executed.push({ name: 'createUser', email, displayName });
      const userId = `u${this.users.size + 1}`;
      this.users.set(userId, {
        _id: userId,
        email: email.toLowerCase(),
        displayName,
        photoURL: null,
        createdAt: '2026-01-01T00:00:00.000Z',
        revision: 0,
      });
      return userId;
    },
    issueToken: async (userId: string) => {
      this.executed.push({ name: 'issueToken', userId });
      return { tokenId: 't1', token: `dpt_${userId}` };
    },
  };
  readonly members = {
    joinBySso: async (organizationId: string, userId: string, role: OrganizationRole) => {
      this.executed.push({ name: 'joinBySso', organizationId, userId, role });
      this.joined.set(`${organizationId}:${userId}`, role);
    },
  };
}

class FakeTeams implements SsoTeams {
  readonly teams = new Set(['team1']);
  readonly added: Array<{ organizationId: string; teamId: string; userId: string; caller: Caller }> = [];
  async findTeam(_organizationId: string, teamId: string) {
    return this.teams.has(teamId) ? { id: teamId, object: 'team' as const, title: 'Engineering' } : null;
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
/** Each replica's CommandBus, with the login's handlers on that replica's runner. */
let buses: Map<CommandRunner, CommandBus>;
let modules: TestingModule[];
let counter = 0;

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
beforeEach(async () => {
  clock.current = new Date();
  contexts = new FakeContexts();
  teams = new FakeTeams();
  modules = await Promise.all([replicaA, replicaB].map(replicaModule));
  buses = new Map(modules.map((module, i) => [[replicaA, replicaB][i], module.get(CommandBus)]));
});
afterEach(async () => {
  await Promise.all(modules.map((module) => module.close()));
});

/**
 * The organizations context's side of the SSO_ORGANIZATIONS port as a login uses it, on this replica:
 * membership and consent from the organization's stream (as organizations' own binding reads them);
 * the SSO joins recorded.
 */
function organizationsOn(replica: CommandRunner): Pick<SsoOrganizations, 'membersAmong' | 'joinBySso'> {
  return {
    membersAmong: async (organizationId, userIds) => {
      const { state } = await replica.load(organizationStream(organizationId), organizationDecider);
      const found = new Map<string, { ssoConsent: boolean }>();
      for (const userId of userIds) {
        const member = state.members.get(userId);
        if (member) found.set(userId, { ssoConsent: member.ssoConsent === true });
      }
      return found;
    },
    joinBySso: (organizationId, userId, role) => contexts.members.joinBySso(organizationId, userId, role),
  };
}

/** One API replica: the login's command handlers on its runner, the other contexts through their ports. */
async function replicaModule(replica: CommandRunner): Promise<TestingModule> {
  const module = await Test.createTestingModule({
    imports: [CqrsModule.forRoot()],
    providers: [
      ...samlLoginCommandHandlers,
      { provide: COMMAND_RUNNER, useValue: replica },
      { provide: APP_CONFIG, useValue: config },
      { provide: SSO_USERS, useValue: { ...contexts.directory, ...contexts.identity } },
      { provide: SSO_ORGANIZATIONS, useValue: organizationsOn(replica) },
      { provide: SSO_TEAMS, useValue: teams },
      // Failed attempts are counted, but never up to the limit here (the end-to-end spec covers the 429).
      { provide: SAML_FAILURE_LIMITER, useValue: new SamlFailureLimiter(1_000_000, clock) },
    ],
  }).compile();
  // Registers the handlers on the bus.
  return module.init();
}

/** A new organization (its admin: `owner`), with the given domains verified by the service administrator. */
async function createOrganization(verifiedDomains: string[] = ['acme.io']): Promise<string> {
  const organizationId = `o${++counter}`;
  const now = clock.now().toISOString();
  await replicaA.run(
    organizationStream(organizationId),
    organizationDecider,
    { kind: 'CreateOrganization', organizationId, title: 'Acme', emailDomains: [], creatorId: 'owner', now },
    { caller: admin },
  );
  for (const domain of verifiedDomains) {
    await replicaA.run(
      verifiedDomainsStream(organizationId),
      verifiedDomainsDecider,
      { kind: 'VerifyDomainByAdmin', organizationId, domain, token: 't', now },
      { caller: admin },
    );
  }
  return organizationId;
}

async function createProvider(overrides: Partial<SamlProviderSettings> = {}, organizationId?: string): Promise<string> {
  const providerId = `p${++counter}`;
  const settings: SamlProviderSettings = {
    label: 'Okta',
    entityID: idp.entityID,
    certificate: normalizeCertificate(idp.certificate),
    ssoURL: 'https://idp.example.test/sso',
    defaultTeam: 'team1',
    defaultRole: 'edit',
    ...overrides,
  };
  const organization = organizationId ?? (await createOrganization());
  await replicaA.run(
    samlProviderStream(providerId),
    samlProviderDecider,
    { kind: 'CreateSamlProvider', providerId, organizationId: organization, settings, now: clock.now().toISOString() },
    { caller: admin },
  );
  return providerId;
}

/** A user of the (fake) directory. */
function addUser(userId: string, email: string): void {
  contexts.users.set(userId, {
    _id: userId,
    email,
    displayName: userId,
    photoURL: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    revision: 0,
  });
}

/** A member who consented to SSO: one who joined through an SSO login. */
async function addConsentingMember(organizationId: string, userId: string): Promise<void> {
  await replicaA.run(
    organizationStream(organizationId),
    organizationDecider,
    { kind: 'JoinBySso', organizationId, userId, role: 'admin', now: clock.now().toISOString() },
    { caller: admin },
  );
}

const start = (providerId: string, replica = replicaA) =>
  buses.get(replica)!.execute(new StartSamlLogin(providerId, undefined, samlLoginCaller('r-start')));
const consume = (providerId: string, samlResponse: string, replica = replicaB) =>
  buses.get(replica)!.execute(new CompleteSamlLogin(providerId, samlResponse, '192.0.2.1', samlLoginCaller('r-acs')));

/** GET /start, then the identity provider's answer to that request. */
async function loginResponse(providerId: string, options: Partial<ResponseOptions> = {}): Promise<string> {
  const { url } = await start(providerId);
  return answerTo(providerId, authnRequestOf(url).id, options);
}

function answerTo(providerId: string, requestId: string, options: Partial<ResponseOptions> = {}): string {
  const service = samlServiceUrls(PUBLIC_URL, providerId);
  return idp.response({
    audience: service.entityID,
    acsURL: service.acsURL,
    inResponseTo: requestId,
    nameID: 'ada@acme.io',
    attributes: { displayName: 'Ada Lovelace' },
    ...options,
  });
}

async function refusal(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    return { status: (error as { status: number }).status, message: (error as Error).message };
  }
  throw new Error('the login succeeded');
}

const organizationOf = async (providerId: string) =>
  (await replicaA.load(samlProviderStream(providerId), samlProviderDecider)).state.organizationId!;
const types = async (stream: string) => (await store.readStream(stream)).map((e) => e.type);
const NOT_ALLOWED =
  /^this identity provider may sign in only members of its organization who agreed to single sign-on, and addresses in domains the organization has verified$/;

describe('SAML login', () => {
  it('given a newcomer in a verified domain, when the provider answers a request another replica issued, then the user is created, joins as an SSO member with the default role and team, and gets a token', async () => {
    const providerId = await createProvider();
    const organizationId = await organizationOf(providerId);
    const login = await consume(providerId, await loginResponse(providerId));
    expect(login).toEqual({
      user: {
        object: 'user',
        id: 'u1',
        displayName: 'Ada Lovelace',
        email: 'ada@acme.io',
        photoURL: null,
        urls: { location: `${PUBLIC_URL}/v1/users/u1` },
      },
      token: 'dpt_u1',
    });
    expect(contexts.executed.map((c) => c.name)).toEqual(['createUser', 'joinBySso', 'issueToken']);
    expect(contexts.executed[1]).toMatchObject({ organizationId, userId: 'u1', role: 'edit' });
    expect(teams.added).toEqual([
      { organizationId, teamId: 'team1', userId: 'u1', caller: expect.objectContaining({ kind: 'system', id: 'sso' }) },
    ]);
  });

  it('records what the login did as the system actor `SAML login`, never as the administrator', async () => {
    const providerId = await createProvider();
    const samlResponse = await loginResponse(providerId, { assertionId: '_actor-check' });
    const requestId = /InResponseTo="([^"]+)"/.exec(Buffer.from(samlResponse, 'base64').toString())![1];
    await consume(providerId, samlResponse);
    for (const stream of [
      samlRequestStream(requestId),
      samlAssertionStream('_actor-check'),
      samlIdentityStream(providerId, 'ada@acme.io'),
    ]) {
      for (const event of await store.readStream(stream)) {
        expect(event.metadata).toMatchObject({ actor: { type: 'system', id: 'sso', label: 'SAML login' }, source: 'system' });
      }
    }
    expect(await types(samlRequestStream(requestId))).toEqual(['SamlRequestIssued', 'SamlRequestConsumed']);
  });

  it('given a response already used, when posted again to any replica, then 401', async () => {
    const providerId = await createProvider();
    const samlResponse = await loginResponse(providerId);
    await consume(providerId, samlResponse, replicaB);
    expect(await refusal(consume(providerId, samlResponse, replicaA))).toEqual({
      status: 401,
      message: expect.stringMatching(/^invalid SAML response: /),
    });
  });

  it('given ten different valid answers to one request at the same moment, on two replicas, then exactly one signs in; the others get 401 already answered', async () => {
    const providerId = await createProvider();
    const { url } = await start(providerId);
    const requestId = authnRequestOf(url).id;
    const answers = Array.from({ length: 10 }, (_, i) => answerTo(providerId, requestId, { assertionId: `_race${i}` }));
    const outcomes = await Promise.allSettled(answers.map((answer, i) => consume(providerId, answer, i % 2 === 0 ? replicaA : replicaB)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const losers = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as { status: number; message: string }] : []));
    expect(losers.map((e) => ({ status: e.status, message: e.message }))).toEqual(
      Array(9).fill({ status: 401, message: 'invalid SAML response: the login request was already answered' }),
    );
    expect(contexts.executed.filter((c) => c.name === 'issueToken')).toHaveLength(1);
  });

  it('given an assertion already used, when it comes back inside the answer to a new request, then 401 (replay store)', async () => {
    const providerId = await createProvider();
    await consume(providerId, await loginResponse(providerId, { assertionId: '_replayed' }), replicaA);
    const again = await loginResponse(providerId, { assertionId: '_replayed' });
    expect(await refusal(consume(providerId, again, replicaB))).toEqual({
      status: 401,
      message: 'invalid SAML response: its assertion was already used to log in (replayed response)',
    });
    expect(contexts.executed.filter((c) => c.name === 'issueToken')).toHaveLength(1);
  });

  it('given a response nested deeper than the limit, or larger, then 400 before anything is parsed or looked up', async () => {
    const nested = (depth: number) => Buffer.from(`${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}`).toString('base64');
    expect(await refusal(consume('noSuchProvider', nested(65)))).toEqual({
      status: 400,
      message: 'SAMLResponse: the XML is nested deeper than 64 elements',
    });
    expect(await refusal(consume('noSuchProvider', nested(100_000)))).toEqual({
      status: 400,
      message: 'SAMLResponse must be at most 360000 characters',
    });
  });

  it('given a consenting member, when they log in, then they are neither re-created nor added to the default team again, and their NameID is bound', async () => {
    const organizationId = await createOrganization([]);
    const providerId = await createProvider({}, organizationId);
    addUser('u7', 'ada@elsewhere.io');
    await addConsentingMember(organizationId, 'u7');
    const login = await consume(providerId, await loginResponse(providerId, { nameID: 'ADA@elsewhere.io' }));
    expect(login.user.id).toBe('u7');
    expect(contexts.executed.map((c) => c.name)).toEqual(['joinBySso', 'issueToken']);
    expect(teams.added).toEqual([]);
    expect((await store.readStream(samlIdentityStream(providerId, 'ada@elsewhere.io')))[0].data).toMatchObject({
      userId: 'u7',
      basis: 'consenting-member',
      nameIdHash: nameIdHash('ada@elsewhere.io'),
    });
  });

  it("given someone else's account outside the verified domains, when an organization's provider names its address, then 403, no token, and the refusal is recorded (account takeover)", async () => {
    const providerId = await createProvider();
    addUser('victim', 'victim@bank.example');
    expect(await refusal(consume(providerId, await loginResponse(providerId, { nameID: 'victim@bank.example' })))).toEqual({
      status: 403,
      message: expect.stringMatching(NOT_ALLOWED),
    });
    expect(contexts.executed).toEqual([]);
    const [refused] = await store.readStream(samlRefusalStream(providerId));
    expect(refused).toMatchObject({
      type: 'SamlLoginRefused',
      data: {
        providerId,
        organizationId: await organizationOf(providerId),
        reason: 'identity-not-allowed',
        nameIdHash: nameIdHash('victim@bank.example'),
        emailDomain: 'bank.example',
      },
      metadata: { actor: { type: 'system', id: 'sso', label: 'SAML login' } },
    });
    expect(JSON.stringify(refused.data)).not.toContain('victim@');
  });

  it('given an address nobody has, outside the verified domains, then 403 and no account is created', async () => {
    const providerId = await createProvider();
    expect(await refusal(consume(providerId, await loginResponse(providerId, { nameID: 'newcomer@unverified.example' })))).toMatchObject({
      status: 403,
    });
    expect(contexts.executed).toEqual([]);
    expect(contexts.users.size).toBe(0);
    expect(await types(samlRefusalStream(providerId))).toEqual(['SamlLoginRefused']);
  });

  it('given a member an admin marked as SSO without their consent, then 403', async () => {
    const organizationId = await createOrganization([]);
    const providerId = await createProvider({}, organizationId);
    addUser('owner', 'owner@elsewhere.io');
    await replicaA.run(
      organizationStream(organizationId),
      organizationDecider,
      { kind: 'EnableMemberSso', organizationId, userId: 'owner', byUserId: 'owner' },
      { caller: admin },
    );
    expect(await refusal(consume(providerId, await loginResponse(providerId, { nameID: 'owner@elsewhere.io' })))).toMatchObject({
      status: 403,
    });
    expect(contexts.executed).toEqual([]);
  });

  it('given a bound NameID, when the assertion names another address, then the bound user signs in', async () => {
    const providerId = await createProvider();
    const first = await consume(
      providerId,
      await loginResponse(providerId, { nameID: 'id-123', nameIDFormat: PERSISTENT, attributes: { email: 'ada@acme.io' } }),
    );
    addUser('u9', 'grace@acme.io');
    const second = await consume(
      providerId,
      await loginResponse(providerId, { nameID: 'id-123', nameIDFormat: PERSISTENT, attributes: { email: 'grace@acme.io' } }),
    );
    expect(second.user.id).toBe(first.user.id);
    expect(await types(samlIdentityStream(providerId, 'id-123'))).toEqual(['SamlIdentityBound']);
  });

  it('given a bound NameID whose user left the organization, outside the verified domains, then 403 (binding-no-longer-allowed)', async () => {
    const organizationId = await createOrganization([]);
    const providerId = await createProvider({}, organizationId);
    addUser('u8', 'lin@elsewhere.io');
    await addConsentingMember(organizationId, 'u8');
    await consume(providerId, await loginResponse(providerId, { nameID: 'lin@elsewhere.io' }));
    await replicaA.run(
      organizationStream(organizationId),
      organizationDecider,
      { kind: 'RemoveMember', organizationId, userId: 'u8', byUserId: 'u8' },
      { caller: admin },
    );
    expect(await refusal(consume(providerId, await loginResponse(providerId, { nameID: 'lin@elsewhere.io' })))).toMatchObject({
      status: 403,
    });
    expect((await store.readStream(samlRefusalStream(providerId)))[0].data).toMatchObject({ reason: 'binding-no-longer-allowed' });
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
    expect(await refusal(consume(providerId, samlResponse))).toEqual({
      status: 401,
      message: expect.stringMatching(/unknown, expired or already answered/),
    });
  });

  it("given a request issued for one provider, when answered at another provider's ACS, then 401", async () => {
    const first = await createProvider();
    const second = await createProvider();
    const { url } = await start(first);
    const samlResponse = answerTo(second, authnRequestOf(url).id);
    expect(await refusal(consume(second, samlResponse))).toEqual({
      status: 401,
      message: expect.stringMatching(/unknown, expired or already answered/),
    });
  });

  it('given an unknown provider, then 404; given one without certificate, then /start is 409 and the ACS 401', async () => {
    expect(await refusal(start('nope'))).toEqual({ status: 404, message: 'no SAML provider nope' });
    expect(await refusal(consume('nope', 'x'))).toMatchObject({ status: 404 });
    const incomplete = await createProvider({ certificate: null });
    expect(await refusal(start(incomplete))).toEqual({ status: 409, message: expect.stringMatching(/needs an ssoURL and a certificate/) });
    expect(await refusal(consume(incomplete, 'x'))).toEqual({ status: 401, message: expect.stringMatching(/not ready for logins/) });
  });
});
