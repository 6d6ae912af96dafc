import type { RecordedEvent } from '#event-store/event-store.port';
import { MemoryReadStore } from '#read-store/memory/memory-read-store';
import { MEMBER_PROFILES, MEMBERS, organizationProjection, type MemberDoc } from './organization.projections';

/**
 * Member documents carry the user's name and address for search and sorting. The organizations
 * context copies them from identity's events into its own `member_profiles`, never reading
 * identity's `users`, and keeps every member document of the user current.
 */
const now = '2026-01-01T00:00:00.000Z';
type Given = [streamId: string, type: string, data: object];

/** The events as the log records them: positions from 1, revisions per stream from 0. */
function record(events: Given[]): RecordedEvent[] {
  const revisions = new Map<string, number>();
  return events.map(([streamId, type, data], index) => {
    const revision = revisions.get(streamId) ?? 0;
    revisions.set(streamId, revision + 1);
    return { id: `e${index + 1}`, streamId, revision, position: BigInt(index + 1), type, data, metadata: {}, recordedAt: now };
  });
}

async function apply(reads: MemoryReadStore, events: RecordedEvent[]): Promise<void> {
  await reads.transaction(async (tx) => {
    for (const event of events) if (organizationProjection.handles?.includes(event.type)) await organizationProjection.apply(event, tx);
  });
}

const userCreated = (userId: string, displayName: string, email: string): Given => [
  `user-${userId}`,
  'UserCreated',
  { userId, email, displayName, photoURL: null, createdAt: now },
];
const renamed = (userId: string, displayName: string): Given => [
  `user-${userId}`,
  'UserUpdated',
  { userId, changes: { displayName }, updatedAt: now },
];
const orgCreated = (organizationId: string): Given => [
  `organization-${organizationId}`,
  'OrganizationCreated',
  { organizationId, title: organizationId, emailDomains: [], createdBy: 'ada', createdAt: now },
];
const joined = (organizationId: string, userId: string): Given => [
  `organization-${organizationId}`,
  'MemberAdded',
  { organizationId, userId, role: 'read', sso: false, joinedAt: now },
];
const left = (organizationId: string, userId: string): Given => [
  `organization-${organizationId}`,
  'MemberRemoved',
  { organizationId, userId },
];

/** `GET /members?search=` as ListMembers filters it, sorted by name. */
async function search(reads: MemoryReadStore, organizationId: string, text: string): Promise<string[]> {
  const pattern = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const filter = {
    organizationId,
    disabled: false,
    $or: [{ displayName: { $regex: pattern, $options: 'i' } }, { email: { $regex: pattern, $options: 'i' } }],
  };
  return (await reads.collection<MemberDoc>(MEMBERS).find(filter, { sort: { nameLower: 1 } })).items.map((member) => member.displayName);
}

const history: Given[] = [
  userCreated('ada', 'Ada', 'ada@acme.io'),
  userCreated('bob', 'Bob', 'bob@acme.io'),
  orgCreated('o1'),
  orgCreated('o2'),
  joined('o1', 'ada'),
  joined('o1', 'bob'),
  joined('o2', 'bob'),
];

describe('organization projection: member profiles copied from identity events', () => {
  it('given a user who joined, then their member document carries the name and address, with no read of identity read models', async () => {
    const reads = new MemoryReadStore();
    await apply(reads, record(history));
    expect(await reads.collection(MEMBERS).get('o1:bob')).toMatchObject({ displayName: 'Bob', email: 'bob@acme.io', nameLower: 'bob' });
    expect(await reads.listCollections()).not.toContain('users');
    expect(organizationProjection.collections).toContain(MEMBER_PROFILES);
  });

  it('given a user renamed after joining, then member search finds the new name in every organization and the old one no more', async () => {
    const reads = new MemoryReadStore();
    await apply(reads, record([...history, renamed('bob', 'Robert Zed')]));
    expect(await search(reads, 'o1', 'robert')).toEqual(['Robert Zed']);
    expect(await search(reads, 'o2', 'ROBERT')).toEqual(['Robert Zed']);
    expect(await search(reads, 'o1', 'bob')).toEqual(['Robert Zed']); // still found by address
    expect(await search(reads, 'o1', 'Bob ')).toEqual([]);
    expect(await search(reads, 'o1', '')).toEqual(['Ada', 'Robert Zed']);
    expect(await reads.collection(MEMBERS).get('o2:bob')).toMatchObject({
      displayName: 'Robert Zed',
      email: 'bob@acme.io',
      nameLower: 'robert zed',
    });
  });

  it('given a user renamed before joining, then the new member document has the new name', async () => {
    const reads = new MemoryReadStore();
    await apply(
      reads,
      record([userCreated('carl', 'Carl', 'carl@acme.io'), orgCreated('o1'), renamed('carl', 'Karl'), joined('o1', 'carl')]),
    );
    expect(await search(reads, 'o1', 'karl')).toEqual(['Karl']);
  });

  it('given a member who left, then a later rename reaches only the organizations they are in, and rejoining shows the current name', async () => {
    const reads = new MemoryReadStore();
    await apply(reads, record([...history, left('o1', 'bob'), renamed('bob', 'Robert')]));
    expect(await reads.collection(MEMBERS).get('o1:bob')).toBeNull();
    expect(await reads.collection(MEMBER_PROFILES).get('bob')).toMatchObject({ displayName: 'Robert', organizations: ['o2'] });
    await apply(reads, record([...history, left('o1', 'bob'), renamed('bob', 'Robert'), joined('o1', 'bob')]).slice(-1));
    expect(await search(reads, 'o1', 'robert')).toEqual(['Robert']);
  });

  it('given a member added before the user was known, then the user created later fills the member document', async () => {
    const reads = new MemoryReadStore();
    await apply(reads, record([orgCreated('o1'), joined('o1', 'dora'), userCreated('dora', 'Dora', 'dora@acme.io')]));
    expect(await reads.collection(MEMBERS).get('o1:dora')).toMatchObject({ displayName: 'Dora', email: 'dora@acme.io', nameLower: 'dora' });
  });

  it('given the events applied twice, or an older rename again, then nothing changes', async () => {
    const events = record([...history, renamed('bob', 'Robert'), renamed('bob', 'Bobby')]);
    const once = new MemoryReadStore();
    await apply(once, events);
    const twice = new MemoryReadStore();
    await apply(twice, events);
    await apply(twice, events);
    await apply(twice, [events[events.length - 2]]);
    for (const collection of [MEMBERS, MEMBER_PROFILES]) {
      expect((await twice.collection(collection).find({}, { limit: 100 })).items).toEqual(
        (await once.collection(collection).find({}, { limit: 100 })).items,
      );
    }
    expect(await search(twice, 'o1', 'bobby')).toEqual(['Bobby']);
  });
});
