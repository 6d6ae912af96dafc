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
    const transfer = (by: SpaceActor, targetOrganizationRole: 'admin' | 'edit' | null, organizationId = 'o2', targetMember = true): SpaceCommand => ({
      kind: 'TransferSpace',
      spaceId: 's1',
      organizationId,
      position: 'V',
      by,
      targetMember,
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

  it('answers a transfer into an organization the caller is not in as if it did not exist (404), after the space’s own rule', () => {
    const outside: SpaceCommand = { kind: 'TransferSpace', spaceId: 's1', organizationId: 'o3', position: '', by: admin, targetMember: false, targetOrganizationRole: null, now: t0 };
    expect(when([created], outside)).toEqual(DomainError.notFound('no organization o3'));
    expect(status(when([created], { ...outside, by: editor }))).toBe(403);
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
    expect(given([created, granted]).teamRoles).toEqual(new Map([['t1', 'edit']]));
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
    expect(given([created, granted, removed]).teamRoles).toEqual(new Map());
    expect(status(when([created], remove('t1')))).toBe(404);
    expect(status(when([created, granted, removed], remove('t1')))).toBe(404);
    expect(status(when([created], remove('constructor')))).toBe(404);
  });
});

describe('space decider: ids named like Object.prototype members', () => {
  const prototypeIds = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
  const granted: SpaceEvent = { type: 'SpaceTeamAccessSet', data: { spaceId: 's1', organizationId: 'o1', teamId: 't1', role: 'edit' } };

  it.each(prototypeIds)('given no grant to team %s, when removing it, then 404 and no event', (teamId) => {
    expect(when([created, granted], { kind: 'RemoveSpaceTeamAccess', spaceId: 's1', teamId, by: admin })).toEqual(DomainError.notFound(`team ${teamId} has no access to space s1`));
  });

  it.each(prototypeIds)('given team %s is no live team of the organization, when granting it a role, then 400 and no event', (teamId) => {
    expect(status(when([created], { kind: 'SetSpaceTeamAccess', spaceId: 's1', teamId, role: 'edit', teamOrganizationId: null, by: admin }))).toBe(400);
  });

  it.each(prototypeIds)('given no share link %s, when revoking it, then 404 and no event', (shareKey) => {
    expect(status(when([created], { kind: 'RevokeShareLink', spaceId: 's1', shareKey, by: admin, now: t0 }))).toBe(404);
  });
});

describe('space decider: roles that are not roles', () => {
  const notRoles = [undefined, 'owner', 'superadmin', 'constructor'] as unknown as SpaceActor['role'][];

  it.each(notRoles)('given an actor whose role is %p, when they change, move, delete or create, then 403 and no event', (role) => {
    const by: SpaceActor = { userId: 'x', role };
    expect(status(when([created], { kind: 'UpdateSpace', spaceId: 's1', changes: { title: 'New' }, by, now: t0 }))).toBe(403);
    expect(status(when([created], { kind: 'DeleteSpace', spaceId: 's1', by, now: t0 }))).toBe(403);
    expect(status(when([created], { kind: 'MoveSpace', spaceId: 's1', parent: null, position: 'k', by, targetRole: 'admin', now: t0 }))).toBe(403);
    expect(status(when([created], { kind: 'MoveSpace', spaceId: 's1', parent: 'c2', position: 'k', by: admin, targetRole: role, now: t0 }))).toBe(403);
    const create: SpaceCommand = { kind: 'CreateSpace', spaceId: 's2', organizationId: 'o1', title: 'T', emoji: null, visibility: 'private', editMode: 'live', defaultLevel: null, parent: null, position: 'V', by, now: t0 };
    expect(status(when([], create))).toBe(403);
  });
});

describe('space decider: renumbering for a sibling’s move', () => {
  const reposition = (parent: string | null, from: string): SpaceCommand => ({ kind: 'RepositionSpace', spaceId: 's1', parent, from, position: 'W', now: t0 });

  it('given the space still at that key in that parent, then it takes the new key, in the same place', () => {
    expect(when([created], reposition('c1', 'V'))).toEqual([
      { type: 'SpaceMoved', data: { spaceId: 's1', organizationId: 'o1', parent: 'c1', position: 'W', visibility: 'in-collection', movedAt: t0, reason: 'reordered' } },
    ]);
  });

  it('given the space moved meanwhile (another key or parent) or never created, then no event', () => {
    expect(when([created], reposition('c1', 'U'))).toEqual([]);
    expect(when([created], reposition(null, 'V'))).toEqual([]);
    expect(when([], reposition('c1', 'V'))).toEqual([]);
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

  it('renumbers for a sibling’s move only a live collection still at that key in that parent', () => {
    const reposition = (parent: string | null, from: string): CollectionCommand => ({ kind: 'RepositionCollection', collectionId: 'c1', parent, from, position: 'W', now: t0 });
    expect(decide([collectionCreated], reposition(null, 'V'))).toEqual([
      { type: 'CollectionMoved', data: { collectionId: 'c1', organizationId: 'o1', parent: null, position: 'W', movedAt: t0, reason: 'reordered' } },
    ]);
    expect(decide([collectionCreated], reposition(null, 'U'))).toEqual([]);
    expect(decide([collectionCreated], reposition('c2', 'V'))).toEqual([]);
    expect(decide([], reposition(null, 'V'))).toEqual([]);
  });

  it.each([undefined, 'owner', 'constructor'])('treats a role %p that is not a role as none: no creating, no moving into a collection (403)', (role) => {
    const notRole = role as unknown as 'admin';
    expect(status(decide([], { kind: 'CreateCollection', collectionId: 'c9', organizationId: 'o1', title: 'T', parent: null, position: 'V', by: { userId: 'x', role: notRole }, now: t0 }))).toBe(403);
    expect(status(decide([collectionCreated], { kind: 'MoveCollection', collectionId: 'c1', parent: 'c2', ancestorsOfParent: ['c2'], position: 'k', by, targetRole: notRole, now: t0 }))).toBe(403);
  });

  it('only admins update, move, transfer and delete; a deleted collection is gone', () => {
    const reader = { userId: 'rita', role: 'read' as const };
    expect(status(decide([collectionCreated], { kind: 'UpdateCollection', collectionId: 'c1', changes: { title: 'x' }, by: reader, now: t0 }))).toBe(403);
    expect(status(decide([collectionCreated], { kind: 'DeleteCollection', collectionId: 'c1', by: reader, now: t0 }))).toBe(403);
    const gone: CollectionEvent = { type: 'CollectionDeleted', data: { collectionId: 'c1', organizationId: 'o1', title: 'Box', deletedAt: t0 } };
    expect(decide([collectionCreated], { kind: 'DeleteCollection', collectionId: 'c1', by, now: t0 })).toEqual([gone]);
    expect(status(decide([collectionCreated, gone], { kind: 'UpdateCollection', collectionId: 'c1', changes: { title: 'x' }, by, now: t0 }))).toBe(404);
    expect(status(decide([collectionCreated], { kind: 'TransferCollection', collectionId: 'c1', organizationId: 'o2', position: 'V', by, targetMember: true, targetOrganizationRole: 'read', now: t0 }))).toBe(403);
    expect(decide([collectionCreated], { kind: 'TransferCollection', collectionId: 'c1', organizationId: 'o3', position: '', by, targetMember: false, targetOrganizationRole: null, now: t0 })).toEqual(
      DomainError.notFound('no organization o3'),
    );
  });
});
