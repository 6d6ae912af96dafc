import { inStream, projectionSpec, recordEvents } from '#testing';
import { COLLECTIONS, SPACE_SHARE_LINKS, SPACES, spaceProjection } from './space.projections';
import { spaceAuditCatalog } from './space.audit';
import type { SpaceEvent } from './space.events';

const now = '2026-01-01T00:00:00.000Z';
const spec = projectionSpec(spaceProjection);

const s = { spaceId: 's1', organizationId: 'o1' };
const spaceCreated: SpaceEvent = {
  type: 'SpaceCreated',
  data: {
    ...s,
    title: 'Docs',
    emoji: null,
    visibility: 'private',
    editMode: 'live',
    defaultLevel: null,
    parent: 'c1',
    position: 'V',
    createdBy: 'ada',
    createdAt: now,
  },
};
const space = inStream('space-s1', [
  spaceCreated,
  { type: 'SpaceUpdated', data: { ...s, changes: { title: 'Docs 2', editMode: 'locked' }, updatedAt: now } },
  { type: 'ShareLinkCreated', data: { ...s, shareKey: 'k1', createdBy: 'ada', createdAt: now } },
  { type: 'SpaceMoved', data: { ...s, parent: null, position: 'a', visibility: 'private', movedAt: now } },
  { type: 'SpaceDeleted', data: { ...s, title: 'Docs 2', deletedAt: now } },
]);
const collection = inStream('collection-c1', [
  {
    type: 'CollectionCreated',
    data: {
      collectionId: 'c1',
      organizationId: 'o1',
      title: 'Box',
      description: null,
      defaultLevel: null,
      parent: null,
      position: 'V',
      createdBy: 'ada',
      createdAt: now,
    },
  },
  { type: 'CollectionDeleted', data: { collectionId: 'c1', organizationId: 'o1', title: 'Box', deletedAt: now } },
]);
const purged = inStream('space-s1', [{ type: 'SpacePurged', data: { ...s, title: 'Docs 2', purgedAt: now } }]);
const access = inStream('space-s1', [
  spaceCreated,
  { type: 'SpaceTeamAccessSet', data: { ...s, teamId: 't1', role: 'edit' } },
  { type: 'SpaceTeamAccessSet', data: { ...s, teamId: 't2', role: 'read' } },
  { type: 'SpaceTeamAccessSet', data: { ...s, teamId: 't1', role: 'admin' } },
  { type: 'SpaceTeamAccessRemoved', data: { ...s, teamId: 't2' } },
]);

describe('space projection', () => {
  it('given a space created, changed, shared, moved and deleted, then its document', async () => {
    await spec.given([...space, ...collection]).then({
      [SPACES]: [
        expect.objectContaining({
          _id: 's1',
          title: 'Docs 2',
          editMode: 'locked',
          parent: null,
          parentKey: '',
          position: 'a',
          deletedAt: now,
          revision: 4,
        }),
      ],
    });
  });

  it('given a collection created and deleted, then its document', async () => {
    await spec
      .given([...space, ...collection])
      .then({ [COLLECTIONS]: [expect.objectContaining({ _id: 'c1', deletedAt: now, revision: 1 })] });
  });

  it('given a share link created, then its document', async () => {
    await spec
      .given([...space, ...collection])
      .then({ [SPACE_SHARE_LINKS]: [expect.objectContaining({ _id: 'k1', spaceId: 's1', createdRevision: 2 })] });
  });

  it('given the events applied twice, then the documents are unchanged', async () => {
    await spec.given([...space, ...collection]).thenIdempotent();
  });

  it('given a purged space, then a tombstone is left that replaying the space’s events cannot revive', async () => {
    await spec
      .given([...space, ...collection, ...purged])
      .then({ [SPACES]: [expect.objectContaining({ _id: 's1', purgedAt: now, revision: 5 })] });
  });

  it('given a purged space, then its share links are gone', async () => {
    await spec.given([...space, ...collection, ...purged]).then({ [SPACE_SHARE_LINKS]: [] });
  });

  it('given roles granted to teams and removed, then the space keeps the roles still granted', async () => {
    await spec.given(access).then({ [SPACES]: [expect.objectContaining({ _id: 's1', teamRoles: { t1: 'admin' }, revision: 4 })] });
  });

  it('given roles granted to teams, when an older grant is delivered again, then nothing changes', async () => {
    await spec
      .given(access)
      .redelivered(1)
      .then({ [SPACES]: [expect.objectContaining({ _id: 's1', teamRoles: { t1: 'admin' }, revision: 4 })] });
  });
});

describe('space audit catalog', () => {
  it('describes every space event in the audit log', () => {
    expect(recordEvents(space).map((event) => spaceAuditCatalog[event.type](event)?.action)).toEqual([
      'space.created',
      'space.updated',
      'space.share_link_created',
      'space.moved',
      'space.deleted',
    ]);
  });

  it('describes a space created as a duplicate as space.duplicated', () => {
    const [recorded] = recordEvents(space);
    expect(spaceAuditCatalog.SpaceCreated({ ...recorded, data: { ...(recorded.data as object), duplicatedFrom: 's0' } })).toMatchObject({
      action: 'space.duplicated',
    });
  });

  it('describes team access changes', () => {
    expect(recordEvents(access.slice(1)).map((event) => spaceAuditCatalog[event.type](event)?.action)).toEqual([
      'space.team_access_set',
      'space.team_access_set',
      'space.team_access_set',
      'space.team_access_removed',
    ]);
  });
});
