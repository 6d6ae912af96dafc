import { deriveInstallationEvent, deriveSiteView, deriveSpaceEvents, integrationEventId } from './integration.derivation';
import { connectSources, scriptFetch } from './integration.runtime';

const t0 = '2026-01-01T00:00:00.000Z';

describe('integration events derived from domain events', () => {
  it('gives the same id to the same source event and installation, and another to another installation', () => {
    expect(integrationEventId('source-1', 'i1')).toBe(integrationEventId('source-1', 'i1'));
    expect(integrationEventId('source-1', 'i2')).not.toBe(integrationEventId('source-1', 'i1'));
    expect(integrationEventId('source-1', 'i1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('turns every new main revision, merges included, into space_content_updated', () => {
    const derived = deriveSpaceEvents(
      {
        type: 'ContentRevisionCreated',
        data: {
          spaceId: 's1',
          organizationId: 'o1',
          revisionId: 'r2',
          parents: ['r1', 'c1'],
          revisionType: 'merge',
          tree: 't',
          createdAt: t0,
          createdBy: 'ada',
          pages: { created: [], updated: [], deleted: [], counts: { created: 0, updated: 0, deleted: 0 } },
          source: { kind: 'merge', changeRequest: 'cr1' },
          mergedFrom: 'cr1',
        },
      },
      null,
    );
    expect(derived).toEqual([{ type: 'space_content_updated', members: { spaceId: 's1', revisionId: 'r2', updatedBy: ['ada'] } }]);
  });

  it('turns a new version of a spec the space uses into space_content_updated naming the head revision and the dependency', () => {
    const derived = deriveSpaceEvents(
      {
        type: 'ContentDependencyUpdated',
        data: {
          spaceId: 's1',
          organizationId: 'o1',
          revisionId: 'r2',
          dependency: { kind: 'openapi', spec: 'pets' },
          versionId: 'v2',
          versionCreatedAt: t0,
          updatedAt: t0,
        },
      },
      null,
    );
    expect(derived).toEqual([
      {
        type: 'space_content_updated',
        members: { spaceId: 's1', revisionId: 'r2', updatedBy: [], dependency: { kind: 'openapi', spec: 'pets', versionId: 'v2' } },
      },
    ]);
  });

  it('names nobody in updatedBy of a revision the service made (no author)', () => {
    const derived = deriveSpaceEvents(
      {
        type: 'ContentRevisionCreated',
        data: {
          spaceId: 's1',
          organizationId: 'o1',
          revisionId: 'r2',
          parents: ['r1'],
          revisionType: 'edits',
          tree: 't',
          createdAt: t0,
          createdBy: null,
          pages: { created: [], updated: [], deleted: [], counts: { created: 0, updated: 0, deleted: 0 } },
          source: { kind: 'batch' },
        },
      },
      null,
    );
    expect(derived).toEqual([{ type: 'space_content_updated', members: { spaceId: 's1', revisionId: 'r2', updatedBy: [] } }]);
  });

  it('turns a visibility change into space_visibility_updated with the previous visibility, and a same visibility into nothing', () => {
    const updated = (visibility: 'public' | 'private') => ({
      type: 'SpaceUpdated' as const,
      data: { spaceId: 's1', organizationId: 'o1', changes: { visibility }, updatedAt: t0 },
    });
    expect(deriveSpaceEvents(updated('public'), 'private')).toEqual([
      { type: 'space_visibility_updated', members: { spaceId: 's1', previousVisibility: 'private', visibility: 'public' } },
    ]);
    expect(deriveSpaceEvents(updated('public'), 'public')).toEqual([]);
  });

  it('tells no visibility change whose previous visibility is unknown (the platform’s event has it)', () => {
    expect(
      deriveSpaceEvents(
        { type: 'SpaceUpdated', data: { spaceId: 's1', organizationId: 'o1', changes: { visibility: 'public' }, updatedAt: t0 } },
        null,
      ),
    ).toEqual([]);
  });

  it('turns a comment on the space’s own content into comment_created without changeRequestId, and a reply into comment_reply_created naming commentReplyId', () => {
    const about = { commentId: 'c1', spaceId: 's1', organizationId: 'o1', changeRequestId: null };
    expect(
      deriveSpaceEvents(
        {
          type: 'CommentPosted',
          data: {
            ...about,
            target: { pageId: 'p1', node: null, revision: 'r1' },
            body: { blob: 'h', markdown: 'hi' },
            postedBy: 'ada',
            postedAt: t0,
          },
        } as never,
        null,
      ),
    ).toEqual([{ type: 'comment_created', members: { spaceId: 's1', commentId: 'c1', pageId: 'p1' } }]);
    expect(
      deriveSpaceEvents(
        {
          type: 'CommentReplyPosted',
          data: { ...about, changeRequestId: 'cr1', replyId: 'rp1', body: { blob: 'h', markdown: 'hi' }, postedBy: 'ada', postedAt: t0 },
        } as never,
        null,
      ),
    ).toEqual([
      { type: 'comment_reply_created', members: { spaceId: 's1', changeRequestId: 'cr1', commentId: 'c1', commentReplyId: 'rp1' } },
    ]);
  });

  it('turns an installation update into installation_setup with the previous status and configuration', () => {
    expect(
      deriveInstallationEvent({
        type: 'IntegrationInstallationUpdated',
        data: {
          installationId: 'i1',
          integrationName: 'slack',
          organizationId: 'o1',
          status: 'paused',
          configuration: { a: 1 },
          spaceSelection: 'all',
          previous: { status: 'active', configuration: {} },
          updatedBy: 'ada',
          updatedAt: t0,
        },
      }),
    ).toEqual({ type: 'installation_setup', members: { status: 'paused', previous: { status: 'active', configuration: {} } } });
  });
});

describe('integration events of site installations and site views', () => {
  const about = { installationId: 'i1', integrationName: 'slack', organizationId: 'o1' };

  it('turns installing on a site into site_installation_setup with the site and its status, and no previous settings (it had none)', () => {
    expect(
      deriveInstallationEvent({
        type: 'IntegrationSiteInstallationSet',
        data: { ...about, siteId: 'site1', status: 'active', configuration: { a: 1 }, previous: null, setBy: 'ada', setAt: t0 },
      }),
    ).toEqual({
      type: 'site_installation_setup',
      members: { siteId: 'site1', status: 'active' },
    });
  });

  it('turns removing a site installation into site_installation_deleted with the site and the configuration it had as previous', () => {
    expect(
      deriveInstallationEvent(
        { type: 'IntegrationSiteInstallationRemoved', data: { ...about, siteId: 'site1', removedBy: 'system', removedAt: t0 } },
        { configuration: { a: 1 } },
      ),
    ).toEqual({
      type: 'site_installation_deleted',
      members: { siteId: 'site1', previous: { configuration: { a: 1 } } },
    });
  });

  it('turns a first installation into installation_setup without previous, and an uninstallation into installation_deleted with the configuration it had', () => {
    expect(
      deriveInstallationEvent({
        type: 'IntegrationInstalled',
        data: { ...about, configuration: {}, spaceSelection: 'selected', installedBy: 'ada', installedAt: t0 },
      }),
    ).toEqual({ type: 'installation_setup', members: { status: 'active' } });
    expect(
      deriveInstallationEvent(
        { type: 'IntegrationUninstalled', data: { ...about, uninstalledBy: 'ada', uninstalledAt: t0 } },
        { configuration: { channel: '#docs' } },
      ),
    ).toEqual({
      type: 'installation_deleted',
      members: { previous: { configuration: { channel: '#docs' } } },
    });
  });

  it('still turns space installations into space_installation_setup and space_installation_deleted', () => {
    expect(
      deriveInstallationEvent({
        type: 'IntegrationSpaceInstallationSet',
        data: {
          ...about,
          spaceId: 's1',
          status: 'paused',
          configuration: {},
          previous: { status: 'active', configuration: {} },
          setBy: 'ada',
          setAt: t0,
        },
      }),
    ).toEqual({
      type: 'space_installation_setup',
      members: { spaceId: 's1', status: 'paused', previous: { status: 'active', configuration: {} } },
    });
    expect(
      deriveInstallationEvent({
        type: 'IntegrationSpaceInstallationRemoved',
        data: { ...about, spaceId: 's1', removedBy: 'ada', removedAt: t0 },
      }),
    ).toEqual({ type: 'space_installation_deleted', members: { spaceId: 's1', previous: {} } });
  });

  it('turns a recorded view into site_view with the page, the URL and the visitor’s claims', () => {
    const view = {
      organizationId: 'o1',
      siteId: 'site1',
      spaceId: 's1',
      pageId: 'p1',
      url: 'https://docs.example.com/guide',
      visitor: { claims: { plan: 'pro' } },
      viewedAt: t0,
    };
    expect(deriveSiteView({ type: 'IntegrationSiteViewRecorded', data: view })).toEqual({
      type: 'site_view',
      members: {
        siteId: 'site1',
        spaceId: 's1',
        pageId: 'p1',
        url: 'https://docs.example.com/guide',
        visitor: { claims: { plan: 'pro' } },
      },
    });
  });
});

describe('the content security policy of scripts’ fetches', () => {
  it('reads connect-src, else default-src, else no restriction', () => {
    expect(connectSources("default-src 'self'; connect-src https://api.example.com *.example.org")).toEqual([
      'https://api.example.com',
      '*.example.org',
    ]);
    expect(connectSources("default-src 'none'")).toEqual(["'none'"]);
    expect(connectSources(null)).toBeNull();
  });
});

describe('scripts’ fetch', () => {
  it('refuses an origin the policy does not list, before any request', async () => {
    await expect(
      scriptFetch('connect-src https://api.example.com', false)('https://elsewhere.example/x', { method: 'GET', headers: {} }),
    ).rejects.toThrow(/content security policy/);
  });

  it('refuses private addresses even when the policy allows every origin', async () => {
    await expect(scriptFetch('connect-src *', false)('http://127.0.0.1:9/x', { method: 'GET', headers: {} })).rejects.toThrow(
      /refused|not allowed|private|loopback/i,
    );
  });
});
