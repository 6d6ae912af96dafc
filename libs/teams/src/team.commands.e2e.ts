import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandBus } from '@nestjs/cqrs';
import { createContextServices } from '#composition/contexts';
import { loadConfig } from '#platform/config';
import { systemClock } from '#platform/clock';
import type { Caller } from '#platform/http/auth';
import { configureLogging } from '#platform/logging';
import type { Services } from '#runtime/reactor';
import { createRuntime, type Runtime } from '#runtime/runtime.module';
import { openStores } from '#runtime/stores';
import { identityProjection } from '#identity';
import { organizationProjection } from '#organizations';
import { CreateTeam, RemoveDepartedMemberFromTeams, UpdateTeamMembers } from './team.commands';
import { TEAM_MEMBERSHIPS, TEAMS, teamProjection } from './team.projections';
import { TeamsForSso } from './teams.provides';

/**
 * The command side on the embedded stores, below HTTP: what the end-to-end specs cannot reach
 * (the SSO binding) or reach only through another context (the sweep after a member leaves).
 */
describe('team commands on the embedded stores', () => {
  let directory: string;
  let runtime: Runtime;
  let services: Services & { close(): Promise<void> };
  let sso: TeamsForSso;
  let commandBus: CommandBus;

  const caller = (userId: string): Caller => ({
    kind: 'user',
    userId,
    tokenId: 'token',
    user: { id: userId, displayName: userId, email: `${userId}@example.com`, photoURL: null },
  });
  const now = () => new Date().toISOString();
  const createTeam = (organizationId: string, title: string, members: string[], by: Caller) =>
    commandBus.execute(new CreateTeam(organizationId, { title, members }, by));

  /** Users and organizations, appended as their contexts would append them. */
  async function seed(): Promise<void> {
    const { events } = runtime.stores;
    for (const userId of ['ada', 'mia', 'eve', 'zed']) {
      await events.appendToStream(
        `user-${userId}`,
        [{ type: 'UserCreated', data: { userId, email: `${userId}@example.com`, displayName: userId, photoURL: null, createdAt: now() } }],
        'no_stream',
      );
    }
    const organization = (organizationId: string, members: Array<[string, string]>) =>
      events.appendToStream(
        `organization-${organizationId}`,
        [
          {
            type: 'OrganizationCreated',
            data: { organizationId, title: organizationId, emailDomains: [], createdBy: members[0][0], createdAt: now() },
          },
          ...members.map(([userId, role]) => ({
            type: 'MemberAdded',
            data: { organizationId, userId, role, sso: false, joinedAt: now() },
          })),
        ],
        'no_stream',
      );
    await organization('o1', [
      ['ada', 'admin'],
      ['mia', 'edit'],
      ['eve', 'read'],
    ]);
    const last = await organization('o2', [
      ['zed', 'admin'],
      ['mia', 'edit'],
    ]);
    await runtime.commands.waitFor(last.position);
  }

  beforeAll(async () => {
    configureLogging('silent');
    directory = mkdtempSync(join(tmpdir(), 'team-commands-'));
    const config = loadConfig({ DATA_DIR: directory });
    const stores = await openStores(config);
    runtime = createRuntime({
      config,
      stores,
      clock: systemClock,
      projections: [identityProjection, organizationProjection, teamProjection],
      runProjections: true,
    });
    await runtime.runner!.start();
    await runtime.runner!.whenCaughtUp();
    // The contexts wired as the composition root wires them: the teams context's ports bound to what organizations and identity provide.
    services = await createContextServices(runtime, 'admin-token-for-tests-0123456789');
    sso = services.get(TeamsForSso);
    commandBus = services.get(CommandBus);
    await seed();
  });

  afterAll(async () => {
    await services?.close();
    await runtime.runner?.stop();
    await runtime.stores.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const membersOf = async (teamId: string) =>
    (await runtime.stores.reads.collection(TEAM_MEMBERSHIPS).find({ teamId }, { sort: { addedRevision: 1 }, limit: 100 })).items.map(
      (m) => [m.userId, m.role],
    );
  const streamTypes = async (teamId: string) => (await runtime.stores.events.readStream(`team-${teamId}`)).map((e) => e.type);

  describe('TeamsForSso (the SSO context’s SsoTeams port)', () => {
    it('finds a live team of the organization as a Team object, and nothing elsewhere', async () => {
      const teamId = await createTeam('o1', 'Default team', [], caller('ada'));
      expect(await sso.findTeam('o1', teamId)).toEqual({
        object: 'team',
        id: teamId,
        title: 'Default team',
        members: 1,
        spaces: 0,
        createdAt: expect.any(String),
        permissions: { admin: true, view: true },
      });
      expect(await sso.findTeam('o2', teamId)).toBeNull();
      expect(await sso.findTeam('o1', 'unknownTeam')).toBeNull();
    });

    it('adds a member of the organization as member, once; refuses people outside (400) and unknown teams (404)', async () => {
      const teamId = await createTeam('o1', 'SSO joins', [], caller('ada'));
      const system: Caller = { kind: 'admin' };
      await sso.addMember('o1', teamId, 'eve', system);
      await sso.addMember('o1', teamId, 'eve', system);
      await sso.addMember('o1', teamId, 'ada', system); // the owner stays owner
      expect(await membersOf(teamId)).toEqual([
        ['ada', 'owner'],
        ['eve', 'member'],
      ]);
      await expect(sso.addMember('o1', teamId, 'zed', system)).rejects.toMatchObject({ status: 400 });
      await expect(sso.addMember('o1', 'unknownTeam', 'eve', system)).rejects.toMatchObject({ status: 404 });
      const [added] = await runtime.stores.events.readStream(`team-${teamId}`, { fromRevision: 2 });
      expect(added.metadata).toMatchObject({ source: 'system' });
    });
  });

  describe('RemoveDepartedMemberFromTeams', () => {
    it('removes the user from every live team of the organization they are in, even after the read models dropped them', async () => {
      const a = await createTeam('o1', 'Sweep a', ['mia'], caller('ada'));
      const b = await createTeam('o1', 'Sweep b', ['eve'], caller('ada'));
      await commandBus.execute(new UpdateTeamMembers('o1', b, { memberships: { 'mia@example.com': { role: 'owner' } } }, caller('ada')));
      const elsewhere = await createTeam('o2', 'Sweep elsewhere', ['mia'], caller('zed'));
      // The organization removes mia: its projection (and this context's) react to MemberRemoved first.
      const removal = await runtime.stores.events.appendToStream(
        'organization-o1',
        [{ type: 'MemberRemoved', data: { organizationId: 'o1', userId: 'mia' } }],
        'any',
      );
      await runtime.commands.waitFor(removal.position);
      expect(await runtime.stores.reads.collection(TEAM_MEMBERSHIPS).count({ organizationId: 'o1', userId: 'mia' })).toBe(0);

      await commandBus.execute(new RemoveDepartedMemberFromTeams('o1', 'mia', caller('ada')));
      expect((await streamTypes(a)).at(-1)).toBe('TeamMemberRemoved');
      expect((await streamTypes(b)).at(-1)).toBe('TeamMemberRemoved');
      expect(await membersOf(elsewhere)).toEqual([
        ['zed', 'owner'],
        ['mia', 'member'],
      ]);
      expect((await runtime.stores.reads.collection(TEAMS).get(b))?.members).toBe(2);
      // Nothing left to do a second time.
      const lengths = await Promise.all([a, b].map(async (teamId) => (await streamTypes(teamId)).length));
      await commandBus.execute(new RemoveDepartedMemberFromTeams('o1', 'mia', caller('ada')));
      expect(await Promise.all([a, b].map(async (teamId) => (await streamTypes(teamId)).length))).toEqual(lengths);
    });
  });
});
