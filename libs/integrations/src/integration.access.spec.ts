import type { Caller } from '#platform/http/auth';
import { MemoryReadStore } from '#read-store/memory/memory-read-store';
import type { Doc } from '#read-store/read-store.port';
import type { IntegrationOrganizations } from './integrations.needs';
import { IntegrationAccess } from './integration.access';
import { INSTALLATIONS, INTEGRATIONS, type InstallationDoc, type IntegrationDoc } from './integration.projections';

/**
 * Who sees and changes what of integrations: private ones to their owner's members only, the
 * owner's admins over every installation, each organization's admins over their own.
 */
const t0 = '2026-01-01T00:00:00.000Z';
const user = (userId: string): Caller => ({
  kind: 'user',
  userId,
  tokenId: 't',
  user: { id: userId, displayName: userId, email: `${userId}@example.com`, photoURL: null },
});
const admin: Caller = { kind: 'admin' };

/** Roles by organization then user; anyone not listed is outside. */
type Roles = Record<string, Record<string, string>>;
const roles: Roles = {
  owner: { ada: 'admin', eve: 'edit' },
  o2: { bob: 'admin', eve: 'admin' },
  o3: { bob: 'read' },
};

function integration(name: string, visibility: 'public' | 'private' | 'unlisted', extra: Partial<IntegrationDoc> = {}): IntegrationDoc {
  return {
    _id: name,
    organizationId: 'owner',
    version: 1,
    definition: { visibility } as IntegrationDoc['definition'],
    hasSecrets: false,
    dev: null,
    createdAt: t0,
    updatedAt: t0,
    streamRevision: 0,
    ...extra,
  };
}

function installation(id: string, organizationId: string, extra: Partial<InstallationDoc> = {}): InstallationDoc {
  return {
    _id: id,
    integrationName: 'pub',
    organizationId,
    status: 'active',
    configuration: {},
    spaceSelection: 'selected',
    siteSelection: 'selected',
    scopes: [],
    spaces: 0,
    createdAt: t0,
    updatedAt: t0,
    streamRevision: 0,
    ...extra,
  };
}

async function accessWith(integrations: IntegrationDoc[], installations: InstallationDoc[] = []) {
  const reads = new MemoryReadStore();
  await reads.transaction(async (tx) => {
    for (const doc of integrations) await tx.collection<Doc>(INTEGRATIONS).put(doc);
    for (const doc of installations) await tx.collection<Doc>(INSTALLATIONS).put(doc);
  });
  const organizations: IntegrationOrganizations = {
    roleOf: async (organizationId, userId) => {
      const role = roles[organizationId]?.[userId];
      return role ? { member: true, role } : { member: false, role: null };
    },
    memberOrganizations: async (userId) => Object.keys(roles).filter((organizationId) => roles[organizationId][userId] !== undefined),
    present: async () => null,
  };
  return new IntegrationAccess(reads, organizations);
}

describe('integration access: which integrations a caller sees', () => {
  it('given no such integration, then 404 naming it', async () => {
    const access = await accessWith([]);
    await expect(access.visible('nope', user('ada'))).rejects.toMatchObject({ status: 404, message: 'no integration nope' });
  });

  it('given a deleted integration, then 404 naming it, even to its owner’s admin', async () => {
    const access = await accessWith([integration('gone', 'public', { deleted: true })]);
    await expect(access.visible('gone', user('ada'))).rejects.toMatchObject({ status: 404, message: 'no integration gone' });
  });

  it('given a private integration, when someone outside its owner reads it, then 404', async () => {
    const access = await accessWith([integration('secret', 'private')]);
    await expect(access.visible('secret', user('bob'))).rejects.toMatchObject({ status: 404, message: 'no integration secret' });
  });

  it('given a private integration, when the service administrator reads it, then 404: they are no member', async () => {
    const access = await accessWith([integration('secret', 'private')]);
    await expect(access.visible('secret', admin)).rejects.toMatchObject({ status: 404 });
  });

  it('given a private integration, when a member of its owner reads it, then it is visible with their role', async () => {
    const access = await accessWith([integration('secret', 'private')]);
    await expect(access.visible('secret', user('eve'))).resolves.toMatchObject({ member: true, ownerAdmin: false, ownerRole: 'edit' });
  });

  it('given a public integration, when someone outside its owner reads it, then it is visible, with no role in the owner', async () => {
    const access = await accessWith([integration('pub', 'public')]);
    const seen = await access.visible('pub', user('bob'));
    expect(seen).toEqual({ integration: expect.objectContaining({ _id: 'pub' }), member: false, ownerAdmin: false, ownerRole: null });
  });

  it('given a public integration, when the service administrator reads it, then it is visible, with no role in the owner', async () => {
    const access = await accessWith([integration('pub', 'public')]);
    await expect(access.visible('pub', admin)).resolves.toMatchObject({ member: false, ownerAdmin: false, ownerRole: null });
  });

  it('given an unlisted integration, when an admin of its owner reads it, then they are its owner admin', async () => {
    const access = await accessWith([integration('hidden', 'unlisted')]);
    await expect(access.visible('hidden', user('ada'))).resolves.toMatchObject({ member: true, ownerAdmin: true, ownerRole: 'admin' });
  });

  it('given an owner the organizations context no longer knows, then its integration is seen as by someone outside', async () => {
    const reads = new MemoryReadStore();
    await reads.transaction(async (tx) => tx.collection<Doc>(INTEGRATIONS).put(integration('pub', 'public')));
    const access = new IntegrationAccess(reads, {
      roleOf: async () => null,
      memberOrganizations: async () => [],
      present: async () => null,
    });
    await expect(access.visible('pub', user('ada'))).resolves.toMatchObject({ member: false, ownerAdmin: false, ownerRole: null });
  });
});

describe('integration access: changes for the owner’s admins only', () => {
  it('given someone outside the owner, when they change a public integration, then 404 (what is inside the owner is not shown)', async () => {
    const access = await accessWith([integration('pub', 'public')]);
    await expect(access.requireOwnerAdmin('pub', user('bob'))).rejects.toMatchObject({
      status: 404,
      message: 'no such resource of integration pub',
    });
  });

  it('given a member of the owner below admin, when they change it, then 403 saying who may', async () => {
    const access = await accessWith([integration('pub', 'public')]);
    await expect(access.requireOwnerAdmin('pub', user('eve'))).rejects.toMatchObject({
      status: 403,
      message: 'only admins of the organization that publishes integration pub may do this',
    });
  });

  it('given an admin of the owner, when they change it, then the integration is theirs to change', async () => {
    const access = await accessWith([integration('pub', 'public')]);
    await expect(access.requireOwnerAdmin('pub', user('ada'))).resolves.toMatchObject({ _id: 'pub' });
  });
});

describe('integration access: which installations a caller sees', () => {
  const installations = [installation('i2', 'o2'), installation('i3', 'o3'), installation('gone', 'o2', { uninstalled: true })];

  it('given an admin of the owner, then every installation of the integration', async () => {
    const access = await accessWith([integration('pub', 'public')], installations);
    expect((await access.installationScope('pub', user('ada'))).filter).toEqual({ integrationName: 'pub' });
  });

  it('given an admin of the owner, when they read an installation of another organization, then they see it', async () => {
    const access = await accessWith([integration('pub', 'public')], installations);
    await expect(access.visibleInstallation('pub', 'i3', user('ada'))).resolves.toMatchObject({ installation: { _id: 'i3' } });
  });

  it('given someone outside the owner, then the installations of the organizations they administer only', async () => {
    const access = await accessWith([integration('pub', 'public')], installations);
    await expect(access.installationScope('pub', user('bob'))).resolves.toMatchObject({
      filter: { integrationName: 'pub', organizationId: { $in: ['o2'] } },
    });
  });

  it('given a member of the owner below admin, then the installations of the organizations they administer only', async () => {
    const access = await accessWith([integration('pub', 'public')], installations);
    await expect(access.installationScope('pub', user('eve'))).resolves.toMatchObject({
      filter: { integrationName: 'pub', organizationId: { $in: ['o2'] } },
    });
  });

  it('given the service administrator, then none', async () => {
    const access = await accessWith([integration('pub', 'public')], installations);
    await expect(access.installationScope('pub', admin)).resolves.toMatchObject({
      filter: { integrationName: 'pub', organizationId: { $in: [] } },
    });
  });

  it('given an admin of the installing organization, when they read its installation, then they see it', async () => {
    const access = await accessWith([integration('pub', 'public')], installations);
    await expect(access.visibleInstallation('pub', 'i2', user('bob'))).resolves.toMatchObject({
      installation: { _id: 'i2' },
      integration: { _id: 'pub' },
    });
  });

  it('given a reader of another installing organization, when they read its installation, then 404 naming it', async () => {
    const access = await accessWith([integration('pub', 'public')], installations);
    await expect(access.visibleInstallation('pub', 'i3', user('bob'))).rejects.toMatchObject({
      status: 404,
      message: 'no installation i3 of integration pub',
    });
  });

  it('given an uninstalled installation, when even the owner’s admin reads it, then 404', async () => {
    const access = await accessWith([integration('pub', 'public')], installations);
    await expect(access.visibleInstallation('pub', 'gone', user('ada'))).rejects.toMatchObject({ status: 404 });
  });
});

describe('integration access: administering an organization', () => {
  it('given an admin of the organization, then true', async () => {
    await expect((await accessWith([])).isAdmin('o2', user('bob'))).resolves.toBe(true);
  });

  it('given a member below admin, then false', async () => {
    await expect((await accessWith([])).isAdmin('o3', user('bob'))).resolves.toBe(false);
  });

  it('given someone outside the organization, then 404 naming it', async () => {
    await expect((await accessWith([])).isAdmin('o3', user('ada'))).rejects.toMatchObject({ status: 404, message: 'no organization o3' });
  });

  it('given a caller that is not a user, then false', async () => {
    await expect((await accessWith([])).isAdmin('o2', admin)).resolves.toBe(false);
  });
});
