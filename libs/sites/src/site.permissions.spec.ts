import { sitePermissions, siteRole } from './site.permissions';

describe('site role', () => {
  it('is the organization role while the site inherits it', () => {
    expect(siteRole('edit', 'inherit')).toBe('edit');
  });

  it('is raised by a higher default level, never lowered by a lower one', () => {
    expect(siteRole('read', 'admin')).toBe('admin');
    expect(siteRole('admin', 'read')).toBe('admin');
  });

  it('gives guests and people outside no role, whatever the default level', () => {
    expect(siteRole(null, 'admin')).toBeNull();
  });

  it('ignores a default level that is no role (a corrupt value grants nothing)', () => {
    expect(siteRole('read', '__proto__' as never)).toBe('read');
  });
});

describe('site permissions', () => {
  it('let a site admin do everything, installing integrations only as an organization admin', () => {
    expect(sitePermissions({ member: true, organizationRole: 'read', siteRole: 'admin' })).toEqual({
      view: true,
      access: true,
      edit: true,
      create: true,
      admin: true,
      installIntegration: false,
      viewAdaptiveSchema: true,
      editAdaptiveSchema: true,
    });
  });

  it('let an editor view and edit content, not manage the site', () => {
    expect(sitePermissions({ member: true, organizationRole: 'edit', siteRole: 'edit' })).toEqual({
      view: true,
      access: true,
      edit: true,
      create: false,
      admin: false,
      installIntegration: false,
      viewAdaptiveSchema: true,
      editAdaptiveSchema: false,
    });
  });

  it('let a reader of the published site from outside the organization only view it', () => {
    expect(sitePermissions({ member: false, organizationRole: null, siteRole: null })).toEqual({
      view: true,
      access: false,
      edit: false,
      create: false,
      admin: false,
      installIntegration: false,
      viewAdaptiveSchema: false,
      editAdaptiveSchema: false,
    });
  });
});
