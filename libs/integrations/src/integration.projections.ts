import { multiDocumentProjection, positionKey, type ProjectedDoc, type Recorded } from '../../read-store/src/projections/projection';
import { deriveInstallationEvent, deriveSpaceEvents, integrationEventId, spaceOf, type Derived, type SourceEvent } from './integration.derivation';
import type { DeliveryEvent, InstallationStatus, IntegrationDefinition, IntegrationStreamEvent, SpaceSelection, TraceLog } from './integration.events';

export const INTEGRATIONS = 'integrations';
export const INSTALLATIONS = 'integration_installations';
export const SPACE_INSTALLATIONS = 'integration_space_installations';
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
}

export interface InstallationDoc extends ProjectedDoc {
  integrationName: string;
  organizationId: string;
  status: InstallationStatus;
  configuration: Record<string, unknown>;
  spaceSelection: SpaceSelection;
  spaces: number;
  createdAt: string;
  updatedAt: string;
  uninstalled?: true;
}

export interface SpaceInstallationDoc extends ProjectedDoc {
  installationId: string;
  integrationName: string;
  organizationId: string;
  spaceId: string;
  status: InstallationStatus;
  configuration: Record<string, unknown>;
}

/** A derived integration event, waiting for its delivery (`pending`) or processed. */
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

/**
 * The integrations' read models and the derivation of integration events. Derivation is a
 * projection on purpose: it sees the installations as they were at each event (projections apply
 * the log in order), so a rebuild derives the same events with the same ids; deliveries then mark
 * them from `IntegrationEventProcessed` (integrationdelivery-<installationId>).
 */
export const integrationProjection = multiDocumentProjection<Handled>({
  name: 'integrations',
  collections: [INTEGRATIONS, INSTALLATIONS, SPACE_INSTALLATIONS, INTEGRATION_EVENTS, INTEGRATION_SPACES],
  indexes: [
    { collection: INTEGRATIONS, fields: { organizationId: 1 } },
    { collection: INSTALLATIONS, fields: { integrationName: 1, createdAt: 1 } },
    { collection: INSTALLATIONS, fields: { organizationId: 1 } },
    { collection: SPACE_INSTALLATIONS, fields: { installationId: 1, spaceId: 1 } },
    { collection: SPACE_INSTALLATIONS, fields: { integrationName: 1, spaceId: 1 } },
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
    const spaceInstallations = documents.collection<SpaceInstallationDoc>(SPACE_INSTALLATIONS);
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
        await integrations.put({ _id: name, organizationId, version, definition, hasSecrets: secrets !== null, dev: existing?.deleted ? null : (existing?.dev ?? null), createdAt: existing && !existing.deleted ? existing.createdAt : publishedAt, updatedAt: publishedAt });
        return;
      }
      case 'IntegrationDeleted':
        await integrations.update(event.data.name, { $set: { deleted: true, dev: null, updatedAt: event.data.deletedAt } });
        return;
      case 'IntegrationDevModeSet':
        await integrations.update(event.data.name, { $set: { dev: { tunnelUrl: event.data.tunnelUrl, all: event.data.all } } });
        return;
      case 'IntegrationDevModeCleared':
        await integrations.update(event.data.name, { $set: { dev: null } });
        return;
      case 'IntegrationInstalled': {
        const { installationId, integrationName, organizationId, configuration, spaceSelection, installedAt } = event.data;
        await installations.put({ _id: installationId, integrationName, organizationId, status: 'active', configuration, spaceSelection, spaces: 0, createdAt: installedAt, updatedAt: installedAt });
        await emit({ _id: installationId, integrationName, organizationId }, deriveInstallationEvent(event));
        return;
      }
      case 'IntegrationInstallationUpdated':
      case 'IntegrationUninstalled':
      case 'IntegrationSpaceInstallationSet':
      case 'IntegrationSpaceInstallationRemoved': {
        const installation = await installations.get(event.data.installationId);
        if (!installation) return;
        if (event.type === 'IntegrationInstallationUpdated') {
          await installations.update(installation._id, { $set: { status: event.data.status, configuration: event.data.configuration, spaceSelection: event.data.spaceSelection, updatedAt: event.data.updatedAt } });
        } else if (event.type === 'IntegrationUninstalled') {
          await installations.update(installation._id, { $set: { uninstalled: true, spaces: 0, updatedAt: event.data.uninstalledAt } });
          await spaceInstallations.deleteMany({ installationId: installation._id });
        } else if (event.type === 'IntegrationSpaceInstallationSet') {
          const { spaceId, status, configuration } = event.data;
          await spaceInstallations.put({ _id: `${installation._id}:${spaceId}`, installationId: installation._id, integrationName: installation.integrationName, organizationId: installation.organizationId, spaceId, status, configuration });
          await installations.update(installation._id, { $set: { spaces: await spaceInstallations.count({ installationId: installation._id }) } });
        } else {
          await spaceInstallations.delete(`${installation._id}:${event.data.spaceId}`);
          await installations.update(installation._id, { $set: { spaces: await spaceInstallations.count({ installationId: installation._id }) } });
        }
        await emit(installation, deriveInstallationEvent(event));
        return;
      }
      case 'IntegrationEventProcessed':
        await events.update(event.data.eventId, { $set: { status: event.data.status, logs: event.data.logs } });
        return;
      case 'SpaceCreated':
        await spaces.put({ _id: event.data.spaceId, organizationId: event.data.organizationId, visibility: event.data.visibility });
        return;
      case 'SpaceTransferred':
        await spaces.update(event.data.spaceId, { $set: { organizationId: event.data.organizationId, visibility: event.data.visibility } });
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
    // The installations concerned: active ones of the space's organization, on every space or on this one.
    const candidates = await installations.find({ organizationId: where.organizationId, status: 'active' }, { limit: 1000, count: false });
    for (const installation of candidates.items) {
      if (installation.uninstalled) continue;
      if (installation.spaceSelection !== 'all') {
        const onSpace = await spaceInstallations.get(`${installation._id}:${where.spaceId}`);
        if (!onSpace || onSpace.status !== 'active') continue;
      }
      for (const one of derived) await emit(installation, one);
    }
  },
});
