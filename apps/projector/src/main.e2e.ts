import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { runTypeScriptMain } from '../../../test/support/child-process';
import { loadConfig } from '#platform/config';
import { distributedOnly } from './main';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { configureLogging } from '#platform/logging';
import { runProjector } from '#runtime/projector';
import { openStores } from '#runtime/stores';
import { CommandBus } from '@nestjs/cqrs';
import { organizationDecider, organizationStream } from '#organizations';
import { teamDecider, teamStream } from '#teams';
import { collectionDecider, collectionStream, spaceDecider, spaceStream } from '#spaces';
import { createContextServices, service } from '#composition/contexts';

const MAIN = join(__dirname, 'main.ts');

/** Runs the projector's entry point as its own process with exactly `env` (plus PATH). */
const runMain = (env: Record<string, string>) => runTypeScriptMain(MAIN, env);

describe('projector main', () => {
  it('refuses embedded mode: there the API process runs the projections', () => {
    expect(() => distributedOnly(loadConfig({}))).toThrow(/distributed mode only: set EVENTSTORE_URL and MONGODB_URL.*API process/);
  });

  it('refuses a half-distributed configuration, naming what is missing', () => {
    expect(() => distributedOnly(loadConfig({ EVENTSTORE_URL: 'kurrentdb://kurrentdb:2113?tls=false' }))).toThrow(/MONGODB_URL is not set/);
    expect(() => distributedOnly(loadConfig({ MONGODB_URL: 'mongodb://mongodb:27017/docs?replicaSet=rs0' }))).toThrow(
      /EVENTSTORE_URL is not set/,
    );
  });

  it('accepts distributed mode', () => {
    expect(() =>
      distributedOnly(
        loadConfig({ EVENTSTORE_URL: 'kurrentdb://kurrentdb:2113?tls=false', MONGODB_URL: 'mongodb://mongodb:27017/docs?replicaSet=rs0' }),
      ),
    ).not.toThrow();
  });

  it('exits 78 (EX_CONFIG) with a clear message when started without EVENTSTORE_URL and MONGODB_URL', async () => {
    const { code, output } = await runMain({ LOG_LEVEL: 'info' });
    expect(code).toBe(78);
    const fatal = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: string; msg: string })
      .find((line) => line.level === 'fatal');
    expect(fatal?.msg).toMatch(/could not start: the projector runs in distributed mode only: set EVENTSTORE_URL and MONGODB_URL/);
    expect(fatal?.msg).toMatch(/the API process \(npm start\) runs the projections itself/);
  });
});

describe('the projector’s keys in distributed mode', () => {
  it('exits 78 without ADMIN_TOKEN, from which the reactions’ services derive their signing keys, rather than making one up', async () => {
    const { code, output } = await runMain({
      LOG_LEVEL: 'info',
      EVENTSTORE_URL: 'kurrentdb://127.0.0.1:1?tls=false',
      MONGODB_URL: 'mongodb://127.0.0.1:1/docs?replicaSet=rs0',
      INTEGRATION_SECRETS_KEY: 'ab'.repeat(32),
    });
    expect(code).toBe(78);
    expect(output).toMatch(/could not start: the projector needs ADMIN_TOKEN \(at least 16 characters\) in distributed mode/);
  });
});

describe('the projector’s liveness and readiness (on embedded stores)', () => {
  /** A plain request without keep-alive, so nothing stays open after the test. */
  const call = (url: string): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const request = httpRequest(url, { agent: false }, (response) => {
        let body = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      request.on('error', reject);
      request.end();
    });

  it('is live while it replays and once caught up; ready only once caught up with the stores answering', async () => {
    configureLogging('silent');
    const directory = mkdtempSync(join(tmpdir(), 'projector-probes-'));
    const config = loadConfig({ DATA_DIR: directory, HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
    const stores = await openStores(config);
    await stores.events.appendToStream('probe-1', [{ type: 'ProbeWritten', data: {} }], 'no_stream');
    // The replay cannot finish while the runner's status cannot be read: the state of a long first replay.
    const projector = await runProjector({ config, stores, port: 0, projections: service().projections });
    try {
      const status = jest
        .spyOn(projector.runtime.runner!, 'status')
        .mockResolvedValueOnce({ caughtUp: false, checkpoint: null, head: 1n, lagEvents: 1, lastError: null } as never);
      expect((await call(`${projector.url}/health/live`)).status).toBe(200);
      const replaying = await call(`${projector.url}/health/ready`);
      expect(replaying.status).toBe(503);
      expect(JSON.parse(replaying.body)).toMatchObject({ status: 'starting', projections: { caughtUp: false } });
      status.mockRestore();

      await projector.runtime.runner!.whenCaughtUp();
      expect((await call(`${projector.url}/health/ready`)).status).toBe(200);
      expect((await call(`${projector.url}/health`)).status).toBe(200);
      expect((await call(`${projector.url}/health/live`)).status).toBe(200);

      jest.spyOn(stores.reads, 'health').mockResolvedValue({ ok: false, detail: 'connection refused' } as never);
      expect((await call(`${projector.url}/health/ready`)).status).toBe(503);
      expect((await call(`${projector.url}/health/live`)).status).toBe(200);
    } finally {
      await projector.stop();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('the projector runs the reactors with the contexts’ services (on embedded stores)', () => {
  it('reacts with the real reactors: a deleted collection’s space moves up; the team reactor’s command reaches its handler through the CommandBus', async () => {
    configureLogging('silent');
    const directory = mkdtempSync(join(tmpdir(), 'projector-reactors-'));
    const config = loadConfig({ DATA_DIR: directory, HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
    const stores = await openStores(config);
    let services: Awaited<ReturnType<typeof createContextServices>> | undefined;
    const projector = await runProjector({
      config,
      stores,
      port: 0,
      projections: service().projections,
      reactors: service().reactors,
      services: async (runtime) => (services = await createContextServices(runtime, 'admin-token-for-tests-0123456789')),
    });
    try {
      expect(services!.get(CommandBus)).toBeInstanceOf(CommandBus);
      await projector.runtime.runner!.whenCaughtUp();
      const caller = { kind: 'admin', requestId: 'test' } as never;
      const by = { userId: 'ada', role: 'admin' as const };
      const now = '2026-01-01T00:00:00.000Z';
      const { commands } = projector.runtime;
      await commands.run(
        collectionStream('c1'),
        collectionDecider,
        { kind: 'CreateCollection', collectionId: 'c1', organizationId: 'o1', title: 'c1', parent: null, position: 'a0', by, now },
        { caller },
      );
      await commands.run(
        spaceStream('s1'),
        spaceDecider,
        {
          kind: 'CreateSpace',
          spaceId: 's1',
          organizationId: 'o1',
          title: 's1',
          emoji: null,
          visibility: 'private',
          editMode: 'live',
          defaultLevel: null,
          parent: 'c1',
          position: 'a0',
          by,
          now,
        },
        { caller },
      );
      await commands.run(collectionStream('c1'), collectionDecider, { kind: 'DeleteCollection', collectionId: 'c1', by, now }, { caller });
      expect(await stores.reads.collection('spaces').get('s1')).toMatchObject({ parent: null });

      // bob leaves the organization: the team reactor dispatches RemoveDepartedMemberFromTeams on the CommandBus, and bob leaves its team.
      await commands.run(
        organizationStream('o1'),
        organizationDecider,
        { kind: 'CreateOrganization', organizationId: 'o1', title: 'o1', emailDomains: [], creatorId: 'ada', now },
        { caller },
      );
      await commands.run(
        organizationStream('o1'),
        organizationDecider,
        { kind: 'JoinBySso', organizationId: 'o1', userId: 'bob', role: 'edit', now },
        { caller },
      );
      await commands.run(
        teamStream('t1'),
        teamDecider,
        {
          kind: 'CreateTeam',
          teamId: 't1',
          organizationId: 'o1',
          title: 't1',
          members: ['bob'],
          by: { userId: 'ada', organizationRole: 'admin' },
          now,
        },
        { caller },
      );
      await commands.run(
        organizationStream('o1'),
        organizationDecider,
        { kind: 'RemoveMember', organizationId: 'o1', userId: 'bob', byUserId: 'bob' },
        { caller },
      );
      expect((await stores.events.readStream(teamStream('t1'))).at(-1)).toMatchObject({
        type: 'TeamMemberRemoved',
        data: { userId: 'bob' },
        metadata: { actor: { id: 'reactor-team-departed-members' } },
      });
    } finally {
      await projector.stop();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
