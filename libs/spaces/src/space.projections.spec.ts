import type { RecordedEvent } from '../../event-store/src/event-store.port';
import { MemoryReadStore } from '../../read-store/src/memory/memory-read-store';
import { COLLECTIONS, SPACE_SHARE_LINKS, SPACES, spaceProjection } from './space.projections';
import { spaceAuditCatalog } from './space.audit';

const now = '2026-01-01T00:00:00.000Z';
let position = 0n;
function stream(streamId: string, events: Array<[string, object]>): RecordedEvent[] {
  return events.map(([type, data], revision) => ({ id: `${streamId}#${revision}`, streamId, revision, position: ++position, type, data, metadata: {}, recordedAt: now }));
}

const s = { spaceId: 's1', organizationId: 'o1' };
const space = stream('space-s1', [
  ['SpaceCreated', { ...s, title: 'Docs', emoji: null, visibility: 'private', editMode: 'live', defaultLevel: null, parent: 'c1', position: 'V', createdBy: 'ada', createdAt: now }],
  ['SpaceUpdated', { ...s, changes: { title: 'Docs 2', editMode: 'locked' }, updatedAt: now }],
  ['ShareLinkCreated', { ...s, shareKey: 'k1', createdBy: 'ada', createdAt: now }],
  ['SpaceMoved', { ...s, parent: null, position: 'a', visibility: 'private', movedAt: now }],
  ['SpaceDeleted', { ...s, title: 'Docs 2', deletedAt: now }],
]);
const purged = stream('space-s1', [...Array(5).fill(['SpaceRestored', {}]), ['SpacePurged', { ...s, title: 'Docs 2', purgedAt: now }]]).slice(5);
const collection = stream('collection-c1', [
  ['CollectionCreated', { collectionId: 'c1', organizationId: 'o1', title: 'Box', description: null, defaultLevel: null, parent: null, position: 'V', createdBy: 'ada', createdAt: now }],
  ['CollectionDeleted', { collectionId: 'c1', organizationId: 'o1', title: 'Box', deletedAt: now }],
]);

async function apply(store: MemoryReadStore, events: RecordedEvent[]): Promise<void> {
  await store.transaction(async (tx) => {
    for (const event of events) await spaceProjection.apply(event, tx);
  });
}

const snapshot = async (store: MemoryReadStore) => ({
  spaces: (await store.collection(SPACES).find({}, { limit: 100 })).items,
  collections: (await store.collection(COLLECTIONS).find({}, { limit: 100 })).items,
  links: (await store.collection(SPACE_SHARE_LINKS).find({}, { limit: 100 })).items,
});

describe('space projection', () => {
  it('given the events, then the documents', async () => {
    const store = new MemoryReadStore();
    await apply(store, [...space, ...collection]);
    const { spaces, collections, links } = await snapshot(store);
    expect(spaces).toEqual([
      expect.objectContaining({ _id: 's1', title: 'Docs 2', editMode: 'locked', parent: null, parentKey: '', position: 'a', deletedAt: now, revision: 4 }),
    ]);
    expect(collections).toEqual([expect.objectContaining({ _id: 'c1', deletedAt: now, revision: 1 })]);
    expect(links).toEqual([expect.objectContaining({ _id: 'k1', spaceId: 's1', createdRevision: 2 })]);
  });

  it('applied twice is a no-op, and a purge leaves a tombstone that replays cannot revive', async () => {
    const once = new MemoryReadStore();
    await apply(once, [...space, ...collection]);
    const twice = new MemoryReadStore();
    await apply(twice, [...space, ...collection]);
    await apply(twice, [...space, ...collection]);
    expect(await snapshot(twice)).toEqual(await snapshot(once));

    await apply(once, purged);
    await apply(once, [...space, ...purged]);
    const after = await snapshot(once);
    expect(after.spaces).toEqual([expect.objectContaining({ _id: 's1', purgedAt: now, revision: 5 })]);
    expect(after.links).toEqual([]);
  });

  it('describes every event in the audit log', () => {
    expect(space.map((event) => spaceAuditCatalog[event.type](event)?.action)).toEqual(['space.created', 'space.updated', 'space.share_link_created', 'space.moved', 'space.deleted']);
    expect(spaceAuditCatalog.SpaceCreated({ ...space[0], data: { ...space[0].data as object, duplicatedFrom: 's0' } })).toMatchObject({ action: 'space.duplicated' });
  });

  it('keeps the roles granted to teams; applied twice is a no-op', async () => {
    const access = stream('space-s1', [
      [space[0].type, space[0].data as object],
      ['SpaceTeamAccessSet', { ...s, teamId: 't1', role: 'edit' }],
      ['SpaceTeamAccessSet', { ...s, teamId: 't2', role: 'read' }],
      ['SpaceTeamAccessSet', { ...s, teamId: 't1', role: 'admin' }],
      ['SpaceTeamAccessRemoved', { ...s, teamId: 't2' }],
    ]);
    const once = new MemoryReadStore();
    await apply(once, access);
    expect((await snapshot(once)).spaces).toEqual([expect.objectContaining({ _id: 's1', teamRoles: { t1: 'admin' }, revision: 4 })]);
    await apply(once, access);
    await apply(once, [access[1]]);
    expect((await snapshot(once)).spaces).toEqual([expect.objectContaining({ _id: 's1', teamRoles: { t1: 'admin' }, revision: 4 })]);
    expect(access.slice(1).map((event) => spaceAuditCatalog[event.type](event)?.action)).toEqual([
      'space.team_access_set',
      'space.team_access_set',
      'space.team_access_set',
      'space.team_access_removed',
    ]);
  });
});
