import { deciderSpec } from '#testing';
import { collectionDecider, type CollectionCommand } from './collection.decider';
import {
  accessManagementRefusal,
  spaceDecider,
  type AccessManagementCommand,
  type SpaceActor,
  type SpaceCommand,
  type SpaceState,
} from './space.decider';
import type { CollectionEvent, SpaceEvent } from './space.events';

const t0 = '2026-01-01T00:00:00.000Z';
const at = (days: number, ms = 0) => new Date(Date.parse(t0) + days * 86_400_000 + ms).toISOString();
const spec = deciderSpec(spaceDecider);
const admin: SpaceActor = { userId: 'ada', role: 'admin' };
const editor: SpaceActor = { userId: 'eve', role: 'edit' };
const reader: SpaceActor = { userId: 'rita', role: 'read' };

const created: SpaceEvent = {
  type: 'SpaceCreated',
  data: {
    spaceId: 's1',
    organizationId: 'o1',
    title: 'Docs',
    emoji: null,
    visibility: 'in-collection',
    editMode: 'live',
    defaultLevel: null,
    parent: 'c1',
    position: 'V',
    createdBy: 'ada',
    createdAt: t0,
  },
};
const deleted: SpaceEvent = { type: 'SpaceDeleted', data: { spaceId: 's1', organizationId: 'o1', title: 'Docs', deletedAt: t0 } };

describe('space decider', () => {
  describe('CreateSpace', () => {
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

    it('given nothing, when an admin creates a space in a collection, then SpaceCreated', () => {
      spec
        .given([])
        .when(create(admin, 'c1', 'in-collection'))
        .then([created]);
    });

    it('given nothing, when a member below role create creates a space, then 403', () => {
      spec
        .given([])
        .when(create(editor, null, 'private'))
        .thenFails(403);
    });

    it('given nothing, when creating an in-collection space outside any collection, then 400', () => {
      spec
        .given([])
        .when(create(admin, null, 'in-collection'))
        .thenFails(400);
    });

    it('given a space, when creating it again, then 409', () => {
      spec
        .given([created])
        .when(create(admin, 'c1', 'in-collection'))
        .thenFails(409);
    });
  });

  describe('UpdateSpace', () => {
    const update = (changes: Extract<SpaceCommand, { kind: 'UpdateSpace' }>['changes'], by: SpaceActor): SpaceCommand => ({
      kind: 'UpdateSpace',
      spaceId: 's1',
      changes,
      by,
      now: t0,
    });

    it('given a space, when an editor changes its title, then SpaceUpdated', () => {
      spec
        .given([created])
        .when(update({ title: 'New' }, editor))
        .then([{ type: 'SpaceUpdated', data: { spaceId: 's1', organizationId: 'o1', changes: { title: 'New' }, updatedAt: t0 } }]);
    });

    it('given a space, when an editor changes its edit mode, then 403 (admins only)', () => {
      spec
        .given([created])
        .when(update({ editMode: 'locked' }, editor))
        .thenFails(403);
    });

    it('given a space, when a reader changes its title, then 403', () => {
      spec
        .given([created])
        .when(update({ title: 'New' }, reader))
        .thenFails(403);
    });

    it('given a space, when nothing would change, then no event', () => {
      spec
        .given([created])
        .when(update({ title: 'Docs', editMode: 'live' }, admin))
        .thenNothing();
    });

    it('given a deleted space, when changing it, then 409', () => {
      spec
        .given([created, deleted])
        .when(update({ title: 'x' }, admin))
        .thenFails(409);
    });

    const updated = (changes: object): SpaceEvent => ({
      type: 'SpaceUpdated',
      data: { spaceId: 's1', organizationId: 'o1', changes, updatedAt: t0 },
    });
    const icon = 'https://cdn.example.test/icon.png';

    it('given a space with an emoji, when an editor sets an icon, then the icon replaces the emoji', () => {
      spec
        .given([created, updated({ emoji: '📘' })])
        .when(update({ icon }, editor))
        .then([updated({ icon, emoji: null })]);
    });

    it('given a space with an icon, when an editor sets an emoji, then the emoji replaces the icon', () => {
      spec
        .given([created, updated({ icon, emoji: null })])
        .when(update({ emoji: '📘' }, editor))
        .then([updated({ emoji: '📘', icon: null })]);
    });

    it('given a space, when a request sets both an emoji and an icon, then 400', () => {
      spec
        .given([created])
        .when(update({ emoji: '📘', icon }, admin))
        .thenFails(400, 'emoji and icon cannot both be set: a space shows one or the other');
    });

    it('given a space, when an editor sets its language or merge rules, then 403 (admins only)', () => {
      spec
        .given([created])
        .when(update({ language: 'fr' }, editor))
        .thenFails(403);
      spec
        .given([created])
        .when(update({ mergeRules: { type: 'none' } }, editor))
        .thenFails(403);
    });

    it('given a space, when an admin sets its language, merge rules and default level inherit, then SpaceUpdated with them', () => {
      const mergeRules = { type: 'rules' as const, rules: [{ rule: 'require_change_request_subject' as const }] };
      spec
        .given([created])
        .when(update({ language: 'fr', mergeRules, defaultLevel: 'inherit' }, admin))
        .then([updated({ language: 'fr', mergeRules, defaultLevel: 'inherit' })]);
    });

    it('given a space inheriting its merge rules (the default), when an admin sets the same rules again, then no event', () => {
      spec
        .given([created])
        .when(update({ mergeRules: { type: 'inherit' } }, admin))
        .thenNothing();
    });
  });

  describe('the 7-day window', () => {
    const restore = (now: string, by = admin): SpaceCommand => ({ kind: 'RestoreSpace', spaceId: 's1', by, now });
    const purge = (now: string): SpaceCommand => ({ kind: 'PurgeSpace', spaceId: 's1', now });
    const restoredAt = (when: string): SpaceEvent => ({
      type: 'SpaceRestored',
      data: { spaceId: 's1', organizationId: 'o1', title: 'Docs', restoredAt: when },
    });
    const purged: SpaceEvent = { type: 'SpacePurged', data: { spaceId: 's1', organizationId: 'o1', title: 'Docs', purgedAt: at(8) } };

    it('given a space deleted exactly 7 days ago, when restored, then SpaceRestored', () => {
      spec
        .given([created, deleted])
        .when(restore(at(7)))
        .then([restoredAt(at(7))]);
    });

    it('given a space deleted a day ago, when restored, then SpaceRestored', () => {
      spec
        .given([created, deleted])
        .when(restore(at(1)))
        .then([restoredAt(at(1))]);
    });

    it('given a space deleted more than 7 days ago, when restored, then the space is gone (404)', () => {
      spec
        .given([created, deleted])
        .when(restore(at(7, 1)))
        .thenFails(404, /more than 7 days/);
    });

    it('given a space deleted exactly 7 days ago, when purged, then nothing (still restorable)', () => {
      spec
        .given([created, deleted])
        .when(purge(at(7)))
        .thenNothing();
    });

    it('given a space deleted more than 7 days ago, when purged, then SpacePurged', () => {
      spec
        .given([created, deleted])
        .when(purge(at(7, 1)))
        .then([{ type: 'SpacePurged', data: { spaceId: 's1', organizationId: 'o1', title: 'Docs', purgedAt: at(7, 1) } }]);
    });

    it('given a purged space, when purged again, then nothing', () => {
      spec
        .given([created, deleted, purged])
        .when(purge(at(9)))
        .thenNothing();
    });

    it('given a purged space, when restored, then 404', () => {
      spec
        .given([created, deleted, purged])
        .when(restore(at(9)))
        .thenFails(404);
    });

    it('given a restored space, when purged, then nothing', () => {
      spec
        .given([created, deleted, restoredAt(at(1))])
        .when(purge(at(30)))
        .thenNothing();
    });

    it('given a space, when an editor deletes it, then 403 (admins only)', () => {
      spec.given([created]).when({ kind: 'DeleteSpace', spaceId: 's1', by: editor, now: t0 }).thenFails(403);
    });

    it('given a deleted space, when deleted again, then nothing', () => {
      spec.given([created, deleted]).when({ kind: 'DeleteSpace', spaceId: 's1', by: admin, now: t0 }).thenNothing();
    });

    it('given a deleted space, when an editor restores it, then 403 (admins only)', () => {
      spec
        .given([created, deleted])
        .when(restore(at(1), editor))
        .thenFails(403);
    });
  });

  describe('MoveSpace', () => {
    const move = (parent: string | null, targetRole: 'admin' | 'read' | null, by = admin): SpaceCommand => ({
      kind: 'MoveSpace',
      spaceId: 's1',
      parent,
      position: 'k',
      by,
      targetRole,
      now: t0,
    });

    it('given a space in a collection, when an admin moves it to the top level, then it leaves the collection and turns private', () => {
      spec
        .given([created])
        .when(move(null, null))
        .then([
          {
            type: 'SpaceMoved',
            data: { spaceId: 's1', organizationId: 'o1', parent: null, position: 'k', visibility: 'private', movedAt: t0 },
          },
        ]);
    });

    it('given a space, when moved into a collection where the mover cannot create, then 403', () => {
      spec.given([created]).when(move('c2', 'read')).thenFails(403);
    });

    it('given a space, when moved into a collection where the mover is admin, then it stays in-collection there', () => {
      spec
        .given([created])
        .when(move('c2', 'admin'))
        .thenMatches([{ data: { parent: 'c2', visibility: 'in-collection' } }]);
    });

    it('given a space, when an editor of it moves it, then 403 (admin on the space needed)', () => {
      spec
        .given([created])
        .when(move(null, 'admin', editor))
        .thenFails(403);
    });
  });

  describe('ReparentSpace (its collection was deleted)', () => {
    const reparent = (from: string): SpaceCommand => ({ kind: 'ReparentSpace', spaceId: 's1', from, parent: null, position: 'k', now: t0 });

    it('given a space still in the deleted collection, then it moves out, private', () => {
      spec
        .given([created])
        .when(reparent('c1'))
        .thenMatches([{ type: 'SpaceMoved', data: { parent: null, visibility: 'private', reason: 'collection-deleted' } }]);
    });

    it('given a space in another collection, then no event', () => {
      spec.given([created]).when(reparent('c9')).thenNothing();
    });
  });

  describe('TransferSpace', () => {
    const transfer = (
      by: SpaceActor,
      targetOrganizationRole: 'admin' | 'edit' | null,
      organizationId = 'o2',
      targetMember = true,
    ): SpaceCommand => ({
      kind: 'TransferSpace',
      spaceId: 's1',
      organizationId,
      position: 'V',
      by,
      targetMember,
      targetOrganizationRole,
      now: t0,
    });
    const outside: SpaceCommand = {
      kind: 'TransferSpace',
      spaceId: 's1',
      organizationId: 'o3',
      position: '',
      by: admin,
      targetMember: false,
      targetOrganizationRole: null,
      now: t0,
    };

    it('given a space, when an admin of both organizations transfers it, then it moves there, out of its collection', () => {
      spec
        .given([created])
        .when(transfer(admin, 'admin'))
        .then([
          {
            type: 'SpaceTransferred',
            data: {
              spaceId: 's1',
              fromOrganizationId: 'o1',
              organizationId: 'o2',
              parent: null,
              position: 'V',
              visibility: 'private',
              transferredAt: t0,
            },
          },
        ]);
    });

    it('given a space, when the target role is below admin, then 403', () => {
      spec.given([created]).when(transfer(admin, 'edit')).thenFails(403);
    });

    it('given a space, when the caller has no role in the target, then 403', () => {
      spec.given([created]).when(transfer(admin, null)).thenFails(403);
    });

    it('given a space, when an editor of it transfers it, then 403', () => {
      spec.given([created]).when(transfer(editor, 'admin')).thenFails(403);
    });

    it('given a space, when transferred to its own organization, then 400', () => {
      spec
        .given([created])
        .when(transfer(admin, 'admin', 'o1'))
        .thenFails(400);
    });

    it('given a space, when transferred into an organization the caller is not in, then 404 as if it did not exist', () => {
      spec.given([created]).when(outside).thenFails(404, 'no organization o3');
    });

    it('given a space, when an editor transfers it into an organization they are not in, then the space’s own rule first (403)', () => {
      spec
        .given([created])
        .when({ ...outside, by: editor })
        .thenFails(403);
    });
  });

  describe('share links', () => {
    const link: SpaceEvent = {
      type: 'ShareLinkCreated',
      data: { spaceId: 's1', organizationId: 'o1', shareKey: 'k1', createdBy: 'ada', createdAt: t0 },
    };

    it('given a space, when an admin creates a share link, then ShareLinkCreated', () => {
      spec.given([created]).when({ kind: 'CreateShareLink', spaceId: 's1', shareKey: 'k1', by: admin, now: t0 }).then([link]);
    });

    it('given a space, when an editor creates a share link, then 403', () => {
      spec.given([created]).when({ kind: 'CreateShareLink', spaceId: 's1', shareKey: 'k1', by: editor, now: t0 }).thenFails(403);
    });

    it('given a share link, when an admin revokes it, then ShareLinkRevoked', () => {
      spec
        .given([created, link])
        .when({ kind: 'RevokeShareLink', spaceId: 's1', shareKey: 'k1', by: admin, now: t0 })
        .then([{ type: 'ShareLinkRevoked', data: { spaceId: 's1', organizationId: 'o1', shareKey: 'k1', revokedAt: t0 } }]);
    });

    it('given no share link, when revoking its key, then 404', () => {
      spec.given([created]).when({ kind: 'RevokeShareLink', spaceId: 's1', shareKey: 'k1', by: admin, now: t0 }).thenFails(404);
    });
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
    spec.given([created]).when(set('t1', 'edit')).then([granted]);
  });

  it('given a grant, then the state holds the team’s role', () => {
    spec.given([created, granted]).thenState((state) => expect(state.teamRoles).toEqual(new Map([['t1', 'edit']])));
  });

  it('given the same role already granted, when granted again, then nothing', () => {
    spec.given([created, granted]).when(set('t1', 'edit')).thenNothing();
  });

  it('given a role granted, when a different role is granted, then it is set again', () => {
    spec
      .given([created, granted])
      .when(set('t1', 'read'))
      .then([{ ...granted, data: { ...granted.data, role: 'read' } }]);
  });

  it('given a space, when a non-admin grants a role, then 403', () => {
    spec
      .given([created])
      .when(set('t1', 'edit', editor))
      .thenFails(403);
  });

  it('given a space, when granting a team of another organization, then 400', () => {
    spec
      .given([created])
      .when(set('t1', 'edit', admin, 'o2'))
      .thenFails(400);
  });

  it('given a space, when granting a team that is not live, then 400', () => {
    spec
      .given([created])
      .when(set('t1', 'edit', admin, null))
      .thenFails(400);
  });

  it('given a deleted space, when granting a role, then 409', () => {
    spec.given([created, deleted]).when(set('t1', 'edit')).thenFails(409);
  });

  it('given no space, when granting a role, then 404', () => {
    spec.given([]).when(set('t1', 'edit')).thenFails(404);
  });

  it('given a grant, when a non-admin removes it, then 403', () => {
    spec.given([created, granted]).when(remove('t1', editor)).thenFails(403);
  });

  it('given a grant, when an admin removes it, then SpaceTeamAccessRemoved', () => {
    spec.given([created, granted]).when(remove('t1')).then([removed]);
  });

  it('given a removed grant, then the state holds no role', () => {
    spec.given([created, granted, removed]).thenState((state) => expect(state.teamRoles).toEqual(new Map()));
  });

  it('given a team without access, when removing it, then 404', () => {
    spec.given([created]).when(remove('t1')).thenFails(404);
  });

  it('given a removed grant, when removed again, then 404', () => {
    spec.given([created, granted, removed]).when(remove('t1')).thenFails(404);
  });

  it('given a space, when removing a team named constructor, then 404', () => {
    spec.given([created]).when(remove('constructor')).thenFails(404);
  });
});

/**
 * accessManagementRefusal: the refusal checked before If-Match is compared on share links and team
 * access, so that a 412 never answers someone who may not make the change. It must be the refusal
 * decide itself gives.
 */
describe('space decider: who is refused before If-Match is compared', () => {
  const fold = (events: SpaceEvent[]): SpaceState => events.reduce(spaceDecider.evolve, spaceDecider.initialState());
  const revoke = (by: SpaceActor): AccessManagementCommand => ({ kind: 'RevokeShareLink', spaceId: 's1', shareKey: 'k1', by, now: t0 });
  const grant = (by: SpaceActor): AccessManagementCommand => ({
    kind: 'SetSpaceTeamAccess',
    spaceId: 's1',
    teamId: 't1',
    role: 'read',
    teamOrganizationId: 'o1',
    by,
  });
  const removeGrant = (by: SpaceActor): AccessManagementCommand => ({ kind: 'RemoveSpaceTeamAccess', spaceId: 's1', teamId: 't1', by });

  it.each([
    ['revoking a share link', revoke],
    ['granting a team access', grant],
    ['removing a team’s access', removeGrant],
  ])('given a space, when a member below admin tries %s, then 403, as decide answers', (_label, command) => {
    expect(accessManagementRefusal(command(editor), fold([created]))?.status).toBe(403);
    expect(accessManagementRefusal(command(reader), fold([created]))?.status).toBe(403);
    spec.given([created]).when(command(editor)).thenFails(403);
  });

  it('given no space, when an admin revokes a share link, then 404, as decide answers', () => {
    expect(accessManagementRefusal(revoke(admin), fold([]))?.status).toBe(404);
    spec.given([]).when(revoke(admin)).thenFails(404);
  });

  it('given a space, when its admin manages access, then no refusal (whether the link or grant exists is for decide)', () => {
    expect(accessManagementRefusal(revoke(admin), fold([created]))).toBeNull();
    expect(accessManagementRefusal(removeGrant(admin), fold([created]))).toBeNull();
  });
});

describe('space decider: ids named like Object.prototype members', () => {
  const prototypeIds = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
  const granted: SpaceEvent = { type: 'SpaceTeamAccessSet', data: { spaceId: 's1', organizationId: 'o1', teamId: 't1', role: 'edit' } };

  it.each(prototypeIds)('given no grant to team %s, when removing it, then 404 and no event', (teamId) => {
    spec
      .given([created, granted])
      .when({ kind: 'RemoveSpaceTeamAccess', spaceId: 's1', teamId, by: admin })
      .thenFails(404, `team ${teamId} has no access to space s1`);
  });

  it.each(prototypeIds)('given team %s is no live team of the organization, when granting it a role, then 400 and no event', (teamId) => {
    spec
      .given([created])
      .when({ kind: 'SetSpaceTeamAccess', spaceId: 's1', teamId, role: 'edit', teamOrganizationId: null, by: admin })
      .thenFails(400);
  });

  it.each(prototypeIds)('given no share link %s, when revoking it, then 404 and no event', (shareKey) => {
    spec.given([created]).when({ kind: 'RevokeShareLink', spaceId: 's1', shareKey, by: admin, now: t0 }).thenFails(404);
  });
});

describe('space decider: roles that are not roles', () => {
  const notRoles = [undefined, 'owner', 'superadmin', 'constructor'] as unknown as SpaceActor['role'][];
  const actor = (role: SpaceActor['role']): SpaceActor => ({ userId: 'x', role });

  it.each(notRoles)('given an actor whose role is %p, when they change a space, then 403 and no event', (role) => {
    spec
      .given([created])
      .when({ kind: 'UpdateSpace', spaceId: 's1', changes: { title: 'New' }, by: actor(role), now: t0 })
      .thenFails(403);
  });

  it.each(notRoles)('given an actor whose role is %p, when they delete a space, then 403 and no event', (role) => {
    spec
      .given([created])
      .when({ kind: 'DeleteSpace', spaceId: 's1', by: actor(role), now: t0 })
      .thenFails(403);
  });

  it.each(notRoles)('given an actor whose role is %p, when they move a space, then 403 and no event', (role) => {
    spec
      .given([created])
      .when({ kind: 'MoveSpace', spaceId: 's1', parent: null, position: 'k', by: actor(role), targetRole: 'admin', now: t0 })
      .thenFails(403);
  });

  it.each(notRoles)('given a target role %p, when an admin moves a space there, then 403 and no event', (role) => {
    spec
      .given([created])
      .when({ kind: 'MoveSpace', spaceId: 's1', parent: 'c2', position: 'k', by: admin, targetRole: role, now: t0 })
      .thenFails(403);
  });

  it.each(notRoles)('given an actor whose role is %p, when they create a space, then 403 and no event', (role) => {
    spec
      .given([])
      .when({
        kind: 'CreateSpace',
        spaceId: 's2',
        organizationId: 'o1',
        title: 'T',
        emoji: null,
        visibility: 'private',
        editMode: 'live',
        defaultLevel: null,
        parent: null,
        position: 'V',
        by: actor(role),
        now: t0,
      })
      .thenFails(403);
  });
});

describe('space decider: renumbering for a sibling’s move', () => {
  const reposition = (parent: string | null, from: string): SpaceCommand => ({
    kind: 'RepositionSpace',
    spaceId: 's1',
    parent,
    from,
    position: 'W',
    now: t0,
  });

  it('given the space still at that key in that parent, then it takes the new key, in the same place', () => {
    spec
      .given([created])
      .when(reposition('c1', 'V'))
      .then([
        {
          type: 'SpaceMoved',
          data: {
            spaceId: 's1',
            organizationId: 'o1',
            parent: 'c1',
            position: 'W',
            visibility: 'in-collection',
            movedAt: t0,
            reason: 'reordered',
          },
        },
      ]);
  });

  it('given the space moved meanwhile to another key, then no event', () => {
    spec.given([created]).when(reposition('c1', 'U')).thenNothing();
  });

  it('given the space moved meanwhile to another parent, then no event', () => {
    spec.given([created]).when(reposition(null, 'V')).thenNothing();
  });

  it('given no space, then no event', () => {
    spec.given([]).when(reposition('c1', 'V')).thenNothing();
  });
});

describe('collection decider', () => {
  const collections = deciderSpec(collectionDecider);
  const collectionCreated: CollectionEvent = {
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
      createdAt: t0,
    },
  };
  const gone: CollectionEvent = {
    type: 'CollectionDeleted',
    data: { collectionId: 'c1', organizationId: 'o1', title: 'Box', deletedAt: t0 },
  };
  const by = { userId: 'ada', role: 'admin' as const };
  const reader = { userId: 'rita', role: 'read' as const };

  describe('MoveCollection', () => {
    const move = (parent: string, ancestorsOfParent: string[]): CollectionCommand => ({
      kind: 'MoveCollection',
      collectionId: 'c1',
      parent,
      ancestorsOfParent,
      position: 'k',
      by,
      targetRole: 'admin',
      now: t0,
    });

    it('given a collection, when moved into itself, then 400', () => {
      collections.given([collectionCreated]).when(move('c1', [])).thenFails(400);
    });

    it('given a collection, when moved into a descendant, then 400', () => {
      collections
        .given([collectionCreated])
        .when(move('c3', ['c3', 'c2', 'c1']))
        .thenFails(400);
    });

    it('given a collection, when moved into another collection, then CollectionMoved', () => {
      collections
        .given([collectionCreated])
        .when(move('c2', ['c2']))
        .then([{ type: 'CollectionMoved', data: { collectionId: 'c1', organizationId: 'o1', parent: 'c2', position: 'k', movedAt: t0 } }]);
    });
  });

  describe('RepositionCollection (a sibling’s move)', () => {
    const reposition = (parent: string | null, from: string): CollectionCommand => ({
      kind: 'RepositionCollection',
      collectionId: 'c1',
      parent,
      from,
      position: 'W',
      now: t0,
    });

    it('given a live collection still at that key in that parent, then it takes the new key', () => {
      collections
        .given([collectionCreated])
        .when(reposition(null, 'V'))
        .then([
          {
            type: 'CollectionMoved',
            data: { collectionId: 'c1', organizationId: 'o1', parent: null, position: 'W', movedAt: t0, reason: 'reordered' },
          },
        ]);
    });

    it('given a collection at another key, then no event', () => {
      collections.given([collectionCreated]).when(reposition(null, 'U')).thenNothing();
    });

    it('given a collection in another parent, then no event', () => {
      collections.given([collectionCreated]).when(reposition('c2', 'V')).thenNothing();
    });

    it('given no collection, then no event', () => {
      collections.given([]).when(reposition(null, 'V')).thenNothing();
    });
  });

  describe.each([undefined, 'owner', 'constructor'])('given a role %p that is not a role, it counts as none', (role) => {
    const notRole = role as unknown as 'admin';

    it('when creating a collection, then 403', () => {
      collections
        .given([])
        .when({
          kind: 'CreateCollection',
          collectionId: 'c9',
          organizationId: 'o1',
          title: 'T',
          parent: null,
          position: 'V',
          by: { userId: 'x', role: notRole },
          now: t0,
        })
        .thenFails(403);
    });

    it('when moving a collection into a collection with that role, then 403', () => {
      collections
        .given([collectionCreated])
        .when({
          kind: 'MoveCollection',
          collectionId: 'c1',
          parent: 'c2',
          ancestorsOfParent: ['c2'],
          position: 'k',
          by,
          targetRole: notRole,
          now: t0,
        })
        .thenFails(403);
    });
  });

  describe('admins only', () => {
    it('given a collection, when a reader updates it, then 403', () => {
      collections
        .given([collectionCreated])
        .when({ kind: 'UpdateCollection', collectionId: 'c1', changes: { title: 'x' }, by: reader, now: t0 })
        .thenFails(403);
    });

    it('given a collection, when a reader deletes it, then 403', () => {
      collections.given([collectionCreated]).when({ kind: 'DeleteCollection', collectionId: 'c1', by: reader, now: t0 }).thenFails(403);
    });

    it('given a collection, when an admin deletes it, then CollectionDeleted', () => {
      collections.given([collectionCreated]).when({ kind: 'DeleteCollection', collectionId: 'c1', by, now: t0 }).then([gone]);
    });

    it('given a deleted collection, when updated, then 404: it is gone', () => {
      collections
        .given([collectionCreated, gone])
        .when({ kind: 'UpdateCollection', collectionId: 'c1', changes: { title: 'x' }, by, now: t0 })
        .thenFails(404);
    });

    it('given a collection, when transferred to an organization where the caller is only a reader, then 403', () => {
      collections
        .given([collectionCreated])
        .when({
          kind: 'TransferCollection',
          collectionId: 'c1',
          organizationId: 'o2',
          position: 'V',
          by,
          targetMember: true,
          targetOrganizationRole: 'read',
          now: t0,
        })
        .thenFails(403);
    });

    it('given a collection, when transferred to an organization the caller is not in, then 404 as if it did not exist', () => {
      collections
        .given([collectionCreated])
        .when({
          kind: 'TransferCollection',
          collectionId: 'c1',
          organizationId: 'o3',
          position: '',
          by,
          targetMember: false,
          targetOrganizationRole: null,
          now: t0,
        })
        .thenFails(404, 'no organization o3');
    });
  });
});
