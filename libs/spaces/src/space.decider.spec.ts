import { DomainError } from '../../platform/src/errors';
import { collectionDecider, type CollectionCommand } from './collection.decider';
import { spaceDecider, type SpaceActor, type SpaceCommand } from './space.decider';
import type { CollectionEvent, SpaceEvent } from './space.events';

const t0 = '2026-01-01T00:00:00.000Z';
const at = (days: number, ms = 0) => new Date(Date.parse(t0) + days * 86_400_000 + ms).toISOString();
const given = (events: SpaceEvent[]) => events.reduce(spaceDecider.evolve, spaceDecider.initialState());
const when = (events: SpaceEvent[], command: SpaceCommand) => spaceDecider.decide(command, given(events));
const admin: SpaceActor = { userId: 'ada', role: 'admin' };
const editor: SpaceActor = { userId: 'eve', role: 'edit' };
const reader: SpaceActor = { userId: 'rita', role: 'read' };

const created: SpaceEvent = {
  type: 'SpaceCreated',
  data: { spaceId: 's1', organizationId: 'o1', title: 'Docs', emoji: null, visibility: 'in-collection', editMode: 'live', defaultLevel: null, parent: 'c1', position: 'V', createdBy: 'ada', createdAt: t0 },
};
const deleted: SpaceEvent = { type: 'SpaceDeleted', data: { spaceId: 's1', organizationId: 'o1', title: 'Docs', deletedAt: t0 } };
const status = (result: SpaceEvent[] | DomainError | CollectionEvent[]) => (result instanceof DomainError ? result.status : 'ok');

describe('space decider', () => {
  it('creates only for role create and above, and in-collection only inside a collection', () => {
    const create = (by: SpaceActor, parent: string | null, visibility: 'private' | 'in-collection'): SpaceCommand => ({
      kind: 'CreateSpace',
      spaceId: 's1',
      organizationId: 'o1',
      title: 'Docs',
      emoji: null,
      visibility,
      editMode: 'live',
      defaultLevel: null,
      parent,
      position: 'V',
      by,
      now: t0,
    });
    expect(when([], create(admin, 'c1', 'in-collection'))).toEqual([created]);
    expect(status(when([], create(editor, null, 'private')))).toBe(403);
    expect(status(when([], create(admin, null, 'in-collection')))).toBe(400);
    expect(status(when([created], create(admin, 'c1', 'in-collection')))).toBe(409);
  });

  it('lets editors change title and emoji, only admins editMode, defaultLevel and visibility; no-op changes append nothing', () => {
    expect(when([created], { kind: 'UpdateSpace', spaceId: 's1', changes: { title: 'New' }, by: editor, now: t0 })).toEqual([
      { type: 'SpaceUpdated', data: { spaceId: 's1', organizationId: 'o1', changes: { title: 'New' }, updatedAt: t0 } },
    ]);
    expect(status(when([created], { kind: 'UpdateSpace', spaceId: 's1', changes: { editMode: 'locked' }, by: editor, now: t0 }))).toBe(403);
    expect(status(when([created], { kind: 'UpdateSpace', spaceId: 's1', changes: { title: 'New' }, by: reader, now: t0 }))).toBe(403);
    expect(when([created], { kind: 'UpdateSpace', spaceId: 's1', changes: { title: 'Docs', editMode: 'live' }, by: admin, now: t0 })).toEqual([]);
    expect(status(when([created, deleted], { kind: 'UpdateSpace', spaceId: 's1', changes: { title: 'x' }, by: admin, now: t0 }))).toBe(409);
  });

  describe('the 7-day window', () => {
    const restore = (now: string, by = admin): SpaceCommand => ({ kind: 'RestoreSpace', spaceId: 's1', by, now });
    const purge = (now: string): SpaceCommand => ({ kind: 'PurgeSpace', spaceId: 's1', now });

    it('restores a space deleted within the last 7 days, up to exactly 7 days', () => {
      const restored = { type: 'SpaceRestored', data: { spaceId: 's1', organizationId: 'o1', title: 'Docs', restoredAt: at(7) } };
      expect(when([created, deleted], restore(at(7)))).toEqual([restored]);
      expect(when([created, deleted], restore(at(1)))).toEqual([{ ...restored, data: { ...restored.data, restoredAt: at(1) } }]);
    });

    it('refuses the restore once more than 7 days have passed: the space is gone (404)', () => {
      const refused = when([created, deleted], restore(at(7, 1)));
      expect(refused).toBeInstanceOf(DomainError);
      expect(refused).toMatchObject({ status: 404, message: expect.stringMatching(/more than 7 days/) });
    });

    it('purges only after the window, once, and never a restored space', () => {
      expect(when([created, deleted], purge(at(7)))).toEqual([]);
      expect(when([created, deleted], purge(at(7, 1)))).toEqual([{ type: 'SpacePurged', data: { spaceId: 's1', organizationId: 'o1', title: 'Docs', purgedAt: at(7, 1) } }]);
      const purged: SpaceEvent = { type: 'SpacePurged', data: { spaceId: 's1', organizationId: 'o1', title: 'Docs', purgedAt: at(8) } };
      expect(when([created, deleted, purged], purge(at(9)))).toEqual([]);
      expect(status(when([created, deleted, purged], restore(at(9))))).toBe(404);
      const restored: SpaceEvent = { type: 'SpaceRestored', data: { spaceId: 's1', organizationId: 'o1', title: 'Docs', restoredAt: at(1) } };
      expect(when([created, deleted, restored], purge(at(30)))).toEqual([]);
    });

    it('only admins delete and restore; deleting twice appends nothing', () => {
      expect(status(when([created], { kind: 'DeleteSpace', spaceId: 's1', by: editor, now: t0 }))).toBe(403);
      expect(when([created, deleted], { kind: 'DeleteSpace', spaceId: 's1', by: admin, now: t0 })).toEqual([]);
      expect(status(when([created, deleted], restore(at(1), editor)))).toBe(403);
    });
  });

  it('moves: admin on the space, create on the destination; leaving collections turns in-collection into private', () => {
    const move = (parent: string | null, targetRole: 'admin' | 'read' | null): SpaceCommand => ({ kind: 'MoveSpace', spaceId: 's1', parent, position: 'k', by: admin, targetRole, now: t0 });
    expect(when([created], move(null, null))).toEqual([{ type: 'SpaceMoved', data: { spaceId: 's1', organizationId: 'o1', parent: null, position: 'k', visibility: 'private', movedAt: t0 } }]);
    expect(status(when([created], move('c2', 'read')))).toBe(403);
    expect(when([created], move('c2', 'admin'))).toMatchObject([{ data: { parent: 'c2', visibility: 'in-collection' } }]);
    expect(status(when([created], { kind: 'MoveSpace', spaceId: 's1', parent: null, position: 'k', by: editor, targetRole: 'admin', now: t0 }))).toBe(403);
  });

  it('reparents only a space still in the deleted collection', () => {
    const reparent = (from: string): SpaceCommand => ({ kind: 'ReparentSpace', spaceId: 's1', from, parent: null, position: 'k', now: t0 });
    expect(when([created], reparent('c1'))).toMatchObject([{ type: 'SpaceMoved', data: { parent: null, visibility: 'private', reason: 'collection-deleted' } }]);
    expect(when([created], reparent('c9'))).toEqual([]);
  });

  it('transfers to another organization only for an admin of both, clearing the collection', () => {
    const transfer = (by: SpaceActor, targetOrganizationRole: 'admin' | 'edit' | null, organizationId = 'o2'): SpaceCommand => ({
      kind: 'TransferSpace',
      spaceId: 's1',
      organizationId,
      position: 'V',
      by,
      targetOrganizationRole,
      now: t0,
    });
    expect(when([created], transfer(admin, 'admin'))).toEqual([
      { type: 'SpaceTransferred', data: { spaceId: 's1', fromOrganizationId: 'o1', organizationId: 'o2', parent: null, position: 'V', visibility: 'private', transferredAt: t0 } },
    ]);
    expect(status(when([created], transfer(admin, 'edit')))).toBe(403);
    expect(status(when([created], transfer(admin, null)))).toBe(403);
    expect(status(when([created], transfer(editor, 'admin')))).toBe(403);
    expect(status(when([created], transfer(admin, 'admin', 'o1')))).toBe(400);
  });

  it('creates and revokes share links (admins only); an unknown key is 404', () => {
    const link: SpaceEvent = { type: 'ShareLinkCreated', data: { spaceId: 's1', organizationId: 'o1', shareKey: 'k1', createdBy: 'ada', createdAt: t0 } };
    expect(when([created], { kind: 'CreateShareLink', spaceId: 's1', shareKey: 'k1', by: admin, now: t0 })).toEqual([link]);
    expect(status(when([created], { kind: 'CreateShareLink', spaceId: 's1', shareKey: 'k1', by: editor, now: t0 }))).toBe(403);
    expect(when([created, link], { kind: 'RevokeShareLink', spaceId: 's1', shareKey: 'k1', by: admin, now: t0 })).toEqual([
      { type: 'ShareLinkRevoked', data: { spaceId: 's1', organizationId: 'o1', shareKey: 'k1', revokedAt: t0 } },
    ]);
    expect(status(when([created], { kind: 'RevokeShareLink', spaceId: 's1', shareKey: 'k1', by: admin, now: t0 }))).toBe(404);
  });
});

describe('space decider: team access', () => {
  const set = (teamId: string, role: 'edit' | 'read', by: SpaceActor = admin, teamOrganizationId: string | null = 'o1'): SpaceCommand => ({
    kind: 'SetSpaceTeamAccess',
    spaceId: 's1',
    teamId,
    role,
    teamOrganizationId,
    by,
  });
  const remove = (teamId: string, by: SpaceActor = admin): SpaceCommand => ({ kind: 'RemoveSpaceTeamAccess', spaceId: 's1', teamId, by });
  const granted: SpaceEvent = { type: 'SpaceTeamAccessSet', data: { spaceId: 's1', organizationId: 'o1', teamId: 't1', role: 'edit' } };
  const removed: SpaceEvent = { type: 'SpaceTeamAccessRemoved', data: { spaceId: 's1', organizationId: 'o1', teamId: 't1' } };

  it('given a space, when an admin grants a team of its organization a role, then SpaceTeamAccessSet', () => {
    expect(when([created], set('t1', 'edit'))).toEqual([granted]);
    expect(given([created, granted]).teamRoles).toEqual({ t1: 'edit' });
  });

  it('given the same role already granted, then nothing; a different role is set again', () => {
    expect(when([created, granted], set('t1', 'edit'))).toEqual([]);
    expect(when([created, granted], set('t1', 'read'))).toEqual([{ ...granted, data: { ...granted.data, role: 'read' } }]);
  });

  it('refuses non-admins (403), teams outside the organization or not live (400), deleted or missing spaces', () => {
    expect(status(when([created], set('t1', 'edit', editor)))).toBe(403);
    expect(status(when([created], set('t1', 'edit', admin, 'o2')))).toBe(400);
    expect(status(when([created], set('t1', 'edit', admin, null)))).toBe(400);
    expect(status(when([created, deleted], set('t1', 'edit')))).toBe(409);
    expect(status(when([], set('t1', 'edit')))).toBe(404);
    expect(status(when([created, granted], remove('t1', editor)))).toBe(403);
  });

  it('removes a team that has access; a team without access is 404', () => {
    expect(when([created, granted], remove('t1'))).toEqual([removed]);
    expect(given([created, granted, removed]).teamRoles).toEqual({});
    expect(status(when([created], remove('t1')))).toBe(404);
    expect(status(when([created, granted, removed], remove('t1')))).toBe(404);
    expect(status(when([created], remove('constructor')))).toBe(404);
  });
});

describe('collection decider', () => {
  const collectionCreated: CollectionEvent = {
    type: 'CollectionCreated',
    data: { collectionId: 'c1', organizationId: 'o1', title: 'Box', description: null, defaultLevel: null, parent: null, position: 'V', createdBy: 'ada', createdAt: t0 },
  };
  const decide = (events: CollectionEvent[], command: CollectionCommand) => collectionDecider.decide(command, events.reduce(collectionDecider.evolve, collectionDecider.initialState()));
  const by = { userId: 'ada', role: 'admin' as const };

  it('refuses moving a collection into itself or a descendant (400)', () => {
    const move = (parent: string, ancestorsOfParent: string[]): CollectionCommand => ({ kind: 'MoveCollection', collectionId: 'c1', parent, ancestorsOfParent, position: 'k', by, targetRole: 'admin', now: t0 });
    expect(status(decide([collectionCreated], move('c1', [])))).toBe(400);
    expect(status(decide([collectionCreated], move('c3', ['c3', 'c2', 'c1'])))).toBe(400);
    expect(decide([collectionCreated], move('c2', ['c2']))).toEqual([{ type: 'CollectionMoved', data: { collectionId: 'c1', organizationId: 'o1', parent: 'c2', position: 'k', movedAt: t0 } }]);
  });

  it('only admins update, move, transfer and delete; a deleted collection is gone', () => {
    const reader = { userId: 'rita', role: 'read' as const };
    expect(status(decide([collectionCreated], { kind: 'UpdateCollection', collectionId: 'c1', changes: { title: 'x' }, by: reader, now: t0 }))).toBe(403);
    expect(status(decide([collectionCreated], { kind: 'DeleteCollection', collectionId: 'c1', by: reader, now: t0 }))).toBe(403);
    const gone: CollectionEvent = { type: 'CollectionDeleted', data: { collectionId: 'c1', organizationId: 'o1', title: 'Box', deletedAt: t0 } };
    expect(decide([collectionCreated], { kind: 'DeleteCollection', collectionId: 'c1', by, now: t0 })).toEqual([gone]);
    expect(status(decide([collectionCreated, gone], { kind: 'UpdateCollection', collectionId: 'c1', changes: { title: 'x' }, by, now: t0 }))).toBe(404);
    expect(status(decide([collectionCreated], { kind: 'TransferCollection', collectionId: 'c1', organizationId: 'o2', position: 'V', by, targetOrganizationRole: 'read', now: t0 }))).toBe(403);
  });
});
