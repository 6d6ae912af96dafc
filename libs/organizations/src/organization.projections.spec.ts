import type { RecordedEvent } from '../../event-store/src/event-store.port';
import { MemoryReadStore } from '../../read-store/src/memory/memory-read-store';
import { INVITATIONS, MEMBERS, ORGANIZATIONS, organizationProjection } from './organization.projections';

const now = '2026-01-01T00:00:00.000Z';
const recorded = (revision: number, type: string, data: object): RecordedEvent => ({
  id: `e${revision}`,
  streamId: 'organization-o1',
  revision,
  position: BigInt(revision + 1),
  type,
  data,
  metadata: {},
  recordedAt: now,
});
const history = [
  recorded(0, 'OrganizationCreated', { organizationId: 'o1', title: 'Acme', emailDomains: ['acme.io'], createdBy: 'ada', createdAt: now }),
  recorded(1, 'MemberAdded', { organizationId: 'o1', userId: 'ada', role: 'admin', sso: false, joinedAt: now }),
  recorded(2, 'OrganizationUpdated', { organizationId: 'o1', changes: { title: 'Acme Inc', hostname: 'acme' }, updatedAt: '2026-01-02T00:00:00.000Z' }),
];

describe('organization projection', () => {
  const apply = async (store: MemoryReadStore, events: RecordedEvent[]) =>
    store.transaction(async (tx) => {
      for (const event of events) await organizationProjection.apply(event, tx);
    });

  it('given an organization created, joined and renamed, then its document and member documents', async () => {
    const store = new MemoryReadStore();
    await apply(store, history);
    expect(await store.collection(ORGANIZATIONS).get('o1')).toEqual({
      _id: 'o1',
      title: 'Acme Inc',
      hostname: 'acme',
      createdAt: now,
      updatedAt: '2026-01-02T00:00:00.000Z',
      emailDomains: ['acme.io'],
      defaultRole: null,
      defaultContent: null,
      logo: null,
      sso: false,
      ai: false,
      inviteLinks: true,
      revision: 2,
    });
    expect(await store.collection(MEMBERS).get('o1:ada')).toEqual({
      _id: 'o1:ada',
      organizationId: 'o1',
      userId: 'ada',
      role: 'admin',
      joinedAt: now,
      lastSeenAt: null,
      sso: false,
      disabled: false,
      displayName: '',
      email: '',
      nameLower: '',
    });
  });

  it('given the same events applied twice, then the documents are unchanged', async () => {
    const once = new MemoryReadStore();
    await apply(once, history);
    const twice = new MemoryReadStore();
    await apply(twice, history);
    await apply(twice, history);
    expect(await twice.collection(ORGANIZATIONS).get('o1')).toEqual(await once.collection(ORGANIZATIONS).get('o1'));
    expect(await twice.collection(MEMBERS).count()).toBe(1);
  });

  it('given an invitation, then it is pending until answered, and a refresh replaces it', async () => {
    const store = new MemoryReadStore();
    const invited = (revision: number, role: string) =>
      recorded(revision, 'MemberInvited', { organizationId: 'o1', invitationId: 'i1', email: 'carl@acme.io', role, sso: false, invitedBy: 'ada', invitedAt: now });
    await apply(store, [...history, invited(3, 'read'), invited(4, 'edit')]);
    expect(await store.collection(INVITATIONS).get('i1')).toEqual({ _id: 'i1', organizationId: 'o1', email: 'carl@acme.io', role: 'edit', sso: false, invitedBy: 'ada', invitedAt: now });
    await apply(store, [recorded(5, 'InvitationAccepted', { organizationId: 'o1', invitationId: 'i1', userId: 'carl', acceptedAt: now })]);
    expect(await store.collection(INVITATIONS).get('i1')).toBeNull();
    expect(await store.collection(ORGANIZATIONS).get('o1')).toMatchObject({ revision: 5 });
  });
});
