import { deciderSpec } from '#testing';
import {
  deliveryDecider,
  installationDecider,
  installationIdOf,
  installationRefusal,
  integrationDecider,
  integrationRefusal,
  siteViewStream,
  type DeliveryCommand,
  type InstallationCommand,
  type IntegrationCommand,
} from './integration.decider';
import type { DeliveryEvent, InstallationEvent, IntegrationDefinition, IntegrationStreamEvent } from './integration.events';
import { DomainError } from '#platform/errors';

const t0 = '2026-01-01T00:00:00.000Z';
const definition = {
  runtime: 'v1',
  title: 'Slack',
  description: '',
  summary: '',
  icon: null,
  previewImages: [],
  visibility: 'public',
  target: 'all',
  scopes: [],
  categories: [],
  blocks: [],
  contentSources: [],
  externalLinks: [],
  configurations: {},
  script: null,
  contentSecurityPolicy: null,
} satisfies IntegrationDefinition;
const publish = (ownerAdmin: boolean, organizationId = 'o1', secrets: string | null | undefined = undefined): IntegrationCommand => ({
  kind: 'PublishIntegration',
  name: 'slack',
  organizationId,
  definition,
  secrets,
  signingSecret: 'sealed-signing',
  ownerAdmin,
  by: 'ada',
  now: t0,
});
const published = (version: number, secrets: string | null = null): IntegrationStreamEvent => ({
  type: 'IntegrationPublished',
  data: {
    name: 'slack',
    organizationId: 'o1',
    version,
    definition,
    secrets,
    signingSecret: 'sealed-signing',
    publishedBy: 'ada',
    publishedAt: t0,
  },
});

describe('integration decider', () => {
  const spec = deciderSpec(integrationDecider);

  it('given nothing, when an owner admin publishes, then version 1', () => {
    spec
      .given([])
      .when(publish(true))
      .then([published(1)]);
  });

  it('given version 1 with secrets, when published again without secrets, then version 2 keeps them', () => {
    spec
      .given([published(1, 'sealed')])
      .when(publish(true))
      .then([published(2, 'sealed')]);
  });

  it('given nothing, when someone who is not an admin of the organization publishes, then 403', () => {
    spec.given([]).when(publish(false)).thenFails(403);
  });

  it('given an integration of one organization, when another organization publishes the name, then 409', () => {
    spec
      .given([published(1)])
      .when(publish(true, 'o2'))
      .thenFails(409);
  });

  it('given a deleted integration, when the tunnel is set, then 404', () => {
    spec
      .given([published(1), { type: 'IntegrationDeleted', data: { name: 'slack', organizationId: 'o1', deletedBy: 'ada', deletedAt: t0 } }])
      .when({ kind: 'SetDevMode', name: 'slack', tunnelUrl: 'https://t.example', all: false, ownerAdmin: true, by: 'ada', now: t0 })
      .thenFails(404);
  });

  it('given the tunnel set, when set again the same, then nothing', () => {
    spec
      .given([
        published(1),
        {
          type: 'IntegrationDevModeSet',
          data: { name: 'slack', organizationId: 'o1', tunnelUrl: 'https://t.example', all: false, setBy: 'ada', setAt: t0 },
        },
      ])
      .when({ kind: 'SetDevMode', name: 'slack', tunnelUrl: 'https://t.example', all: false, ownerAdmin: true, by: 'ada', now: t0 })
      .thenNothing();
  });
});

describe('integration changes refused whatever the revision (checked before If-Match)', () => {
  const stateAfter = (events: IntegrationStreamEvent[]) => events.reduce(integrationDecider.evolve, integrationDecider.initialState());
  const clearDev = (ownerAdmin: boolean): IntegrationCommand => ({ kind: 'ClearDevMode', name: 'slack', ownerAdmin, by: 'bob', now: t0 });
  const statusOf = (refusal: DomainError | null) => refusal?.status ?? null;

  it('given a published integration, when a member below admin changes it, then 403 (never a precondition)', () => {
    expect(statusOf(integrationRefusal(clearDev(false), stateAfter([published(1)])))).toBe(403);
  });

  it('given an integration of one organization, when another organization publishes the name, then 409', () => {
    expect(statusOf(integrationRefusal(publish(true, 'o2'), stateAfter([published(1)])))).toBe(409);
  });

  it('given no integration, when its owner admin changes its tunnel, then 404', () => {
    expect(statusOf(integrationRefusal(clearDev(true), stateAfter([])))).toBe(404);
  });

  it('given a published integration, when its owner admin changes it, then nothing refuses it', () => {
    expect(integrationRefusal(clearDev(true), stateAfter([published(1)]))).toBeNull();
    expect(integrationRefusal(publish(true), stateAfter([published(1)]))).toBeNull();
  });
});

describe('installation decider', () => {
  const spec = deciderSpec(installationDecider);
  const id = installationIdOf('slack', 'o2');
  const about = { installationId: id, integrationName: 'slack', organizationId: 'o2' };
  const installed: InstallationEvent = {
    type: 'IntegrationInstalled',
    data: { ...about, configuration: {}, spaceSelection: 'selected', siteSelection: 'selected', installedBy: 'otto', installedAt: t0 },
  };
  const onSite = (command: Partial<Extract<InstallationCommand, { kind: 'SetPlaceInstallation' }>> = {}): InstallationCommand => ({
    kind: 'SetPlaceInstallation',
    installationId: id,
    place: 'site',
    placeId: 'site1',
    organizationAdmin: true,
    by: 'otto',
    now: t0,
    ...command,
  });
  const siteSet = (
    status: 'active' | 'paused',
    configuration: Record<string, unknown>,
    previous: { status: 'active' | 'paused'; configuration: Record<string, unknown> } | null,
  ): InstallationEvent => ({
    type: 'IntegrationSiteInstallationSet',
    data: { ...about, siteId: 'site1', status, configuration, previous, setBy: 'otto', setAt: t0 },
  });

  it('derives one installation id per integration and organization', () => {
    expect(installationIdOf('slack', 'o2')).toBe(id);
    expect(installationIdOf('slack', 'o3')).not.toBe(id);
    expect(id).toMatch(/^[0-9A-Za-z]{20}$/);
  });

  it('given an installation, when installed again, then nothing', () => {
    spec
      .given([installed])
      .when({
        kind: 'Install',
        installationId: id,
        integrationName: 'slack',
        organizationId: 'o2',
        configuration: {},
        scopes: [],
        organizationAdmin: true,
        by: 'otto',
        now: t0,
      })
      .thenNothing();
  });

  it('given nothing, when a member below admin installs, then 403', () => {
    spec
      .given([])
      .when({
        kind: 'Install',
        installationId: id,
        integrationName: 'slack',
        organizationId: 'o2',
        configuration: {},
        scopes: [],
        organizationAdmin: false,
        by: 'otto',
        now: t0,
      })
      .thenFails(403);
  });

  it('given an installation, when paused, then an update naming the previous status and configuration', () => {
    spec
      .given([installed])
      .when({ kind: 'UpdateInstallation', installationId: id, status: 'paused', organizationAdmin: true, by: 'otto', now: t0 })
      .then([
        {
          type: 'IntegrationInstallationUpdated',
          data: {
            ...about,
            status: 'paused',
            configuration: {},
            spaceSelection: 'selected',
            siteSelection: 'selected',
            previous: { status: 'active', configuration: {} },
            updatedBy: 'otto',
            updatedAt: t0,
          },
        },
      ]);
  });

  it('given an installation, when every site is selected, then an update with the site selection', () => {
    spec
      .given([installed])
      .when({ kind: 'UpdateInstallation', installationId: id, siteSelection: 'all', organizationAdmin: true, by: 'otto', now: t0 })
      .then([
        {
          type: 'IntegrationInstallationUpdated',
          data: {
            ...about,
            status: 'active',
            configuration: {},
            spaceSelection: 'selected',
            siteSelection: 'all',
            previous: { status: 'active', configuration: {} },
            updatedBy: 'otto',
            updatedAt: t0,
          },
        },
      ]);
  });

  it('given an installation recorded before sites (no site selection), when sites are left as they are, then nothing', () => {
    const { siteSelection, ...older } = (installed as Extract<InstallationEvent, { type: 'IntegrationInstalled' }>).data;
    void siteSelection;
    spec
      .given([{ type: 'IntegrationInstalled', data: older }])
      .when({ kind: 'UpdateInstallation', installationId: id, siteSelection: 'selected', organizationAdmin: true, by: 'otto', now: t0 })
      .thenNothing();
  });

  describe('scopes: the integration holds those the organization accepted', () => {
    const withScopes = (scopes: string[]): InstallationEvent => ({
      type: 'IntegrationInstalled',
      data: {
        ...about,
        configuration: {},
        spaceSelection: 'selected',
        siteSelection: 'selected',
        scopes,
        installedBy: 'otto',
        installedAt: t0,
      },
    });
    const accept = (scopes: string[], requested: string[], organizationAdmin = true): InstallationCommand => ({
      kind: 'UpdateInstallation',
      installationId: id,
      acceptScopes: { scopes, requested },
      organizationAdmin,
      by: 'otto',
      now: t0,
    });
    const updated = (scopes: string[]): InstallationEvent => ({
      type: 'IntegrationInstallationUpdated',
      data: {
        ...about,
        status: 'active',
        configuration: {},
        spaceSelection: 'selected',
        siteSelection: 'selected',
        scopes,
        previous: { status: 'active', configuration: {} },
        updatedBy: 'otto',
        updatedAt: t0,
      },
    });

    it('given nothing, when installed, then the installation records the scopes the integration asks for, each once and sorted', () => {
      spec
        .given([])
        .when({
          kind: 'Install',
          installationId: id,
          integrationName: 'slack',
          organizationId: 'o2',
          configuration: {},
          scopes: ['site:views:read', 'space:content:read', 'site:views:read'],
          organizationAdmin: true,
          by: 'otto',
          now: t0,
        })
        .then([withScopes(['site:views:read', 'space:content:read'])]);
    });

    it('given an installation that accepted no scopes, when an admin accepts site:views:read the integration now asks for, then an update recording it', () => {
      spec
        .given([withScopes([])])
        .when(accept(['site:views:read'], ['site:views:read']))
        .then([updated(['site:views:read'])]);
    });

    it('given an installation that accepted no scopes, when its site selection changes (no scopes named), then the update keeps the scopes accepted: nothing new is granted', () => {
      spec
        .given([withScopes([])])
        .when({ kind: 'UpdateInstallation', installationId: id, siteSelection: 'all', organizationAdmin: true, by: 'otto', now: t0 })
        .then([
          {
            type: 'IntegrationInstallationUpdated',
            data: {
              ...about,
              status: 'active',
              configuration: {},
              spaceSelection: 'selected',
              siteSelection: 'all',
              scopes: [],
              previous: { status: 'active', configuration: {} },
              updatedBy: 'otto',
              updatedAt: t0,
            },
          },
        ]);
    });

    it('given an installation, when an admin accepts a scope the integration does not ask for, then 400 naming it', () => {
      spec
        .given([withScopes([])])
        .when(accept(['site:views:read'], []))
        .thenFails(400, /site:views:read/);
    });

    it('given an installation, when a member below admin accepts scopes, then 403', () => {
      spec
        .given([withScopes([])])
        .when(accept(['site:views:read'], ['site:views:read'], false))
        .thenFails(403);
    });

    it('given an installation that accepted site:views:read, when accepted again the same, then nothing', () => {
      spec
        .given([withScopes(['site:views:read'])])
        .when(accept(['site:views:read'], ['site:views:read']))
        .thenNothing();
    });

    it('given an installation that accepted site:views:read, when an admin accepts none, then an update withdrawing it', () => {
      spec
        .given([withScopes(['site:views:read'])])
        .when(accept([], ['site:views:read']))
        .then([updated([])]);
    });
  });

  it('given a space not installed, when removed, then 404', () => {
    spec
      .given([installed])
      .when({
        kind: 'RemovePlaceInstallation',
        installationId: id,
        place: 'space',
        placeId: 's1',
        organizationAdmin: true,
        by: 'otto',
        now: t0,
      })
      .thenFails(404);
  });

  it('given an installation, when installed on a site, then the site installation, active with an empty configuration', () => {
    spec
      .given([installed])
      .when(onSite())
      .then([siteSet('active', {}, null)]);
  });

  it('given a site installation, when its configuration changes, then the change naming the previous settings', () => {
    spec
      .given([installed, siteSet('active', {}, null)])
      .when(onSite({ configuration: { a: 1 } }))
      .then([siteSet('active', { a: 1 }, { status: 'active', configuration: {} })]);
  });

  it('given a site installation, when set again the same, then nothing', () => {
    spec
      .given([installed, siteSet('active', { a: 1 }, null)])
      .when(onSite({ configuration: { a: 1 } }))
      .thenNothing();
  });

  it('given a member below admin, when they install on a site, then 403', () => {
    spec
      .given([installed])
      .when(onSite({ organizationAdmin: false }))
      .thenFails(403);
  });

  it('given an installation on a space, when the same id is removed as a site, then 404 (places are kept apart)', () => {
    const onSpace: InstallationEvent = {
      type: 'IntegrationSpaceInstallationSet',
      data: { ...about, spaceId: 'site1', status: 'active', configuration: {}, previous: null, setBy: 'otto', setAt: t0 },
    };
    spec
      .given([installed, onSpace])
      .when({
        kind: 'RemovePlaceInstallation',
        installationId: id,
        place: 'site',
        placeId: 'site1',
        organizationAdmin: true,
        by: 'otto',
        now: t0,
      })
      .thenFails(404);
  });

  it('given a site installation, when removed, then the removal', () => {
    spec
      .given([installed, siteSet('active', {}, null)])
      .when({
        kind: 'RemovePlaceInstallation',
        installationId: id,
        place: 'site',
        placeId: 'site1',
        organizationAdmin: true,
        by: 'system',
        now: t0,
      })
      .then([{ type: 'IntegrationSiteInstallationRemoved', data: { ...about, siteId: 'site1', removedBy: 'system', removedAt: t0 } }]);
  });

  it('given an uninstalled installation, when installed on a site, then 404', () => {
    spec
      .given([installed, { type: 'IntegrationUninstalled', data: { ...about, uninstalledBy: 'otto', uninstalledAt: t0 } }])
      .when(onSite())
      .thenFails(404);
  });
});

describe('installation changes refused whatever the revision (checked before If-Match)', () => {
  const id = installationIdOf('slack', 'o2');
  const installed: InstallationEvent = {
    type: 'IntegrationInstalled',
    data: {
      installationId: id,
      integrationName: 'slack',
      organizationId: 'o2',
      configuration: {},
      spaceSelection: 'selected',
      siteSelection: 'selected',
      installedBy: 'otto',
      installedAt: t0,
    },
  };
  const stateAfter = (events: InstallationEvent[]) => events.reduce(installationDecider.evolve, installationDecider.initialState());
  const uninstall = (organizationAdmin: boolean): InstallationCommand => ({
    kind: 'Uninstall',
    installationId: id,
    organizationAdmin,
    by: 'otto',
    now: t0,
  });
  const statusOf = (refusal: DomainError | null) => refusal?.status ?? null;

  it('given an installation, when a member below admin uninstalls it, then 403', () => {
    expect(statusOf(installationRefusal(uninstall(false), stateAfter([installed])))).toBe(403);
  });

  it('given no installation, when an admin uninstalls it, then 404', () => {
    expect(statusOf(installationRefusal(uninstall(true), stateAfter([])))).toBe(404);
  });

  it('given an installation on no site, when an admin removes it from a site, then 404', () => {
    expect(
      statusOf(
        installationRefusal(
          {
            kind: 'RemovePlaceInstallation',
            installationId: id,
            place: 'site',
            placeId: 'site1',
            organizationAdmin: true,
            by: 'otto',
            now: t0,
          },
          stateAfter([installed]),
        ),
      ),
    ).toBe(404);
  });

  it('given an installation, when an admin changes it, then nothing refuses it', () => {
    expect(installationRefusal(uninstall(true), stateAfter([installed]))).toBeNull();
  });
});

describe('delivery decider', () => {
  const spec = deciderSpec(deliveryDecider);
  const about = { installationId: 'i1', integrationName: 'slack', organizationId: 'o1' };
  const claimed = (worker: string, until: string): DeliveryEvent => ({
    type: 'IntegrationDeliveriesClaimed',
    data: { ...about, worker, until },
  });
  const record = (worker: string, now = t0): DeliveryCommand => ({
    kind: 'RecordProcessed',
    ...about,
    eventId: 'e1',
    status: 'success',
    logs: [],
    worker,
    now,
  });
  const later = '2026-01-01T00:01:00.000Z';

  it('given an event recorded, when recorded again (a retried worker), then nothing', () => {
    spec
      .given([
        {
          type: 'IntegrationEventProcessed',
          data: { ...about, eventId: 'e1', status: 'success', logs: [], processedAt: t0, worker: 'w1' },
        },
      ])
      .when(record('w1'))
      .thenNothing();
  });

  it('given another worker’s live claim, when a worker claims, then 409 (one replica at a time)', () => {
    spec
      .given([claimed('w1', later)])
      .when({ kind: 'ClaimDeliveries', ...about, worker: 'w2', until: later, now: t0 })
      .thenFails(409);
  });

  it('given another worker’s live claim, when a worker records a delivery, then 409', () => {
    spec
      .given([claimed('w1', later)])
      .when(record('w2'))
      .thenFails(409);
  });

  it('given a claim that has passed, when another worker claims, then it takes over', () => {
    spec
      .given([claimed('w1', t0)])
      .when({ kind: 'ClaimDeliveries', ...about, worker: 'w2', until: later, now: later })
      .then([claimed('w2', later)]);
  });
});

describe('site views', () => {
  it('keeps one stream per site and hour', () => {
    expect(siteViewStream('site1', '2026-01-01T12:34:56.000Z')).toBe('integrationsiteviews-site1.2026010112');
    expect(siteViewStream('site1', '2026-01-01T13:00:00.000Z')).not.toBe(siteViewStream('site1', '2026-01-01T12:59:59.999Z'));
  });
});
