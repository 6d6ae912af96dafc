import { CqrsModule, QueryBus } from '@nestjs/cqrs';
import { Test } from '@nestjs/testing';
import type { RecordedEvent } from '#event-store/event-store.port';
import type { AuditCatalog } from '#platform/audit-catalog';
import { APP_CONFIG, loadConfig } from '#platform/config';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { ReadStoreInputError } from '#read-store/errors';
import { MemoryReadStore } from '#read-store/memory/memory-read-store';
import { READ_STORE } from '#read-store/read-store.port';
import { auditProjection } from './audit.projection';
import {
  AuditAccessPolicy,
  auditQueryHandlers,
  GetAuditEvent,
  ListAuditEvents,
  parseTimeBound,
  type AuditEventFilters,
  type PageRequest,
} from './audit.queries';
import { ORGANIZATION_ACCESS, type OrganizationAccess } from './audit.needs';

const config = loadConfig({ PUBLIC_URL: 'https://docs.example.com' });

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

const alice = { type: 'user', id: 'u-alice', label: 'Alice' };
const bob = { type: 'user', id: 'u-bob', label: 'Bob' };

/**
 * Given: in o1, Alice creates s1..s5 one hour apart from 08:00, then Bob deletes s2 at 13:00;
 * in o2, Alice creates s9.
 */
function history(): RecordedEvent[] {
  const events: Array<[string, Record<string, unknown>, typeof alice, string]> = [
    ['SpaceCreated', { organizationId: 'o1', spaceId: 's1', title: 'One' }, alice, '2024-05-01T08:00:00.000Z'],
    ['SpaceCreated', { organizationId: 'o1', spaceId: 's2', title: 'Two' }, alice, '2024-05-01T09:00:00.000Z'],
    ['SpaceCreated', { organizationId: 'o2', spaceId: 's9', title: 'Nine' }, alice, '2024-05-01T09:30:00.000Z'],
    ['SpaceCreated', { organizationId: 'o1', spaceId: 's3', title: 'Three' }, alice, '2024-05-01T10:00:00.000Z'],
    ['SpaceCreated', { organizationId: 'o1', spaceId: 's4', title: 'Four' }, alice, '2024-05-01T11:00:00.000Z'],
    ['SpaceCreated', { organizationId: 'o1', spaceId: 's5', title: 'Five' }, alice, '2024-05-01T12:00:00.000Z'],
    ['SpaceDeleted', { organizationId: 'o1', spaceId: 's2' }, bob, '2024-05-01T13:00:00.000Z'],
  ];
  return events.map(([type, data, actor, occurredAt], index) => ({
    id: `e${index + 1}`,
    streamId: `space-${String(data.spaceId)}`,
    revision: type === 'SpaceDeleted' ? 1 : 0,
    position: BigInt(index + 1),
    type,
    data,
    metadata: { actor, source: 'api', occurredAt },
    recordedAt: occurredAt,
  }));
}

/** An admin of every organization, so that these reads pass the access check (tested below). */
const reader: Caller = {
  kind: 'user',
  userId: 'u-reader',
  tokenId: 't',
  user: { id: 'u-reader', displayName: 'Reader', email: 'reader@example.com', photoURL: null },
};
const everyOrganizationsAdmin: OrganizationAccess = { roleOf: async () => ({ member: true, role: 'admin' }) };

/** The audit log's reads on a query bus, over the audit documents of `history()`. */
async function givenAuditLog() {
  const reads = new MemoryReadStore();
  const projection = auditProjection(catalog);
  await reads.transaction(async (tx) => {
    for (const event of history()) await projection.apply(event, tx);
  });
  const module = await Test.createTestingModule({
    imports: [CqrsModule.forRoot()],
    providers: [
      { provide: READ_STORE, useValue: reads },
      { provide: APP_CONFIG, useValue: config },
      { provide: ORGANIZATION_ACCESS, useValue: everyOrganizationsAdmin },
      AuditAccessPolicy,
      ...auditQueryHandlers,
    ],
  }).compile();
  await module.init();
  const bus = module.get(QueryBus);
  return {
    list: (organizationId: string, filters?: AuditEventFilters, page?: PageRequest) =>
      bus.execute(new ListAuditEvents(organizationId, reader, filters, page)),
    get: (organizationId: string, auditEventId: string) => bus.execute(new GetAuditEvent(organizationId, auditEventId, reader)),
  };
}

const ids = (page: { items: Array<{ id: string }> }) => page.items.map((item) => item.id);

describe('audit queries', () => {
  it('lists an organization’s entries newest first, presented as audit-event objects', async () => {
    const audit = await givenAuditLog();
    const page = await audit.list('o1');
    expect(page.count).toBe(6);
    expect(page.next).toBeUndefined();
    expect(ids(page)).toEqual(['e7', 'e6', 'e5', 'e4', 'e2', 'e1']);
    expect(page.items[0]).toEqual({
      object: 'audit-event',
      id: 'e7',
      occurredAt: '2024-05-01T13:00:00.000Z',
      action: 'space.deleted',
      actor: bob,
      source: 'api',
      target: { type: 'space', id: 's2', label: 'Two' },
      urls: { location: 'https://docs.example.com/v1/orgs/o1/audit-events/e7' },
    });
  });

  it('filters by action, actor and target, exactly', async () => {
    const audit = await givenAuditLog();
    expect(ids(await audit.list('o1', { action: 'space.deleted' }))).toEqual(['e7']);
    expect(ids(await audit.list('o1', { action: 'space' }))).toEqual([]);
    expect(ids(await audit.list('o1', { actor: 'u-bob' }))).toEqual(['e7']);
    expect(ids(await audit.list('o1', { actor: 'u-alice' }))).toEqual(['e6', 'e5', 'e4', 'e2', 'e1']);
    expect(ids(await audit.list('o1', { target: 's2' }))).toEqual(['e7', 'e2']);
    expect(ids(await audit.list('o1', { target: 's2', actor: 'u-alice' }))).toEqual(['e2']);
    expect(ids(await audit.list('o2', { target: 's2' }))).toEqual([]);
  });

  it('filters by time, both bounds inclusive, in any zone', async () => {
    const audit = await givenAuditLog();
    expect(ids(await audit.list('o1', { from: '2024-05-01T10:00:00Z', to: '2024-05-01T12:00:00.000Z' }))).toEqual(['e6', 'e5', 'e4']);
    expect(ids(await audit.list('o1', { from: '2024-05-01T14:00:00+02:00' }))).toEqual(['e7', 'e6']);
    expect(ids(await audit.list('o1', { to: '2024-05-01T08:00Z' }))).toEqual(['e1']);
    expect(ids(await audit.list('o1', { from: '2024-05-01', to: '2024-05-01' }))).toHaveLength(6);
    expect(ids(await audit.list('o1', { to: '2024-04-30' }))).toEqual([]);
  });

  it('refuses malformed or impossible times and a from after to (400)', async () => {
    const audit = await givenAuditLog();
    for (const bad of [
      'yesterday',
      '2024-05-01T10:00:00',
      '2024-02-30T00:00:00Z',
      '2024-13-01',
      '2024-05-01T24:00:00Z',
      '1714550400000',
      '',
    ]) {
      await expect(audit.list('o1', { from: bad })).rejects.toMatchObject({
        status: 400,
        message: expect.stringContaining('from must be an ISO 8601 date-time'),
      });
    }
    await expect(audit.list('o1', { to: 'soon' })).rejects.toMatchObject({ status: 400, message: expect.stringContaining('to must be') });
    await expect(audit.list('o1', { from: '2024-05-02T00:00:00Z', to: '2024-05-01T00:00:00Z' })).rejects.toEqual(
      DomainError.invalid('from must not be after to'),
    );
  });

  it('pages with limit and the next cursor, without overlap, the filters applying to every page', async () => {
    const audit = await givenAuditLog();
    const first = await audit.list('o1', { actor: 'u-alice' }, { limit: 2 });
    expect(ids(first)).toEqual(['e6', 'e5']);
    expect(first.count).toBe(5);
    expect(first.next?.page).toEqual(expect.any(String));
    const second = await audit.list('o1', { actor: 'u-alice' }, { limit: 2, page: first.next!.page });
    expect(ids(second)).toEqual(['e4', 'e2']);
    const third = await audit.list('o1', { actor: 'u-alice' }, { limit: 2, page: second.next!.page });
    expect(ids(third)).toEqual(['e1']);
    expect(third.next).toBeUndefined();
  });

  it('refuses a bad cursor or limit with the read store’s input error (400)', async () => {
    const audit = await givenAuditLog();
    await expect(audit.list('o1', {}, { page: 'not-a-cursor' })).rejects.toBeInstanceOf(ReadStoreInputError);
    await expect(audit.list('o1', {}, { limit: 0 })).rejects.toBeInstanceOf(ReadStoreInputError);
    await expect(audit.list('o1', {}, { limit: 1001 })).rejects.toBeInstanceOf(ReadStoreInputError);
  });

  it('gets one entry of the organization, and nothing of another organization (404)', async () => {
    const audit = await givenAuditLog();
    expect(await audit.get('o1', 'e1')).toMatchObject({ id: 'e1', action: 'space.created', target: { id: 's1', label: 'One' } });
    await expect(audit.get('o2', 'e1')).rejects.toEqual(DomainError.notFound('no audit event e1 in organization o2'));
    await expect(audit.get('o1', 'e3')).rejects.toEqual(DomainError.notFound('no audit event e3 in organization o1'));
    await expect(audit.get('o1', 'nope')).rejects.toEqual(DomainError.notFound('no audit event nope in organization o1'));
  });
});

describe('time bounds', () => {
  it('normalizes to UTC milliseconds; a date alone covers the whole day', () => {
    expect(parseTimeBound('2024-05-01T12:30+02:00', 'from')).toBe('2024-05-01T10:30:00.000Z');
    expect(parseTimeBound('2024-05-01', 'from')).toBe('2024-05-01T00:00:00.000Z');
    expect(parseTimeBound('2024-05-01', 'to')).toBe('2024-05-01T23:59:59.999Z');
    expect(parseTimeBound('2024-02-29T00:00:00.123456Z', 'to')).toBe('2024-02-29T00:00:00.123Z');
  });
});

describe('audit access', () => {
  const standing: Record<string, { member: boolean; role: string | null } | null> = {
    'o1:u-admin': { member: true, role: 'admin' },
    'o1:u-editor': { member: true, role: 'edit' },
    'o1:u-guest': { member: true, role: null },
    'o1:u-stranger': { member: false, role: null },
  };
  const access: OrganizationAccess = {
    roleOf: async (organizationId, userId) =>
      organizationId === 'o1' ? (standing[`${organizationId}:${userId}`] ?? { member: false, role: null }) : null,
  };
  const policy = new AuditAccessPolicy(access);
  const user = (userId: string): Caller => ({
    kind: 'user',
    userId,
    tokenId: 't',
    user: { id: userId, displayName: userId, email: `${userId}@example.com`, photoURL: null },
  });

  it('lets admins of the organization read', async () => {
    await expect(policy.requireReader('o1', user('u-admin'))).resolves.toBeUndefined();
  });

  it('refuses other members with 403', async () => {
    await expect(policy.requireReader('o1', user('u-editor'))).rejects.toMatchObject({ status: 403 });
    await expect(policy.requireReader('o1', user('u-guest'))).rejects.toMatchObject({ status: 403 });
  });

  it('answers 404 to non-members, unknown organizations and the admin token alike', async () => {
    await expect(policy.requireReader('o1', user('u-stranger'))).rejects.toEqual(DomainError.notFound('no organization o1'));
    await expect(policy.requireReader('o404', user('u-admin'))).rejects.toEqual(DomainError.notFound('no organization o404'));
    await expect(policy.requireReader('o1', { kind: 'admin' })).rejects.toMatchObject({ status: 404 });
  });
});
