/**
 * The integrations projection and scopes: an installation holds the scopes its organization
 * accepted, so an integration republished asking for `site:views:read` receives no `site_view`
 * until an admin accepts it there. The views here are those of logs written before views left the
 * log; the receivers are chosen by siteViewReceivers, as for the views delivered from memory.
 */
import type { MemoryReadStore } from '#read-store/memory/memory-read-store';
import { inStream, projectionSpec, type GivenEvent } from '#testing';
import { installationStream, integrationStream } from './integration.decider';
import type { InstallationEvent, IntegrationDefinition, IntegrationStreamEvent, SiteViewEvent } from './integration.events';
import {
  INSTALLATIONS,
  INTEGRATION_EVENTS,
  integrationProjection,
  type InstallationDoc,
  type IntegrationEventDoc,
} from './integration.projections';

const t0 = '2026-01-01T00:00:00.000Z';
const spec = projectionSpec(integrationProjection);
const definition = (scopes: string[]): IntegrationDefinition => ({
  runtime: 'v1',
  title: 'Views',
  description: '',
  summary: '',
  icon: null,
  previewImages: [],
  visibility: 'public',
  target: 'all',
  scopes,
  categories: [],
  blocks: [],
  contentSources: [],
  externalLinks: [],
  configurations: {},
  script: null,
  contentSecurityPolicy: null,
});
const published = (version: number, scopes: string[]): IntegrationStreamEvent => ({
  type: 'IntegrationPublished',
  data: {
    name: 'views',
    organizationId: 'o1',
    version,
    definition: definition(scopes),
    secrets: null,
    signingSecret: 'sealed',
    publishedBy: 'ada',
    publishedAt: t0,
  },
});
const about = { installationId: 'i1', integrationName: 'views', organizationId: 'o2' };
const installed = (scopes: string[] | undefined): InstallationEvent => ({
  type: 'IntegrationInstalled',
  data: {
    ...about,
    configuration: {},
    spaceSelection: 'selected',
    siteSelection: 'selected',
    ...(scopes ? { scopes } : {}),
    installedBy: 'otto',
    installedAt: t0,
  },
});
const updated = (scopes?: string[]): InstallationEvent => ({
  type: 'IntegrationInstallationUpdated',
  data: {
    ...about,
    status: 'active',
    configuration: {},
    spaceSelection: 'selected',
    siteSelection: 'all',
    ...(scopes ? { scopes } : {}),
    previous: { status: 'active', configuration: {} },
    updatedBy: 'otto',
    updatedAt: t0,
  },
});
const viewed: SiteViewEvent = {
  type: 'IntegrationSiteViewRecorded',
  data: {
    organizationId: 'o2',
    siteId: 'site1',
    spaceId: 'space1',
    pageId: null,
    url: 'https://docs.example.com/',
    visitor: { claims: { email: 'reader@example.com' } },
    viewedAt: t0,
  },
};

const history = (...parts: Array<[string, Array<IntegrationStreamEvent | InstallationEvent | SiteViewEvent>]>): GivenEvent[] =>
  parts.flatMap(([stream, events]) => inStream(stream, events));
const integration = (...events: IntegrationStreamEvent[]): [string, IntegrationStreamEvent[]] => [integrationStream('views'), events];
const installation = (...events: InstallationEvent[]): [string, InstallationEvent[]] => [installationStream('i1'), events];
/** Views were appended to the log before they were delivered from memory: the projection still derives site_view from those. */
const view: [string, SiteViewEvent[]] = ['integrationsiteviews-site1.2026010100', [viewed]];

async function siteViews(reads: MemoryReadStore): Promise<IntegrationEventDoc[]> {
  return (await reads.collection<IntegrationEventDoc>(INTEGRATION_EVENTS).find({ 'payload.type': 'site_view' }, { limit: 100 })).items;
}
const installationDoc = async (reads: MemoryReadStore) => (await reads.collection<InstallationDoc>(INSTALLATIONS).get('i1'))!;

describe('integrations projection: scopes', () => {
  it('given an installation that accepted no scopes, then the integration republished with site:views:read, a reader’s view reaches no installation', async () => {
    await spec
      .given(
        history(
          integration(published(1, [])),
          installation(installed([]), updated()),
          integration(published(2, ['site:views:read'])),
          view,
        ),
      )
      .thenStore(async (reads) => {
        expect(await siteViews(reads)).toEqual([]);
        expect((await installationDoc(reads)).scopes).toEqual([]);
      });
  });

  it('given the same, then an admin accepts site:views:read, a reader’s view becomes site_view with the reader’s claims', async () => {
    await spec
      .given(
        history(
          integration(published(1, [])),
          installation(installed([]), updated()),
          integration(published(2, ['site:views:read'])),
          installation(updated(['site:views:read'])),
          view,
        ),
      )
      .thenStore(async (reads) => {
        expect((await siteViews(reads)).map((event) => event.payload)).toEqual([
          expect.objectContaining({ type: 'site_view', installationId: 'i1', visitor: { claims: { email: 'reader@example.com' } } }),
        ]);
      });
  });

  it('given an installation that accepted site:views:read, then the integration republished without it, a view reaches no installation (asking for fewer takes effect at once)', async () => {
    await spec
      .given(
        history(
          integration(published(1, ['site:views:read'])),
          installation(installed(['site:views:read']), updated()),
          integration(published(2, [])),
          view,
        ),
      )
      .thenStore(async (reads) => expect(await siteViews(reads)).toEqual([]));
  });

  it('given an installation recorded before scopes were kept, it holds those the integration asked for when it was installed, not those it asks for later', async () => {
    await spec
      .given(
        history(
          integration(published(1, [])),
          installation(installed(undefined), updated()),
          integration(published(2, ['site:views:read'])),
          view,
        ),
      )
      .thenStore(async (reads) => {
        expect((await installationDoc(reads)).scopes).toEqual([]);
        expect(await siteViews(reads)).toEqual([]);
      });
    await spec
      .given(history(integration(published(1, ['site:views:read'])), installation(installed(undefined), updated()), view))
      .thenStore(async (reads) => expect(await siteViews(reads)).toHaveLength(1));
  });
});

describe("integrations projection: the service's own event types", () => {
  const everySpace = (scopes: string[]): InstallationEvent => ({
    type: 'IntegrationInstallationUpdated',
    data: {
      ...about,
      status: 'active',
      configuration: {},
      spaceSelection: 'all',
      siteSelection: 'selected',
      scopes,
      previous: { status: 'active', configuration: {} },
      updatedBy: 'otto',
      updatedAt: t0,
    },
  });
  const space: [string, never[]] = [
    'space-s1',
    [
      {
        type: 'SpaceCreated',
        data: { spaceId: 's1', organizationId: 'o2', visibility: 'private', title: 'Docs', createdBy: 'otto', createdAt: t0 },
      } as never,
    ],
  ];
  const changeRequest: [string, never[]] = [
    'changerequest-cr1',
    [
      {
        type: 'ChangeRequestCreated',
        data: {
          changeRequestId: 'cr1',
          spaceId: 's1',
          organizationId: 'o2',
          number: 1,
          subject: 'Fix',
          status: 'open',
          revisionInitial: 'r1',
          tree: 't',
          createdBy: 'otto',
          createdAt: t0,
        },
      } as never,
    ],
  ];
  const types = async (reads: MemoryReadStore) =>
    (await reads.collection<IntegrationEventDoc>(INTEGRATION_EVENTS).find({}, { limit: 100 })).items
      .map((event) => event.payload.type)
      .sort();

  it('given an installation on every space holding space:content:read, then a change request in a space becomes change_request_created', async () => {
    await spec
      .given(
        history(
          integration(published(1, ['space:content:read'])),
          installation(installed(['space:content:read']), everySpace(['space:content:read'])),
          space as never,
          changeRequest as never,
        ),
      )
      .thenStore(async (reads) =>
        expect(await types(reads)).toEqual(['change_request_created', 'installation_setup', 'installation_setup']),
      );
  });

  it('given an installation on every space without space:content:read, then a change request in a space becomes nothing for it', async () => {
    await spec
      .given(history(integration(published(1, [])), installation(installed([]), everySpace([])), space as never, changeRequest as never))
      .thenStore(async (reads) => expect(await types(reads)).toEqual(['installation_setup', 'installation_setup']));
  });
});

describe('integrations projection: deletions', () => {
  it('given an uninstallation, then installation_deleted has the configuration the installation had as previous', async () => {
    const configured: InstallationEvent = {
      type: 'IntegrationInstallationUpdated',
      data: {
        ...about,
        status: 'active',
        configuration: { channel: '#docs' },
        spaceSelection: 'selected',
        siteSelection: 'selected',
        previous: { status: 'active', configuration: {} },
        updatedBy: 'otto',
        updatedAt: t0,
      },
    };
    await spec
      .given(
        history(
          integration(published(1, [])),
          installation(installed([]), configured, {
            type: 'IntegrationUninstalled',
            data: { ...about, uninstalledBy: 'otto', uninstalledAt: t0 },
          }),
        ),
      )
      .thenStore(async (reads) => {
        const deleted = (
          await reads.collection<IntegrationEventDoc>(INTEGRATION_EVENTS).find({ 'payload.type': 'installation_deleted' }, { limit: 10 })
        ).items;
        expect(deleted.map((event) => event.payload.previous)).toEqual([{ configuration: { channel: '#docs' } }]);
      });
  });

  it('given a site installation removed, then site_installation_deleted has the configuration it had there as previous', async () => {
    await spec
      .given(
        history(
          integration(published(1, [])),
          installation(
            installed([]),
            {
              type: 'IntegrationSiteInstallationSet',
              data: {
                ...about,
                siteId: 'site1',
                status: 'active',
                configuration: { trackingId: 'x' },
                previous: null,
                setBy: 'otto',
                setAt: t0,
              },
            },
            { type: 'IntegrationSiteInstallationRemoved', data: { ...about, siteId: 'site1', removedBy: 'otto', removedAt: t0 } },
          ),
        ),
      )
      .thenStore(async (reads) => {
        const payloads = (
          await reads.collection<IntegrationEventDoc>(INTEGRATION_EVENTS).find({ 'payload.siteId': 'site1' }, { limit: 10 })
        ).items.map((event) => event.payload);
        expect(payloads).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ type: 'site_installation_setup', status: 'active' }),
            expect.objectContaining({ type: 'site_installation_deleted', previous: { configuration: { trackingId: 'x' } } }),
          ]),
        );
        expect(payloads.find((payload) => payload.type === 'site_installation_setup')).not.toHaveProperty('previous');
      });
  });
});
