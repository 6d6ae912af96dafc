import type { RecordedEvent } from '#event-store/event-store.port';
import { ManualClock } from '#platform/clock';
import type { Caller } from '#platform/http/auth';
import type { OrganizationRole } from '#platform/permissions';
import { MemoryReadStore } from '#read-store/memory/memory-read-store';
import type { SpaceOrganizations, SpaceTeams } from './spaces.needs';
import { SpaceAccess } from './space.access';
import { spaceProjection } from './space.projections';

const DAY = 86_400_000;
const t0 = '2026-03-01T00:00:00.000Z';
const ada: Caller = {
  kind: 'user',
  userId: 'ada',
  tokenId: 't',
  user: { id: 'ada', displayName: 'Ada', email: 'ada@example.com', photoURL: null },
};

/** The read side of spaces over the memory read store, with a ManualClock and fixed organization roles. */
function accessWith(roles: Record<string, OrganizationRole | undefined>, clock: ManualClock) {
  const reads = new MemoryReadStore();
  const membership = {
    roleOf: async (_organizationId: string, userId: string) =>
      Object.prototype.hasOwnProperty.call(roles, userId)
        ? { member: true, role: roles[userId] as OrganizationRole }
        : { member: false, role: null },
  } as SpaceOrganizations;
  const teams = { teamIdsOf: async () => [], teamsAmong: async () => [] } as unknown as SpaceTeams;
  return { reads, access: new SpaceAccess(reads, membership, clock, teams) };
}

let position = 0n;
async function apply(reads: MemoryReadStore, events: Array<[string, object]>): Promise<void> {
  const recorded: RecordedEvent[] = events.map(([type, data], revision) => ({
    id: `e${revision}`,
    streamId: 'space-s1',
    revision,
    position: ++position,
    type,
    data,
    metadata: {},
    recordedAt: t0,
  }));
  await reads.transaction(async (tx) => {
    for (const event of recorded) await spaceProjection.apply(event, tx);
  });
}

const s = { spaceId: 's1', organizationId: 'o1' };
const createdAndDeleted: Array<[string, object]> = [
  [
    'SpaceCreated',
    {
      ...s,
      title: 'Docs',
      emoji: null,
      visibility: 'private',
      editMode: 'live',
      defaultLevel: null,
      parent: null,
      position: 'V',
      createdBy: 'ada',
      createdAt: t0,
    },
  ],
  ['SpaceDeleted', { ...s, title: 'Docs', deletedAt: t0 }],
];

describe('SpaceAccess: the 7-day window on the read side', () => {
  it('given a space deleted exactly 7 days ago and not purged, then its admin still sees it (to restore it)', async () => {
    const clock = new ManualClock(new Date(Date.parse(t0) + 7 * DAY));
    const { reads, access } = accessWith({ ada: 'admin' }, clock);
    await apply(reads, createdAndDeleted);
    await expect(access.space('s1', ada)).resolves.toMatchObject({ role: 'admin', space: { _id: 's1', deletedAt: t0 } });
  });

  it('given a space deleted more than 7 days ago that the purge job has not removed yet, then it is gone (404), even for its admin', async () => {
    const clock = new ManualClock(new Date(Date.parse(t0) + 7 * DAY + 1));
    const { reads, access } = accessWith({ ada: 'admin' }, clock);
    await apply(reads, createdAndDeleted);
    await expect(access.space('s1', ada)).rejects.toMatchObject({ status: 404, message: 'no space s1' });
  });
});

describe('SpaceAccess: a member whose role is not a role', () => {
  it.each([undefined, 'owner', 'constructor'])(
    'given organization role %p, then a private space is invisible (404), as for a guest',
    async (role) => {
      const { reads, access } = accessWith({ ada: role as OrganizationRole }, new ManualClock(new Date(t0)));
      await apply(reads, createdAndDeleted.slice(0, 1));
      await expect(access.space('s1', ada)).rejects.toMatchObject({ status: 404 });
      await expect(access.standing('o1', ada)).resolves.toEqual({ member: true, role: null, teams: [] });
    },
  );
});
