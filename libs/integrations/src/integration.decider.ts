import { createHash } from 'node:crypto';
import type { Decider } from '#event-store/decider';
import { DomainError } from '#platform/errors';
import type {
  DeliveryEvent,
  InstallationEvent,
  InstallationPlace,
  InstallationStatus,
  IntegrationDefinition,
  IntegrationStreamEvent,
  PlaceSettings,
  SpaceSelection,
  TraceLog,
} from './integration.events';
import { placeOf, placeRemoved, placeSet, type PlaceSetEvent } from './integration.places';
import { normalizedScopes } from './integration.scopes';

export const integrationStream = (name: string) => `integration-${name}`;
export const installationStream = (installationId: string) => `integrationinstallation-${installationId}`;
export const deliveryStream = (installationId: string) => `integrationdelivery-${installationId}`;
/** A site's views of one hour (`2026-01-01T12:…` → `2026010112`), in logs written before views left the log. */
export const siteViewStream = (siteId: string, at: string) => `integrationsiteviews-${siteId}.${at.slice(0, 13).replace(/[-T]/g, '')}`;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The installation of an integration in an organization: one id for the pair, so it is installed at most once. */
export function installationIdOf(integrationName: string, organizationId: string): string {
  const digest = createHash('sha256').update(`installation\n${integrationName}\n${organizationId}`).digest();
  let id = '';
  for (let index = 0; index < 20; index += 1) id += BASE62[digest[index] % 62];
  return id;
}

// ---- the integration ---------------------------------------------------------------------------

export interface IntegrationState {
  published: null | {
    organizationId: string;
    version: number;
    definition: IntegrationDefinition;
    secrets: string | null;
    signingSecret: string;
  };
  deleted: boolean;
  dev: null | { tunnelUrl: string; all: boolean };
}

interface ByOwnerAdmin {
  name: string;
  /** The caller is an admin of the organization that publishes (or owns) the integration. */
  ownerAdmin: boolean;
  by: string;
  now: string;
}

export type IntegrationCommand =
  | (ByOwnerAdmin & {
      kind: 'PublishIntegration';
      organizationId: string;
      definition: IntegrationDefinition;
      secrets: string | null | undefined;
      signingSecret: string;
    })
  | (ByOwnerAdmin & { kind: 'DeleteIntegration' })
  | (ByOwnerAdmin & { kind: 'SetDevMode'; tunnelUrl: string; all: boolean })
  | (ByOwnerAdmin & { kind: 'ClearDevMode' });

const live = (state: IntegrationState) => state.published !== null && !state.deleted;

/**
 * Why the caller may not make this change to the integration, whatever its revision: 403 below an
 * admin of the organization that publishes it, 409 to publish over another organization's, 404 to
 * change one that is not published.
 */
export function integrationRefusal(command: IntegrationCommand, state: IntegrationState): DomainError | null {
  const name = command.name;
  if (!command.ownerAdmin) return DomainError.forbidden(`only admins of the organization that publishes integration ${name} may change it`);
  if (command.kind === 'PublishIntegration')
    return live(state) && state.published!.organizationId !== command.organizationId
      ? DomainError.conflict(`integration ${name} is published by another organization`)
      : null;
  return live(state) ? null : DomainError.notFound(`no integration ${name}`);
}

export const integrationDecider: Decider<IntegrationCommand, IntegrationStreamEvent, IntegrationState> = {
  initialState: () => ({ published: null, deleted: false, dev: null }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'IntegrationPublished': {
        const { organizationId, version, definition, secrets, signingSecret } = event.data;
        return { ...state, published: { organizationId, version, definition, secrets, signingSecret }, deleted: false };
      }
      case 'IntegrationDeleted':
        return { ...state, deleted: true, dev: null };
      case 'IntegrationDevModeSet':
        return { ...state, dev: { tunnelUrl: event.data.tunnelUrl, all: event.data.all } };
      case 'IntegrationDevModeCleared':
        return { ...state, dev: null };
    }
  },
  decide: (command, state) => {
    const name = command.name;
    const refusal = integrationRefusal(command, state);
    if (refusal) return refusal;
    if (command.kind === 'PublishIntegration') {
      return [
        {
          type: 'IntegrationPublished',
          data: {
            name,
            organizationId: command.organizationId,
            version: (state.published?.version ?? 0) + 1,
            definition: command.definition,
            // Absent from the request: the secrets stay as they were.
            secrets: command.secrets === undefined ? (state.published?.secrets ?? null) : command.secrets,
            signingSecret: state.published?.signingSecret ?? command.signingSecret,
            publishedBy: command.by,
            publishedAt: command.now,
          },
        },
      ];
    }
    const organizationId = state.published!.organizationId;
    switch (command.kind) {
      case 'DeleteIntegration':
        return [{ type: 'IntegrationDeleted', data: { name, organizationId, deletedBy: command.by, deletedAt: command.now } }];
      case 'SetDevMode':
        if (state.dev?.tunnelUrl === command.tunnelUrl && state.dev.all === command.all) return [];
        return [
          {
            type: 'IntegrationDevModeSet',
            data: { name, organizationId, tunnelUrl: command.tunnelUrl, all: command.all, setBy: command.by, setAt: command.now },
          },
        ];
      case 'ClearDevMode':
        if (!state.dev) return [];
        return [{ type: 'IntegrationDevModeCleared', data: { name, organizationId, clearedBy: command.by, clearedAt: command.now } }];
    }
  },
};

// ---- an installation ---------------------------------------------------------------------------

export interface InstallationState {
  installed: null | { integrationName: string; organizationId: string };
  status: InstallationStatus;
  configuration: Record<string, unknown>;
  spaceSelection: SpaceSelection;
  siteSelection: SpaceSelection;
  /** The integration's scopes accepted in the organization; null for an installation recorded before they were kept. */
  scopes: readonly string[] | null;
  /** The spaces and the sites it is installed on, each keyed by the place's id. */
  places: Readonly<Record<InstallationPlace, ReadonlyMap<string, PlaceSettings>>>;
}

interface ByOrganizationAdmin {
  installationId: string;
  /** The caller is an admin of the organization the installation is (or goes) in; always true for the service. */
  organizationAdmin: boolean;
  by: string;
  now: string;
}

export type InstallationCommand =
  /** `scopes`: those the integration asks for now, which the installer accepts by installing. */
  | (ByOrganizationAdmin & {
      kind: 'Install';
      integrationName: string;
      organizationId: string;
      configuration: Record<string, unknown>;
      scopes: readonly string[];
    })
  /** `acceptScopes`: the scopes the admin accepts (replacing those accepted before), with those the integration asks for now. */
  | (ByOrganizationAdmin & {
      kind: 'UpdateInstallation';
      status?: InstallationStatus;
      configuration?: Record<string, unknown>;
      spaceSelection?: SpaceSelection;
      siteSelection?: SpaceSelection;
      acceptScopes?: { scopes: readonly string[]; requested: readonly string[] };
    })
  | (ByOrganizationAdmin & { kind: 'Uninstall' })
  /** Installs on a space or a site (or changes its status or configuration there); the command handler has checked that the place is live in the organization. */
  | (ByOrganizationAdmin & {
      kind: 'SetPlaceInstallation';
      place: InstallationPlace;
      placeId: string;
      status?: InstallationStatus;
      configuration?: Record<string, unknown>;
    })
  | (ByOrganizationAdmin & { kind: 'RemovePlaceInstallation'; place: InstallationPlace; placeId: string });

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const noPlaces = (): InstallationState['places'] => ({ space: new Map(), site: new Map() });

function withPlace(
  places: InstallationState['places'],
  place: InstallationPlace,
  placeId: string,
  settings: PlaceSettings | null,
): InstallationState['places'] {
  const changed = new Map(places[place]);
  if (settings) changed.set(placeId, settings);
  else changed.delete(placeId);
  return { ...places, [place]: changed };
}

/**
 * Why the caller may not make this change to the installation, whatever its revision: 403 below an
 * admin of its organization, 404 for an installation (or a place installation) that does not
 * exist.
 */
export function installationRefusal(command: InstallationCommand, state: InstallationState): DomainError | null {
  const id = command.installationId;
  if (!command.organizationAdmin) return DomainError.forbidden(`only admins of the organization may change installation ${id}`);
  if (command.kind === 'Install') return null;
  if (!state.installed) return DomainError.notFound(`no installation ${id}`);
  if (command.kind === 'RemovePlaceInstallation' && !state.places[command.place].has(command.placeId))
    return DomainError.notFound(`integration ${state.installed.integrationName} is not installed on ${command.place} ${command.placeId}`);
  return null;
}

export const installationDecider: Decider<InstallationCommand, InstallationEvent, InstallationState> = {
  initialState: () => ({
    installed: null,
    status: 'active',
    configuration: {},
    spaceSelection: 'selected',
    siteSelection: 'selected',
    scopes: null,
    places: noPlaces(),
  }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'IntegrationInstalled':
        return {
          installed: { integrationName: event.data.integrationName, organizationId: event.data.organizationId },
          status: 'active',
          configuration: event.data.configuration,
          spaceSelection: event.data.spaceSelection,
          siteSelection: event.data.siteSelection ?? 'selected',
          scopes: event.data.scopes ?? null,
          places: noPlaces(),
        };
      case 'IntegrationInstallationUpdated':
        return {
          ...state,
          status: event.data.status,
          configuration: event.data.configuration,
          spaceSelection: event.data.spaceSelection,
          siteSelection: event.data.siteSelection ?? state.siteSelection,
          scopes: event.data.scopes ?? state.scopes,
        };
      case 'IntegrationUninstalled':
        return { ...state, installed: null, places: noPlaces() };
      default: {
        const { place, placeId, change } = placeOf(event)!;
        return {
          ...state,
          places: withPlace(
            state.places,
            place,
            placeId,
            change === 'set'
              ? { status: (event as PlaceSetEvent).data.status, configuration: (event as PlaceSetEvent).data.configuration }
              : null,
          ),
        };
      }
    }
  },
  decide: (command, state) => {
    const id = command.installationId;
    const refusal = installationRefusal(command, state);
    if (refusal) return refusal;
    if (command.kind === 'Install') {
      if (state.installed) return [];
      return [
        {
          type: 'IntegrationInstalled',
          data: {
            installationId: id,
            integrationName: command.integrationName,
            organizationId: command.organizationId,
            configuration: command.configuration,
            spaceSelection: 'selected',
            siteSelection: 'selected',
            scopes: normalizedScopes(command.scopes),
            installedBy: command.by,
            installedAt: command.now,
          },
        },
      ];
    }
    const about = { installationId: id, ...state.installed! };
    switch (command.kind) {
      case 'UpdateInstallation': {
        const status = command.status ?? state.status;
        const configuration = command.configuration ?? state.configuration;
        const spaceSelection = command.spaceSelection ?? state.spaceSelection;
        const siteSelection = command.siteSelection ?? state.siteSelection;
        // An admin grants only what the integration asks for: a scope it does not ask for is a mistake (or a race with a publication), said plainly.
        const notAsked = command.acceptScopes?.scopes.find((scope) => !command.acceptScopes!.requested.includes(scope));
        if (notAsked !== undefined) return DomainError.invalid(`scopes: integration ${about.integrationName} does not ask for ${notAsked}`);
        const scopes = command.acceptScopes ? normalizedScopes(command.acceptScopes.scopes) : state.scopes;
        if (
          status === state.status &&
          spaceSelection === state.spaceSelection &&
          siteSelection === state.siteSelection &&
          sameJson(configuration, state.configuration) &&
          sameJson(scopes, state.scopes)
        )
          return [];
        return [
          {
            type: 'IntegrationInstallationUpdated',
            data: {
              ...about,
              status,
              configuration,
              spaceSelection,
              siteSelection,
              ...(scopes !== null ? { scopes: [...scopes] } : {}),
              previous: { status: state.status, configuration: state.configuration },
              updatedBy: command.by,
              updatedAt: command.now,
            },
          },
        ];
      }
      case 'Uninstall':
        return [{ type: 'IntegrationUninstalled', data: { ...about, uninstalledBy: command.by, uninstalledAt: command.now } }];
      case 'SetPlaceInstallation': {
        const previous = state.places[command.place].get(command.placeId) ?? null;
        const status = command.status ?? previous?.status ?? 'active';
        const configuration = command.configuration ?? previous?.configuration ?? {};
        if (previous && previous.status === status && sameJson(previous.configuration, configuration)) return [];
        return [
          placeSet(command.place, about, command.placeId, { status, configuration, previous, setBy: command.by, setAt: command.now }),
        ];
      }
      case 'RemovePlaceInstallation':
        return [placeRemoved(command.place, about, command.placeId, { removedBy: command.by, removedAt: command.now })];
    }
  },
};

// ---- deliveries --------------------------------------------------------------------------------

/**
 * An installation's deliveries: the events already processed (a delivery recorded twice appends
 * nothing) and which worker holds them. A worker claims the installation for a lease before
 * delivering (one append with an expected revision: of two replicas, one wins) and renews it while
 * it works; another worker takes over once the lease has passed.
 */
export interface DeliveryState {
  processed: ReadonlySet<string>;
  claim: { worker: string; until: string } | null;
}

interface DeliveryAbout {
  installationId: string;
  integrationName: string;
  organizationId: string;
  worker: string;
  now: string;
}

export type DeliveryCommand =
  | (DeliveryAbout & { kind: 'ClaimDeliveries'; until: string })
  | (DeliveryAbout & { kind: 'RecordProcessed'; eventId: string; status: 'success' | 'failed'; logs: TraceLog[] });

const heldByOther = (state: DeliveryState, worker: string, now: string) =>
  state.claim !== null && state.claim.worker !== worker && state.claim.until > now;

export const deliveryDecider: Decider<DeliveryCommand, DeliveryEvent, DeliveryState> = {
  initialState: () => ({ processed: new Set(), claim: null }),
  evolve: (state, event) =>
    event.type === 'IntegrationDeliveriesClaimed'
      ? { ...state, claim: { worker: event.data.worker, until: event.data.until } }
      : { ...state, processed: new Set(state.processed).add(event.data.eventId) },
  decide: (command, state) => {
    const { installationId, integrationName, organizationId, worker, now } = command;
    if (heldByOther(state, worker, now))
      return DomainError.conflict(
        `the deliveries of installation ${installationId} are held by worker ${state.claim!.worker} until ${state.claim!.until}`,
      );
    if (command.kind === 'ClaimDeliveries')
      return [
        { type: 'IntegrationDeliveriesClaimed', data: { installationId, integrationName, organizationId, worker, until: command.until } },
      ];
    if (state.processed.has(command.eventId)) return [];
    return [
      {
        type: 'IntegrationEventProcessed',
        data: {
          installationId,
          integrationName,
          organizationId,
          eventId: command.eventId,
          status: command.status,
          logs: command.logs,
          processedAt: now,
          worker,
        },
      },
    ];
  },
};
