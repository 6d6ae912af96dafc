import { deciderSpec } from '#testing';
import {
  deliveryDecider,
  deliveryStream,
  installationDecider,
  installationIdOf,
  installationStream,
  integrationDecider,
  integrationStream,
  type DeliveryCommand,
  type InstallationCommand,
  type IntegrationCommand,
} from './integration.decider';
import type { DeliveryEvent, InstallationEvent, IntegrationDefinition, IntegrationStreamEvent } from './integration.events';

/** The integration, installation and delivery deciders: the wording of each refusal, and the rules the other spec leaves open. */
const t0 = '2026-01-01T00:00:00.000Z';
const t1 = '2026-01-01T00:01:00.000Z';
const definition = { title: 'Slack', visibility: 'public' } as IntegrationDefinition;

describe('integration streams', () => {
  it('names the integration, installation and delivery streams by their keys', () => {
    expect(integrationStream('slack')).toBe('integration-slack');
    expect(installationStream('i1')).toBe('integrationinstallation-i1');
    expect(deliveryStream('i1')).toBe('integrationdelivery-i1');
  });
});

describe('integration decider: rules', () => {
  const spec = deciderSpec(integrationDecider);
  const by = { name: 'slack', ownerAdmin: true, by: 'ada', now: t1 };
  const publish = (changes: Partial<Extract<IntegrationCommand, { kind: 'PublishIntegration' }>> = {}): IntegrationCommand => ({
    kind: 'PublishIntegration',
    ...by,
    organizationId: 'o1',
    definition,
    secrets: undefined,
    signingSecret: 'new-signing',
    ...changes,
  });
  const published = (version: number, secrets: string | null = null): IntegrationStreamEvent => ({
    type: 'IntegrationPublished',
    data: {
      name: 'slack',
      organizationId: 'o1',
      version,
      definition,
      secrets,
      signingSecret: 'first-signing',
      publishedBy: 'ada',
      publishedAt: t0,
    },
  });
  const deleted: IntegrationStreamEvent = {
    type: 'IntegrationDeleted',
    data: { name: 'slack', organizationId: 'o1', deletedBy: 'ada', deletedAt: t0 },
  };
  const devSet = (tunnelUrl: string, all: boolean): IntegrationStreamEvent => ({
    type: 'IntegrationDevModeSet',
    data: { name: 'slack', organizationId: 'o1', tunnelUrl, all, setBy: 'ada', setAt: t0 },
  });
  const setDev = (tunnelUrl: string, all: boolean): IntegrationCommand => ({ kind: 'SetDevMode', ...by, tunnelUrl, all });

  it('given nothing, when published, then version 1 with the command’s signing secret and no secrets', () => {
    spec
      .given([])
      .when(publish())
      .thenMatches([
        {
          type: 'IntegrationPublished',
          data: { version: 1, secrets: null, signingSecret: 'new-signing', publishedBy: 'ada', publishedAt: t1 },
        },
      ]);
  });

  it('given a published integration, when published again, then the signing secret stays the first one', () => {
    spec
      .given([published(1)])
      .when(publish())
      .thenMatches([{ data: { version: 2, signingSecret: 'first-signing' } }]);
  });

  it('given secrets, when published with other secrets, then the new secrets are recorded', () => {
    spec
      .given([published(1, 'old')])
      .when(publish({ secrets: 'new' }))
      .thenMatches([{ data: { secrets: 'new' } }]);
  });

  it('given secrets, when published with secrets null, then the secrets are dropped', () => {
    spec
      .given([published(1, 'old')])
      .when(publish({ secrets: null }))
      .thenMatches([{ data: { secrets: null } }]);
  });

  it('given a deleted integration, when its organization publishes it again, then it is live again at the next version', () => {
    spec
      .given([published(1), deleted])
      .when(publish())
      .thenMatches([{ type: 'IntegrationPublished', data: { version: 2 } }]);
    spec
      .given([published(1), deleted, published(2)])
      .when(setDev('https://t.example', false))
      .thenMatches([{ type: 'IntegrationDevModeSet' }]);
  });

  it('given a deleted integration, when another organization publishes the name, then it is theirs', () => {
    spec
      .given([published(1), deleted])
      .when(publish({ organizationId: 'o2' }))
      .thenMatches([{ type: 'IntegrationPublished', data: { organizationId: 'o2' } }]);
  });

  it('given a published integration, when its owner admin deletes it, then it is deleted', () => {
    spec
      .given([published(1)])
      .when({ kind: 'DeleteIntegration', ...by })
      .then([{ type: 'IntegrationDeleted', data: { name: 'slack', organizationId: 'o1', deletedBy: 'ada', deletedAt: t1 } }]);
  });

  it('given a published integration, when its tunnel is set, then development mode is set', () => {
    spec
      .given([published(1)])
      .when(setDev('https://t.example', true))
      .then([
        {
          type: 'IntegrationDevModeSet',
          data: { name: 'slack', organizationId: 'o1', tunnelUrl: 'https://t.example', all: true, setBy: 'ada', setAt: t1 },
        },
      ]);
  });

  it('given a tunnel, when set to another address, then development mode is set again', () => {
    spec
      .given([published(1), devSet('https://t.example', false)])
      .when(setDev('https://u.example', false))
      .thenMatches([{ type: 'IntegrationDevModeSet', data: { tunnelUrl: 'https://u.example' } }]);
  });

  it('given a tunnel for the owner only, when set for everyone, then development mode is set again', () => {
    spec
      .given([published(1), devSet('https://t.example', false)])
      .when(setDev('https://t.example', true))
      .thenMatches([{ type: 'IntegrationDevModeSet', data: { all: true } }]);
  });

  it('given a tunnel, when cleared, then development mode is cleared', () => {
    spec
      .given([published(1), devSet('https://t.example', false)])
      .when({ kind: 'ClearDevMode', ...by })
      .then([{ type: 'IntegrationDevModeCleared', data: { name: 'slack', organizationId: 'o1', clearedBy: 'ada', clearedAt: t1 } }]);
  });

  it('given no tunnel, when cleared, then nothing', () => {
    spec
      .given([published(1)])
      .when({ kind: 'ClearDevMode', ...by })
      .thenNothing();
  });

  it('given a tunnel cleared, when cleared again, then nothing', () => {
    const cleared: IntegrationStreamEvent = {
      type: 'IntegrationDevModeCleared',
      data: { name: 'slack', organizationId: 'o1', clearedBy: 'ada', clearedAt: t0 },
    };
    spec
      .given([published(1), devSet('https://t.example', false), cleared])
      .when({ kind: 'ClearDevMode', ...by })
      .thenNothing();
  });

  it('given a tunnel, when the integration is deleted and published again, then there is no tunnel left to clear', () => {
    spec
      .given([published(1), devSet('https://t.example', false), deleted, published(2)])
      .when({ kind: 'ClearDevMode', ...by })
      .thenNothing();
  });

  it('refuses with wording naming the integration', () => {
    spec
      .given([published(1)])
      .when(publish({ ownerAdmin: false }))
      .thenFails(403, 'only admins of the organization that publishes integration slack may change it');
    spec
      .given([published(1)])
      .when(publish({ organizationId: 'o2' }))
      .thenFails(409, 'integration slack is published by another organization');
    spec
      .given([])
      .when({ kind: 'DeleteIntegration', ...by })
      .thenFails(404, 'no integration slack');
  });
});

describe('installation decider: rules', () => {
  const spec = deciderSpec(installationDecider);
  const id = installationIdOf('slack', 'o2');
  const about = { installationId: id, integrationName: 'slack', organizationId: 'o2' };
  const by = { installationId: id, organizationAdmin: true, by: 'otto', now: t1 };
  const installed: InstallationEvent = {
    type: 'IntegrationInstalled',
    data: {
      ...about,
      configuration: { a: 1 },
      spaceSelection: 'selected',
      siteSelection: 'selected',
      installedBy: 'otto',
      installedAt: t0,
    },
  };
  const update = (changes: Partial<Extract<InstallationCommand, { kind: 'UpdateInstallation' }>>): InstallationCommand => ({
    kind: 'UpdateInstallation',
    ...by,
    ...changes,
  });
  const onSpace = (changes: Partial<Extract<InstallationCommand, { kind: 'SetPlaceInstallation' }>> = {}): InstallationCommand => ({
    kind: 'SetPlaceInstallation',
    ...by,
    place: 'space',
    placeId: 's1',
    ...changes,
  });
  const spaceSet = (status: 'active' | 'paused', configuration: Record<string, unknown>): InstallationEvent => ({
    type: 'IntegrationSpaceInstallationSet',
    data: { ...about, spaceId: 's1', status, configuration, previous: null, setBy: 'otto', setAt: t0 },
  });
  const uninstalled: InstallationEvent = { type: 'IntegrationUninstalled', data: { ...about, uninstalledBy: 'otto', uninstalledAt: t0 } };

  it('given nothing, when installed, then the installation, its configuration as given, every selection "selected"', () => {
    spec
      .given([])
      .when({ kind: 'Install', ...by, integrationName: 'slack', organizationId: 'o2', configuration: { a: 1 }, scopes: [] })
      .then([
        {
          type: 'IntegrationInstalled',
          data: {
            ...about,
            configuration: { a: 1 },
            spaceSelection: 'selected',
            siteSelection: 'selected',
            scopes: [],
            installedBy: 'otto',
            installedAt: t1,
          },
        },
      ]);
  });

  it('given an uninstalled installation, when installed again, then it is installed anew', () => {
    spec
      .given([installed, uninstalled])
      .when({ kind: 'Install', ...by, integrationName: 'slack', organizationId: 'o2', configuration: {}, scopes: [] })
      .thenMatches([{ type: 'IntegrationInstalled' }]);
  });

  it('given an installation, when uninstalled, then the uninstallation', () => {
    spec
      .given([installed])
      .when({ kind: 'Uninstall', ...by })
      .then([{ type: 'IntegrationUninstalled', data: { ...about, uninstalledBy: 'otto', uninstalledAt: t1 } }]);
  });

  it('given an installation, when its configuration changes, then an update naming the previous configuration', () => {
    spec
      .given([installed])
      .when(update({ configuration: { a: 2 } }))
      .thenMatches([
        {
          type: 'IntegrationInstallationUpdated',
          data: { configuration: { a: 2 }, previous: { status: 'active', configuration: { a: 1 } } },
        },
      ]);
  });

  it('given an installation, when every space is selected, then an update with the space selection', () => {
    spec
      .given([installed])
      .when(update({ spaceSelection: 'all' }))
      .thenMatches([{ type: 'IntegrationInstallationUpdated', data: { spaceSelection: 'all', siteSelection: 'selected' } }]);
  });

  it('given an installation, when updated with what it has, then nothing', () => {
    spec
      .given([installed])
      .when(update({ status: 'active', configuration: { a: 1 }, spaceSelection: 'selected', siteSelection: 'selected' }))
      .thenNothing();
  });

  it('given a paused installation, when updated naming nothing, then nothing: it stays paused', () => {
    const paused: InstallationEvent = {
      type: 'IntegrationInstallationUpdated',
      data: {
        ...about,
        status: 'paused',
        configuration: { a: 1 },
        spaceSelection: 'all',
        previous: { status: 'active', configuration: { a: 1 } },
        updatedBy: 'otto',
        updatedAt: t0,
      },
    };
    spec.given([installed, paused]).when(update({})).thenNothing();
    spec
      .given([installed, paused])
      .when(update({ siteSelection: 'all' }))
      .thenMatches([{ data: { status: 'paused', spaceSelection: 'all', siteSelection: 'all', previous: { status: 'paused' } } }]);
  });

  it('given an installation recorded before scopes were kept, when updated, then the update names no scopes', () => {
    spec
      .given([installed])
      .when(update({ status: 'paused' }))
      .thenState((state) => expect(state.scopes).toBeNull());
    spec
      .given([installed])
      .when(update({ status: 'paused' }))
      .then([
        {
          type: 'IntegrationInstallationUpdated',
          data: {
            ...about,
            status: 'paused',
            configuration: { a: 1 },
            spaceSelection: 'selected',
            siteSelection: 'selected',
            previous: { status: 'active', configuration: { a: 1 } },
            updatedBy: 'otto',
            updatedAt: t1,
          },
        },
      ]);
  });

  it('given an installation, when an admin accepts scopes that differ only in order or repeats, then nothing', () => {
    const withScopes: InstallationEvent = {
      type: 'IntegrationInstalled',
      data: { ...installed.data, scopes: ['a:read', 'b:read'] },
    } as InstallationEvent;
    spec
      .given([withScopes])
      .when(update({ acceptScopes: { scopes: ['b:read', 'a:read', 'b:read'], requested: ['a:read', 'b:read'] } }))
      .thenNothing();
  });

  it('given an installation, when an admin accepts a scope not asked for, then 400 naming the integration and the scope', () => {
    spec
      .given([installed])
      .when(update({ acceptScopes: { scopes: ['a:read', 'b:read'], requested: ['a:read'] } }))
      .thenFails(400, 'scopes: integration slack does not ask for b:read');
  });

  it('given an installation, when installed on a space, then the space installation, active with an empty configuration', () => {
    spec
      .given([installed])
      .when(onSpace())
      .then([
        {
          type: 'IntegrationSpaceInstallationSet',
          data: { ...about, spaceId: 's1', status: 'active', configuration: {}, previous: null, setBy: 'otto', setAt: t1 },
        },
      ]);
  });

  it('given a space installation, when paused, then the change naming the previous settings, keeping the configuration', () => {
    spec
      .given([installed, spaceSet('active', { b: 1 })])
      .when(onSpace({ status: 'paused' }))
      .thenMatches([{ data: { status: 'paused', configuration: { b: 1 }, previous: { status: 'active', configuration: { b: 1 } } } }]);
  });

  it('given a paused space installation, when its configuration changes, then it stays paused', () => {
    spec
      .given([installed, spaceSet('paused', { b: 1 })])
      .when(onSpace({ configuration: { b: 2 } }))
      .thenMatches([{ data: { status: 'paused', configuration: { b: 2 } } }]);
  });

  it('given a space installation, when set again the same, then nothing', () => {
    spec
      .given([installed, spaceSet('paused', { b: 1 })])
      .when(onSpace({ status: 'paused' }))
      .thenNothing();
  });

  it('given a space installation removed, when installed on the space again, then as new', () => {
    const removed: InstallationEvent = {
      type: 'IntegrationSpaceInstallationRemoved',
      data: { ...about, spaceId: 's1', removedBy: 'otto', removedAt: t0 },
    };
    spec
      .given([installed, spaceSet('paused', { b: 1 }), removed])
      .when(onSpace())
      .thenMatches([{ data: { status: 'active', configuration: {}, previous: null } }]);
  });

  it('given a space installation, when removed, then the removal', () => {
    spec
      .given([installed, spaceSet('active', {})])
      .when({ kind: 'RemovePlaceInstallation', ...by, place: 'space', placeId: 's1' })
      .then([{ type: 'IntegrationSpaceInstallationRemoved', data: { ...about, spaceId: 's1', removedBy: 'otto', removedAt: t1 } }]);
  });

  it('given an installation uninstalled and installed again, then its former space installations are gone', () => {
    spec
      .given([installed, spaceSet('active', {}), uninstalled, installed])
      .when({ kind: 'RemovePlaceInstallation', ...by, place: 'space', placeId: 's1' })
      .thenFails(404);
  });

  it('refuses with wording naming the installation and the place', () => {
    spec
      .given([installed])
      .when({ kind: 'Uninstall', ...by, organizationAdmin: false })
      .thenFails(403, `only admins of the organization may change installation ${id}`);
    spec
      .given([])
      .when({ kind: 'Uninstall', ...by })
      .thenFails(404, `no installation ${id}`);
    spec
      .given([installed])
      .when({ kind: 'RemovePlaceInstallation', ...by, place: 'space', placeId: 's9' })
      .thenFails(404, 'integration slack is not installed on space s9');
  });
});

describe('delivery decider: rules', () => {
  const spec = deciderSpec(deliveryDecider);
  const about = { installationId: 'i1', integrationName: 'slack', organizationId: 'o1' };
  const claimed = (worker: string, until: string): DeliveryEvent => ({
    type: 'IntegrationDeliveriesClaimed',
    data: { ...about, worker, until },
  });
  const record = (worker: string, eventId = 'e1', now = t0): DeliveryCommand => ({
    kind: 'RecordProcessed',
    ...about,
    eventId,
    status: 'failed',
    logs: [{ message: 'boom' }] as never,
    worker,
    now,
  });
  const claim = (worker: string, now: string): DeliveryCommand => ({ kind: 'ClaimDeliveries', ...about, worker, until: t1, now });

  it('given nothing, when a worker records a delivery, then it is processed', () => {
    spec
      .given([])
      .when(record('w1'))
      .then([
        {
          type: 'IntegrationEventProcessed',
          data: { ...about, eventId: 'e1', status: 'failed', logs: [{ message: 'boom' }] as never, processedAt: t0, worker: 'w1' },
        },
      ]);
  });

  it('given one event recorded, when another is recorded, then it is processed', () => {
    spec
      .given([
        {
          type: 'IntegrationEventProcessed',
          data: { ...about, eventId: 'e1', status: 'success', logs: [], processedAt: t0, worker: 'w1' },
        },
      ])
      .when(record('w1', 'e2'))
      .thenMatches([{ type: 'IntegrationEventProcessed', data: { eventId: 'e2' } }]);
  });

  it('given its own live claim, when the worker renews it or records, then it goes ahead', () => {
    spec
      .given([claimed('w1', t1)])
      .when(claim('w1', t0))
      .then([claimed('w1', t1)]);
    spec
      .given([claimed('w1', t1)])
      .when(record('w1'))
      .thenMatches([{ type: 'IntegrationEventProcessed' }]);
  });

  it('given another worker’s claim that ends now, when a worker claims, then it takes over', () => {
    spec
      .given([claimed('w1', t1)])
      .when(claim('w2', t1))
      .then([claimed('w2', t1)]);
  });

  it('given another worker’s live claim, then 409 naming the worker and until when', () => {
    spec
      .given([claimed('w1', t1)])
      .when(claim('w2', t0))
      .thenFails(409, `the deliveries of installation i1 are held by worker w1 until ${t1}`);
  });
});
