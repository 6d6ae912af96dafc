import {
  multiDocumentProjection,
  positionKey,
  type ProjectedDoc,
  type Projection,
  type ProjectionCollection,
  type Recorded,
} from '#read-store/projections/projection';
import type { Doc } from '#read-store/read-store.port';
import {
  deriveInstallationEvent,
  deriveSiteView,
  deriveSpaceEvents,
  EXTENSION_EVENT_TYPES,
  integrationEventId,
  SITE_VIEWS_SCOPE,
  SPACE_CONTENT_SCOPE,
  spaceOf,
  type Derived,
  type SourceEvent,
} from './integration.derivation';
import type {
  DeliveryEvent,
  InstallationEvent,
  InstallationPlace,
  InstallationStatus,
  IntegrationDefinition,
  IntegrationStreamEvent,
  SpaceSelection,
  TraceLog,
} from './integration.events';
import { placeIdMember, placeOf, type PlaceSetEvent } from './integration.places';
import { holdsScope } from './integration.scopes';

export const INTEGRATIONS = 'integrations';
export const INSTALLATIONS = 'integration_installations';
export const SPACE_INSTALLATIONS = 'integration_space_installations';
export const SITE_INSTALLATIONS = 'integration_site_installations';
/** The collection of each place's installations. */
export const PLACE_INSTALLATIONS: Readonly<Record<InstallationPlace, string>> = { space: SPACE_INSTALLATIONS, site: SITE_INSTALLATIONS };
export const INTEGRATION_EVENTS = 'integration_events';
export const INTEGRATION_SPACES = 'integration_spaces';

export interface IntegrationDoc extends ProjectedDoc {
  organizationId: string;
  version: number;
  definition: IntegrationDefinition;
  hasSecrets: boolean;
  /** The tunnel while development mode is on. */
  dev: { tunnelUrl: string; all: boolean } | null;
  createdAt: string;
  updatedAt: string;
  deleted?: true;
  /** The revision of the integration's stream this document is at: the ETag of the integration and of its `/dev`. */
  streamRevision: number;
}

export interface InstallationDoc extends ProjectedDoc {
  integrationName: string;
  organizationId: string;
  status: InstallationStatus;
  configuration: Record<string, unknown>;
  spaceSelection: SpaceSelection;
  siteSelection: SpaceSelection;
  /** The integration's scopes accepted in the organization (what it holds there is these it still asks for). */
  scopes: string[];
  spaces: number;
  createdAt: string;
  updatedAt: string;
  uninstalled?: true;
  /** The revision of the installation's stream this document is at: the ETag of the installation and of its space and site installations, which live in that stream. */
  streamRevision: number;
}

/** An installation on one place, `<installationId>:<placeId>`. */
interface PlaceInstallationFields extends ProjectedDoc {
  installationId: string;
  integrationName: string;
  organizationId: string;
  status: InstallationStatus;
  configuration: Record<string, unknown>;
}

export interface SpaceInstallationDoc extends PlaceInstallationFields {
  spaceId: string;
}

export interface SiteInstallationDoc extends PlaceInstallationFields {
  siteId: string;
}

export type PlaceInstallationDoc = SpaceInstallationDoc | SiteInstallationDoc;

export const placeIdOf = (place: InstallationPlace, entry: PlaceInstallationDoc): string => entry[placeIdMember(place)] as string;

/** A derived integration event, waiting for its delivery (`pending`, not shown) or processed. */
export interface IntegrationEventDoc extends ProjectedDoc {
  integrationName: string;
  installationId: string;
  organizationId: string;
  createdAt: string;
  payload: { eventId: string; type: string; installationId: string; [member: string]: unknown };
  status: 'pending' | 'success' | 'failed';
  /** Log position of the source event: the delivery order within an installation. */
  sequence: string;
  logs: TraceLog[];
}

/** A copy of what derivation needs of spaces: their visibility before a change. */
export interface IntegrationSpaceDoc extends ProjectedDoc {
  organizationId: string;
  visibility: string;
}

type Handled = IntegrationStreamEvent | DeliveryEvent | SourceEvent;

/** Reads of the integrations' collections, as a projection (at an event) or a request (now) has them. */
export interface IntegrationReads {
  collection<D extends Doc>(name: string): Pick<ProjectionCollection<D>, 'get' | 'find'>;
}

/** The active installations concerned by what happens on a place: its organization's, on every such place or on this one. */
export async function installationsConcerned(
  reads: IntegrationReads,
  place: InstallationPlace,
  placeId: string,
  organizationId: string,
): Promise<InstallationDoc[]> {
  const candidates = await reads
    .collection<InstallationDoc>(INSTALLATIONS)
    .find({ organizationId, status: 'active' }, { limit: 1000, count: false });
  const concerned: InstallationDoc[] = [];
  for (const installation of candidates.items) {
    if (installation.uninstalled) continue;
    if ((place === 'space' ? installation.spaceSelection : installation.siteSelection) !== 'all') {
      const onPlace = await reads.collection<PlaceInstallationDoc>(PLACE_INSTALLATIONS[place]).get(`${installation._id}:${placeId}`);
      if (!onPlace || onPlace.status !== 'active') continue;
    }
    concerned.push(installation);
  }
  return concerned;
}

/**
 * The installations a view of the site goes to: those concerned by the site whose integration is
 * live and holds `site:views:read` there (asks for it, and the organization accepted it).
 */
export async function siteViewReceivers(reads: IntegrationReads, organizationId: string, siteId: string): Promise<InstallationDoc[]> {
  const concerned = await installationsConcerned(reads, 'site', siteId, organizationId);
  const holding = await holdingScope(reads, concerned, SITE_VIEWS_SCOPE);
  return concerned.filter((installation) => holding.has(installation._id));
}

/** Of these installations, the ids of those whose integration is live and holds `scope` there (asks for it, and the organization accepted it). */
async function holdingScope(reads: IntegrationReads, installations: readonly InstallationDoc[], scope: string): Promise<Set<string>> {
  const holding = new Set<string>();
  for (const installation of installations) {
    const integration = await reads.collection<IntegrationDoc>(INTEGRATIONS).get(installation.integrationName);
    if (integration && !integration.deleted && holdsScope(installation.scopes ?? [], integration.definition.scopes, scope))
      holding.add(installation._id);
  }
  return holding;
}

/**
 * The integrations' read models and the derivation of integration events. Derivation is a
 * projection on purpose: it sees the installations as they were at each event (projections apply
 * the log in order), so a rebuild derives the same events with the same ids; deliveries then mark
 * them from `IntegrationEventProcessed` (integrationdelivery-<installationId>).
 */
// Version 1: installations keep the scopes accepted in them. Version 2: events in the platform's
// shapes, the service's own types only for installations holding space:content:read. Version 3:
// integrations and installations keep the revision of their stream (their ETag).
export const integrationProjection: Projection = withVersion(
  3,
  multiDocumentProjection<Handled>({
    name: 'integrations',
    collections: [INTEGRATIONS, INSTALLATIONS, SPACE_INSTALLATIONS, SITE_INSTALLATIONS, INTEGRATION_EVENTS, INTEGRATION_SPACES],
    indexes: [
      { collection: INTEGRATIONS, fields: { organizationId: 1 } },
      { collection: INSTALLATIONS, fields: { integrationName: 1, createdAt: 1 } },
      { collection: INSTALLATIONS, fields: { organizationId: 1 } },
      { collection: SPACE_INSTALLATIONS, fields: { installationId: 1, spaceId: 1 } },
      { collection: SPACE_INSTALLATIONS, fields: { integrationName: 1, spaceId: 1 } },
      { collection: SPACE_INSTALLATIONS, fields: { spaceId: 1 } },
      { collection: SITE_INSTALLATIONS, fields: { installationId: 1, siteId: 1 } },
      { collection: SITE_INSTALLATIONS, fields: { integrationName: 1, siteId: 1 } },
      { collection: SITE_INSTALLATIONS, fields: { siteId: 1 } },
      { collection: INTEGRATION_EVENTS, fields: { integrationName: 1, sequence: -1 } },
      { collection: INTEGRATION_EVENTS, fields: { status: 1, sequence: 1 } },
    ],
    handles: [
      'IntegrationPublished',
      'IntegrationDeleted',
      'IntegrationDevModeSet',
      'IntegrationDevModeCleared',
      'IntegrationInstalled',
      'IntegrationInstallationUpdated',
      'IntegrationUninstalled',
      'IntegrationSpaceInstallationSet',
      'IntegrationSpaceInstallationRemoved',
      'IntegrationSiteInstallationSet',
      'IntegrationSiteInstallationRemoved',
      'IntegrationSiteViewRecorded',
      'IntegrationEventProcessed',
      'ContentRevisionCreated',
      'ContentDependencyUpdated',
      'SpaceCreated',
      'SpaceUpdated',
      'SpaceMoved',
      'SpaceTransferred',
      'SpacePurged',
      'ChangeRequestCreated',
      'ChangeRequestStatusChanged',
      'ChangeRequestMerged',
      'CommentPosted',
      'CommentReplyPosted',
      'CommentResolved',
    ],
    async apply(event: Recorded<Handled>, documents) {
      const integrations = documents.collection<IntegrationDoc>(INTEGRATIONS);
      const installations = documents.collection<InstallationDoc>(INSTALLATIONS);
      const events = documents.collection<IntegrationEventDoc>(INTEGRATION_EVENTS);
      const spaces = documents.collection<IntegrationSpaceDoc>(INTEGRATION_SPACES);

      const emit = async (installation: Pick<InstallationDoc, '_id' | 'integrationName' | 'organizationId'>, derived: Derived) => {
        const eventId = integrationEventId(event.id, installation._id);
        await events.put({
          _id: eventId,
          integrationName: installation.integrationName,
          installationId: installation._id,
          organizationId: installation.organizationId,
          createdAt: event.recordedAt,
          payload: { eventId, type: derived.type, installationId: installation._id, ...derived.members },
          status: 'pending',
          sequence: positionKey(event.position),
          logs: [],
        });
      };

      switch (event.type) {
        case 'IntegrationPublished': {
          const { name, organizationId, version, definition, secrets, publishedAt } = event.data;
          const existing = await integrations.get(name);
          await integrations.put({
            _id: name,
            organizationId,
            version,
            definition,
            hasSecrets: secrets !== null,
            dev: existing?.deleted ? null : (existing?.dev ?? null),
            createdAt: existing && !existing.deleted ? existing.createdAt : publishedAt,
            updatedAt: publishedAt,
            streamRevision: event.revision,
          });
          return;
        }
        case 'IntegrationDeleted':
          await integrations.update(event.data.name, {
            $set: { deleted: true, dev: null, updatedAt: event.data.deletedAt, streamRevision: event.revision },
          });
          return;
        case 'IntegrationDevModeSet':
          await integrations.update(event.data.name, {
            $set: { dev: { tunnelUrl: event.data.tunnelUrl, all: event.data.all }, streamRevision: event.revision },
          });
          return;
        case 'IntegrationDevModeCleared':
          await integrations.update(event.data.name, { $set: { dev: null, streamRevision: event.revision } });
          return;
        case 'IntegrationInstalled': {
          const { installationId, integrationName, organizationId, configuration, spaceSelection, siteSelection, scopes, installedAt } =
            event.data;
          // Recorded before installations kept their scopes: the installer saw those the integration asked for then.
          const accepted = scopes ?? (await integrations.get(integrationName))?.definition.scopes ?? [];
          await installations.put({
            _id: installationId,
            integrationName,
            organizationId,
            status: 'active',
            configuration,
            spaceSelection,
            siteSelection: siteSelection ?? 'selected',
            scopes: accepted,
            spaces: 0,
            createdAt: installedAt,
            updatedAt: installedAt,
            streamRevision: event.revision,
          });
          await emit({ _id: installationId, integrationName, organizationId }, deriveInstallationEvent(event));
          return;
        }
        case 'IntegrationInstallationUpdated':
        case 'IntegrationUninstalled':
        case 'IntegrationSpaceInstallationSet':
        case 'IntegrationSpaceInstallationRemoved':
        case 'IntegrationSiteInstallationSet':
        case 'IntegrationSiteInstallationRemoved': {
          const installation = await installations.get(event.data.installationId);
          if (!installation) return;
          // Every event of the installation's stream moves its ETag, its places' included.
          await installations.update(installation._id, { $set: { streamRevision: event.revision } });
          const onPlace = placeOf(event);
          // What a deletion tells as `previous`: the configuration there before it.
          let before: { configuration: Record<string, unknown> } | null =
            event.type === 'IntegrationUninstalled' ? { configuration: installation.configuration } : null;
          if (event.type === 'IntegrationInstallationUpdated') {
            const { status, configuration, spaceSelection, siteSelection, scopes, updatedAt } = event.data;
            await installations.update(installation._id, {
              $set: {
                status,
                configuration,
                spaceSelection,
                siteSelection: siteSelection ?? installation.siteSelection,
                scopes: scopes ?? installation.scopes ?? [],
                updatedAt,
              },
            });
          } else if (event.type === 'IntegrationUninstalled') {
            await installations.update(installation._id, { $set: { uninstalled: true, spaces: 0, updatedAt: event.data.uninstalledAt } });
            for (const collection of [SPACE_INSTALLATIONS, SITE_INSTALLATIONS])
              await documents.collection<PlaceInstallationDoc>(collection).deleteMany({ installationId: installation._id });
          } else if (onPlace) {
            const entries = documents.collection<PlaceInstallationDoc>(PLACE_INSTALLATIONS[onPlace.place]);
            const _id = `${installation._id}:${onPlace.placeId}`;
            if (onPlace.change === 'set') {
              const { status, configuration } = (event as Recorded<PlaceSetEvent>).data;
              await entries.put({
                _id,
                installationId: installation._id,
                integrationName: installation.integrationName,
                organizationId: installation.organizationId,
                [placeIdMember(onPlace.place)]: onPlace.placeId,
                status,
                configuration,
              } as PlaceInstallationDoc);
            } else {
              const removed = await entries.get(_id);
              if (removed) before = { configuration: removed.configuration };
              await entries.delete(_id);
            }
            if (onPlace.place === 'space')
              await installations.update(installation._id, { $set: { spaces: await entries.count({ installationId: installation._id }) } });
          }
          await emit(installation, deriveInstallationEvent(event as InstallationEvent, before));
          return;
        }
        case 'IntegrationSiteViewRecorded':
          for (const installation of await siteViewReceivers(documents, event.data.organizationId, event.data.siteId))
            await emit(installation, deriveSiteView(event));
          return;
        case 'IntegrationEventProcessed':
          await events.update(event.data.eventId, { $set: { status: event.data.status, logs: event.data.logs } });
          return;
        case 'SpaceCreated':
          await spaces.put({ _id: event.data.spaceId, organizationId: event.data.organizationId, visibility: event.data.visibility });
          return;
        case 'SpaceTransferred':
          await spaces.update(event.data.spaceId, {
            $set: { organizationId: event.data.organizationId, visibility: event.data.visibility },
          });
          return;
        case 'SpacePurged':
          await spaces.delete(event.data.spaceId);
          return;
      }

      const where = spaceOf(event as SourceEvent);
      if (!where) return;
      const space = await spaces.get(where.spaceId);
      const derived = deriveSpaceEvents(event as SourceEvent, space?.visibility ?? null);
      if (event.type === 'SpaceUpdated' || event.type === 'SpaceMoved') {
        const visibility = event.type === 'SpaceUpdated' ? event.data.changes.visibility : event.data.visibility;
        if (space && visibility !== undefined) await spaces.update(space._id, { $set: { visibility } });
      }
      if (derived.length === 0) return;
      const concerned = await installationsConcerned(documents, 'space', where.spaceId, where.organizationId);
      const extensions = derived.some((one) => EXTENSION_EVENT_TYPES.has(one.type))
        ? await holdingScope(documents, concerned, SPACE_CONTENT_SCOPE)
        : new Set<string>();
      for (const installation of concerned) {
        for (const one of derived)
          if (!EXTENSION_EVENT_TYPES.has(one.type) || extensions.has(installation._id)) await emit(installation, one);
      }
    },
  }),
);

/** The projection, rebuilt from the log when `version` changes (multiDocumentProjection takes no version). */
function withVersion(version: number, projection: Projection): Projection {
  return { ...projection, version };
}
