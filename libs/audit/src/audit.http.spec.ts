import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { EVENT_STORE } from '#event-store/event-store.port';
import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';
import type { AuditCatalog } from '#platform/audit-catalog';
import { APP_CONFIG, loadConfig } from '#platform/config';
import { AuthGuard, hashToken, TOKEN_VERIFIER, type Caller, type TokenVerifier } from '#platform/http/auth';
import { registerFrontDoor } from '#platform/http/front-door';
import { RateLimiter } from '#platform/http/rate-limit';
import { systemClock } from '#platform/clock';
import { ErrorEnvelopeFilter } from '#platform/http/error-envelope';
import { MemoryReadStore } from '#read-store/memory/memory-read-store';
import { ProjectionRunner } from '#read-store/projections/projection-runner';
import { READ_STORE } from '#read-store/read-store.port';
import { auditProjection } from './audit.projection';
import { AuditModule } from './audit.module';
import { ORGANIZATION_ACCESS, type OrganizationAccess } from './audit.needs';

/**
 * The audit context's two controllers over HTTP, with the platform's guard, validation pipe and
 * error envelope, on a real LMDB log projected into a memory read store. Organizations are faked
 * through the ORGANIZATION_ACCESS port.
 */

const ADMIN_TOKEN = 'admin-token-0123456789abcdef';
const config = loadConfig({ PUBLIC_URL: 'https://docs.example.com' });

const users: Record<string, string> = { 'tok-admin': 'u-admin', 'tok-editor': 'u-editor', 'tok-stranger': 'u-stranger' };
const tokens: TokenVerifier = {
  async verify(hash) {
    const entry = Object.entries(users).find(([token]) => hashToken(token) === hash);
    if (!entry) return null;
    const userId = entry[1];
    return {
      kind: 'user',
      userId,
      tokenId: `t-${userId}`,
      user: { id: userId, displayName: userId, email: `${userId}@example.com`, photoURL: null },
    } as Extract<Caller, { kind: 'user' }>;
  },
};
const roles: Record<string, string | null> = { 'u-admin': 'admin', 'u-editor': 'edit' };
const access: OrganizationAccess = {
  roleOf: async (organizationId, userId) =>
    organizationId !== 'org00000000000000001'
      ? null
      : userId in roles
        ? { member: true, role: roles[userId] }
        : { member: false, role: null },
};

const catalog: AuditCatalog = {
  SpaceCreated: (e) => {
    const d = e.data as { organizationId: string; spaceId: string; title: string };
    return { action: 'space.created', organizationId: d.organizationId, target: { type: 'space', id: d.spaceId, label: d.title } };
  },
  SpaceDeleted: (e) => {
    const d = e.data as { organizationId: string; spaceId: string };
    return { action: 'space.deleted', organizationId: d.organizationId, target: { type: 'space', id: d.spaceId } };
  },
};

@Module({})
class TestStoresModule {
  static with(events: LmdbEventStore, reads: MemoryReadStore): DynamicModule {
    const providers = [
      { provide: APP_CONFIG, useValue: config },
      { provide: EVENT_STORE, useValue: events },
      { provide: READ_STORE, useValue: reads },
      { provide: TOKEN_VERIFIER, useValue: tokens },
      // The port the composition root binds to the organizations context.
      { provide: ORGANIZATION_ACCESS, useValue: access },
    ];
    return { module: TestStoresModule, global: true, providers, exports: providers.map((p) => p.provide) };
  }
}

describe('audit HTTP', () => {
  let dir: string;
  let events: LmdbEventStore;
  let app: NestFastifyApplication;
  const eventIds: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'audit-http-'));
    events = LmdbEventStore.open(join(dir, 'events'));
    const actor = { type: 'user', id: 'u-admin', label: 'Ada Admin' };
    const at = (hour: number) => ({ actor, source: 'api', occurredAt: `2024-05-01T${String(hour).padStart(2, '0')}:00:00.000Z` });
    for (let i = 1; i <= 3; i++) {
      await events.appendToStream(
        `space-s${i}`,
        [
          {
            type: 'SpaceCreated',
            data: { organizationId: 'org00000000000000001', spaceId: `s${i}`, title: `Space ${i}` },
            metadata: at(8 + i),
          },
        ],
        'no_stream',
      );
    }
    await events.appendToStream(
      'space-s1',
      [{ type: 'SpaceDeleted', data: { organizationId: 'org00000000000000001', spaceId: 's1' }, metadata: at(12) }],
      0,
    );
    await events.appendToStream(
      'space-x',
      [{ type: 'SpaceCreated', data: { organizationId: 'o2', spaceId: 'x', title: 'Other' }, metadata: at(13) }],
      'no_stream',
    );
    for (const e of await events.readAll()) eventIds.push(e.id);

    const reads = new MemoryReadStore();
    await new ProjectionRunner(events, reads, [auditProjection(catalog)]).rebuild();

    const moduleRef = await Test.createTestingModule({
      // The buses, as the runtime module gives them to the app.
      imports: [CqrsModule.forRoot(), TestStoresModule.with(events, reads), AuditModule],
      providers: [
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
      ],
    }).compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    registerFrontDoor(app.getHttpAdapter().getInstance(), {
      prefix: '/v1',
      rateLimiter: new RateLimiter(10_000, systemClock),
      tokens,
      adminTokenHash: hashToken(ADMIN_TOKEN),
      isReady: () => true,
    });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await app?.close();
    await events?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = async (url: string, token?: string) => {
    const response = await app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: response.statusCode, body: response.json() };
  };

  describe('GET /v1/orgs/{organizationId}/audit-events', () => {
    it('lists the organization’s log newest first for its admins', async () => {
      const { status, body } = await get('/v1/orgs/org00000000000000001/audit-events', 'tok-admin');
      expect(status).toBe(200);
      expect(body.count).toBe(4);
      expect(body.next).toBeUndefined();
      expect(body.items.map((i: { action: string; target: { label: string } }) => `${i.action} ${i.target.label}`)).toEqual([
        'space.deleted Space 1',
        'space.created Space 3',
        'space.created Space 2',
        'space.created Space 1',
      ]);
      expect(body.items[0]).toEqual({
        object: 'audit-event',
        id: eventIds[3],
        occurredAt: '2024-05-01T12:00:00.000Z',
        action: 'space.deleted',
        actor: { type: 'user', id: 'u-admin', label: 'Ada Admin' },
        source: 'api',
        target: { type: 'space', id: 's1', label: 'Space 1' },
        urls: { location: `https://docs.example.com/v1/orgs/org00000000000000001/audit-events/${eventIds[3]}` },
      });
    });

    it('filters and paginates', async () => {
      const first = await get(
        '/v1/orgs/org00000000000000001/audit-events?action=space.created&from=2024-05-01T10:00:00Z&limit=1',
        'tok-admin',
      );
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ count: 2, items: [{ target: { id: 's3' } }], next: { page: expect.any(String) } });
      const second = await get(
        `/v1/orgs/org00000000000000001/audit-events?action=space.created&from=2024-05-01T10:00:00Z&limit=1&page=${first.body.next.page}`,
        'tok-admin',
      );
      expect(second.body).toMatchObject({ count: 2, items: [{ target: { id: 's2' } }] });
      expect(second.body.next).toBeUndefined();
      const byTarget = await get('/v1/orgs/org00000000000000001/audit-events?target=s1&actor=u-admin&to=2024-05-01', 'tok-admin');
      expect(byTarget.body.count).toBe(2);
    });

    it.each([
      ['a malformed from', 'from=yesterday', /from must be an ISO 8601 date-time/],
      ['a malformed to', 'to=2024-05-01T25:00:00Z', /to must be an ISO 8601 date-time/],
      ['a bad cursor', 'page=garbage', /invalid page cursor/],
      ['a negative limit', 'limit=-1', /limit must be between 0 and 1000/],
      ['limit 1001', 'limit=1001', /limit must be between 0 and 1000/],
      ['an unknown parameter', 'sort=asc', /property sort should not exist/],
      ['a repeated filter', 'action=a&action=b', /action must be a string/],
    ])('answers 400 to %s', async (_, query, message) => {
      const { status, body } = await get(`/v1/orgs/org00000000000000001/audit-events?${query}`, 'tok-admin');
      expect(status).toBe(400);
      expect(body.error.code).toBe(400);
      expect(body.error.message).toMatch(message);
    });

    it('answers 401 without a token, 403 to other members, 404 to non-members, unknown organizations and the admin token', async () => {
      expect((await get('/v1/orgs/org00000000000000001/audit-events')).status).toBe(401);
      expect(await get('/v1/orgs/org00000000000000001/audit-events', 'tok-editor')).toEqual({
        status: 403,
        body: { error: { code: 403, message: 'only admins of organization org00000000000000001 may read its audit log' } },
      });
      expect(await get('/v1/orgs/org00000000000000001/audit-events', 'tok-stranger')).toEqual({
        status: 404,
        body: { error: { code: 404, message: 'no organization org00000000000000001' } },
      });
      expect((await get('/v1/orgs/org00000000000000404/audit-events', 'tok-admin')).status).toBe(404);
      expect((await get('/v1/orgs/o%201/audit-events', 'tok-admin')).status).toBe(404);
      expect((await get('/v1/orgs/org00000000000000001/audit-events', ADMIN_TOKEN)).status).toBe(403);
    });
  });

  describe('GET /v1/orgs/{organizationId}/audit-events/{auditEventId}', () => {
    it('returns one entry', async () => {
      const { status, body } = await get(`/v1/orgs/org00000000000000001/audit-events/${eventIds[0]}`, 'tok-admin');
      expect(status).toBe(200);
      expect(body).toMatchObject({
        object: 'audit-event',
        id: eventIds[0],
        action: 'space.created',
        target: { id: 's1', label: 'Space 1' },
      });
    });

    it('answers 404 for an unknown entry or one of another organization, 403 to non-admins', async () => {
      expect((await get('/v1/orgs/org00000000000000001/audit-events/nope', 'tok-admin')).status).toBe(404);
      expect((await get(`/v1/orgs/org00000000000000001/audit-events/${'x'.repeat(65)}`, 'tok-admin')).status).toBe(404);
      expect((await get('/v1/orgs/org00000000000000001/audit-events/a.b', 'tok-admin')).status).toBe(404);
      expect((await get(`/v1/orgs/org00000000000000001/audit-events/${eventIds[4]}`, 'tok-admin')).status).toBe(404);
      expect((await get(`/v1/orgs/org00000000000000001/audit-events/${eventIds[0]}`, 'tok-editor')).status).toBe(403);
      expect((await get(`/v1/orgs/org00000000000000001/audit-events/${eventIds[0]}`, 'tok-stranger')).status).toBe(404);
    });
  });

  describe('GET /v1/admin/streams/{streamName}', () => {
    it('lists a stream’s events oldest first with the admin token', async () => {
      const { status, body } = await get('/v1/admin/streams/space-s1', ADMIN_TOKEN);
      expect(status).toBe(200);
      expect(body.count).toBe(2);
      expect(body.next).toBeUndefined();
      expect(body.items).toEqual([
        {
          object: 'event',
          id: eventIds[0],
          streamId: 'space-s1',
          revision: 0,
          position: '1',
          type: 'SpaceCreated',
          data: { organizationId: 'org00000000000000001', spaceId: 's1', title: 'Space 1' },
          metadata: { actor: { type: 'user', id: 'u-admin', label: 'Ada Admin' }, source: 'api', occurredAt: '2024-05-01T09:00:00.000Z' },
          recordedAt: expect.any(String),
        },
        expect.objectContaining({ object: 'event', id: eventIds[3], revision: 1, position: '4', type: 'SpaceDeleted' }),
      ]);
    });

    it('paginates by revision', async () => {
      const first = await get('/v1/admin/streams/space-s1?limit=1', ADMIN_TOKEN);
      expect(first.body).toMatchObject({ count: 2, items: [{ revision: 0 }], next: { page: expect.any(String) } });
      const second = await get(`/v1/admin/streams/space-s1?limit=1&page=${first.body.next.page}`, ADMIN_TOKEN);
      expect(second.body).toMatchObject({ count: 2, items: [{ revision: 1 }] });
      expect(second.body.next).toBeUndefined();
    });

    it('answers 400 to an invalid stream name, a bad cursor or limit; 404 to an unknown stream', async () => {
      expect((await get('/v1/admin/streams/nodash', ADMIN_TOKEN)).body.error).toEqual({
        code: 400,
        message: "invalid stream name 'nodash': expected <category>-<id>",
      });
      expect((await get('/v1/admin/streams/space-s1?page=bad!', ADMIN_TOKEN)).status).toBe(400);
      expect((await get(`/v1/admin/streams/space-s1?page=${Buffer.from('rev:-1').toString('base64url')}`, ADMIN_TOKEN)).status).toBe(400);
      expect((await get('/v1/admin/streams/space-s1?limit=5000', ADMIN_TOKEN)).status).toBe(400);
      expect(await get('/v1/admin/streams/space-nothing', ADMIN_TOKEN)).toEqual({
        status: 404,
        body: { error: { code: 404, message: 'no stream space-nothing' } },
      });
    });

    it('needs the admin token', async () => {
      expect((await get('/v1/admin/streams/space-s1')).status).toBe(401);
      expect((await get('/v1/admin/streams/space-s1', 'tok-admin')).status).toBe(403);
    });
  });
});
