import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import type { Versioned } from '#platform/http/etag';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { INTEGRATION_SITES, INTEGRATION_SPACES, type IntegrationSites, type IntegrationSpaces } from './integrations.needs';
import { IntegrationAccess } from './integration.access';
import type { InstallationPlace } from './integration.events';
import {
  INSTALLATIONS,
  PLACE_INSTALLATIONS,
  placeIdOf,
  type InstallationDoc,
  type IntegrationDoc,
  type PlaceInstallationDoc,
} from './integration.projections';
import { grantedScopes, pendingScopes } from './integration.scopes';

/*
 * The installation reads. Installations are the owner's admins' (every installation) and each
 * installing organization's admins' (their own): IntegrationAccess.
 */

/** An installation as the API answers it. */
export type InstallationObject = ReturnType<typeof presentInstallation>;
/** An installation on a space or a site as the API answers it. */
export type PlaceInstallationObject = Awaited<ReturnType<typeof presentPlaceInstallation>>;

/** `GET /integrations/{name}/installations`: those the caller may see (IntegrationAccess.installationScope), oldest first. */
export class ListInstallations extends Query<ListEnvelope<InstallationObject>> {
  constructor(
    readonly name: string,
    readonly caller: Caller,
    readonly query: { externalId?: string; page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListInstallations)
export class ListInstallationsHandler implements IQueryHandler<ListInstallations> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: IntegrationAccess,
  ) {}

  async execute({ name, caller, query }: ListInstallations): Promise<ListEnvelope<InstallationObject>> {
    const { integration, filter } = await this.access.installationScope(name, caller);
    const page = await this.reads
      .collection<InstallationDoc>(INSTALLATIONS)
      .find(
        { ...filter, uninstalled: { $exists: false }, ...(query.externalId !== undefined ? { externalIds: query.externalId } : {}) },
        { sort: { createdAt: 1 }, limit: query.limit, after: query.page },
      );
    return listEnvelope({
      items: page.items.map((installation) => presentInstallation(installation, integration, this.config.publicUrl)),
      count: page.count,
      next: page.next,
    });
  }
}

/** `GET /integrations/{name}/installations/{installationId}`: the installation, with the revision of its stream that document is at (its ETag). */
export class GetInstallation extends Query<Versioned<InstallationObject>> {
  constructor(
    readonly name: string,
    readonly installationId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetInstallation)
export class GetInstallationHandler implements IQueryHandler<GetInstallation> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: IntegrationAccess,
  ) {}

  async execute({ name, installationId, caller }: GetInstallation): Promise<Versioned<InstallationObject>> {
    const { installation, integration } = await this.access.visibleInstallation(name, installationId, caller);
    return { object: presentInstallation(installation, integration, this.config.publicUrl), streamRevision: installation.streamRevision };
  }
}

/**
 * `GET /integrations/{name}/spaces|sites` and `…/installations/{installationId}/spaces|sites`: space
 * or site installations of the integration the caller may see (one installation's, or all of
 * them), places as ids or as Space / Site objects.
 */
export class ListPlaceInstallations extends Query<ListEnvelope<PlaceInstallationObject>> {
  constructor(
    readonly place: InstallationPlace,
    readonly name: string,
    readonly caller: Caller,
    readonly query: { installationId?: string; externalId?: string; extended?: boolean; page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListPlaceInstallations)
export class ListPlaceInstallationsHandler implements IQueryHandler<ListPlaceInstallations> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(INTEGRATION_SPACES) private readonly spaces: IntegrationSpaces,
    @Inject(INTEGRATION_SITES) private readonly sites: IntegrationSites,
    private readonly access: IntegrationAccess,
  ) {}

  async execute({ place, name, caller, query }: ListPlaceInstallations): Promise<ListEnvelope<PlaceInstallationObject>> {
    const { filter } = await this.access.installationScope(name, caller);
    const visible = await this.reads
      .collection<InstallationDoc>(INSTALLATIONS)
      .find(
        { ...filter, uninstalled: { $exists: false }, ...(query.installationId !== undefined ? { _id: query.installationId } : {}) },
        { limit: 1000, count: false },
      );
    if (query.installationId !== undefined && visible.items.length === 0)
      throw DomainError.notFound(`no installation ${query.installationId} of integration ${name}`);
    const page = await this.reads.collection<PlaceInstallationDoc>(PLACE_INSTALLATIONS[place]).find(
      {
        installationId: { $in: visible.items.map((installation) => installation._id) },
        ...(query.externalId !== undefined ? { externalIds: query.externalId } : {}),
      },
      { sort: { _id: 1 }, limit: query.limit, after: query.page },
    );
    const places = place === 'space' ? this.spaces : this.sites;
    const items = await Promise.all(
      page.items.map((entry) => presentPlaceInstallation(place, entry, query.extended === true, caller, this.config.publicUrl, places)),
    );
    return listEnvelope({ items, count: page.count, next: page.next });
  }
}

/**
 * `GET …/installations/{installationId}/spaces|sites/{placeId}`: the installation on a place,
 * versioned by the installation's stream (where it lives). The installation is read first: a
 * change landing between the two reads makes the ETag older than the body (a write naming it is
 * refused, 412), never newer (a write based on a body it has not seen).
 */
export class GetPlaceInstallation extends Query<Versioned<PlaceInstallationObject>> {
  constructor(
    readonly place: InstallationPlace,
    readonly name: string,
    readonly installationId: string,
    readonly placeId: string,
    readonly caller: Caller,
    readonly extended = false,
  ) {
    super();
  }
}

@QueryHandler(GetPlaceInstallation)
export class GetPlaceInstallationHandler implements IQueryHandler<GetPlaceInstallation> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(INTEGRATION_SPACES) private readonly spaces: IntegrationSpaces,
    @Inject(INTEGRATION_SITES) private readonly sites: IntegrationSites,
    private readonly access: IntegrationAccess,
  ) {}

  async execute({
    place,
    name,
    installationId,
    placeId,
    caller,
    extended,
  }: GetPlaceInstallation): Promise<Versioned<PlaceInstallationObject>> {
    const { installation } = await this.access.visibleInstallation(name, installationId, caller);
    const entry = await this.reads.collection<PlaceInstallationDoc>(PLACE_INSTALLATIONS[place]).get(`${installationId}:${placeId}`);
    if (!entry) throw DomainError.notFound(`integration ${name} is not installed on ${place} ${placeId}`);
    const places = place === 'space' ? this.spaces : this.sites;
    return {
      object: await presentPlaceInstallation(place, entry, extended, caller, this.config.publicUrl, places),
      streamRevision: installation.streamRevision,
    };
  }
}

export const installationQueryHandlers = [
  ListInstallationsHandler,
  GetInstallationHandler,
  ListPlaceInstallationsHandler,
  GetPlaceInstallationHandler,
];

/**
 * `scopes` and `pendingScopes` (extensions): the integration's scopes in force in the installation
 * (asked for and accepted), and those it asks for that an admin has not accepted yet (PATCH `scopes`).
 */
function presentInstallation(installation: InstallationDoc, integration: IntegrationDoc, publicUrl: string) {
  const accepted = installation.scopes ?? [];
  const location = `${publicUrl}/v1/integrations/${installation.integrationName}/installations/${installation._id}`;
  return {
    object: 'integration-installation' as const,
    id: installation._id,
    integration: installation.integrationName,
    status: installation.status,
    space_selection: installation.spaceSelection,
    site_selection: installation.siteSelection ?? 'selected',
    spaces: installation.spaces,
    configuration: installation.configuration,
    scopes: grantedScopes(accepted, integration.definition.scopes),
    pendingScopes: pendingScopes(accepted, integration.definition.scopes),
    createdAt: installation.createdAt,
    updatedAt: installation.updatedAt,
    urls: {
      location,
      app: `${publicUrl}/o/${installation.organizationId}/integrations/${installation.integrationName}`,
      publicEndpoint: `${location}/public`,
      publicContentEndpoint: `${location}/public`,
    },
    externalIds: (installation as InstallationDoc & { externalIds?: string[] }).externalIds ?? [],
    target: { organization: installation.organizationId },
  };
}

/** `places`: the port presenting the place's Space or Site object (`extended`). */
async function presentPlaceInstallation(
  place: InstallationPlace,
  entry: PlaceInstallationDoc,
  extended: boolean,
  caller: Caller,
  publicUrl: string,
  places: IntegrationSpaces | IntegrationSites,
) {
  const placeId = placeIdOf(place, entry);
  const location = `${publicUrl}/v1/integrations/${entry.integrationName}/installations/${entry.installationId}/${place}s/${placeId}`;
  const object = extended ? await places.present(placeId, caller) : null;
  return {
    object: `integration-${place}-installation` as const,
    integration: entry.integrationName,
    installation: entry.installationId,
    status: entry.status,
    configuration: entry.configuration,
    externalIds: [] as string[],
    urls: { location, publicEndpoint: `${location}/public`, publicContentEndpoint: `${location}/public` },
    [place]: object ?? placeId,
  };
}
