import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { BLOB_STORE, type BlobStore } from '#blob-store/blob-store.port';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import type { Versioned } from '#platform/http/etag';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import { READ_STORE, type Filter, type ReadStore } from '#read-store/read-store.port';
import { COMMAND_RUNNER, type CommandRunner } from '#runtime/command-runner';
import {
  INTEGRATION_ORGANIZATIONS,
  INTEGRATION_SITES,
  INTEGRATION_SPACES,
  type IntegrationOrganizations,
  type IntegrationSites,
  type IntegrationSpaces,
} from './integrations.needs';
import { IntegrationAccess } from './integration.access';
import { policyText } from './integration.content-security-policy';
import { integrationDecider, integrationStream } from './integration.decider';
import { IntegrationEventPresenter } from './integration.event-presenter';
import type { InstallationPlace, IntegrationDefinition } from './integration.events';
import {
  INSTALLATIONS,
  INTEGRATION_EVENTS,
  INTEGRATIONS,
  PLACE_INSTALLATIONS,
  placeIdOf,
  type InstallationDoc,
  type IntegrationDoc,
  type IntegrationEventDoc,
  type PlaceInstallationDoc,
} from './integration.projections';
import { IntegrationRuntime } from './integration.runtime';
import { grantedScopes, pendingScopes } from './integration.scopes';
import { IntegrationSecrets } from './integration.secrets';

/*
 * The integration reads. Private integrations are visible to their owner's members only; unlisted
 * ones are read by name but listed only for their owner. Installations and events are the owner's
 * admins' (every installation) and each installing organization's admins' (their own): IntegrationAccess.
 */

export interface IntegrationListQuery {
  search?: string;
  category?: string;
  blockDomain?: string;
  blocks?: boolean;
  contentSources?: boolean;
  owner?: string;
  scope?: string;
  target?: string;
  page?: string;
  limit?: number;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * How long a read of an integration's events waits for the deliveries in progress when it comes
 * (those of a moment ago, usually a few milliseconds away): an event is shown once delivered, with
 * the outcome (`success` or `failed`, the platform's only statuses), never before.
 */
export const EVENTS_SETTLE_MS = 2_000;
const SETTLE_POLL_MS = 20;

/** An integration as the API answers it. */
export interface IntegrationObject {
  object: 'integration';
  name: string;
  version: number;
  runtime: IntegrationDefinition['runtime'];
  title: string;
  description: string;
  summary: string;
  previewImages: string[];
  target: IntegrationDefinition['target'];
  verified: false;
  visibility: IntegrationDefinition['visibility'];
  scopes: string[];
  categories: string[];
  blocks: IntegrationDefinition['blocks'];
  contentSources: IntegrationDefinition['contentSources'];
  configurations: IntegrationDefinition['configurations'];
  externalLinks: IntegrationDefinition['externalLinks'];
  owner?: { object: 'organization'; id: string };
  urls: { location: string; icon?: string; app: string; assets: string; publicEndpoint: string; publicContentEndpoint: string };
  permissions: { admin: boolean; install: boolean };
  /** As text: the interface's type (the platform also allows text); one published as an object of directives reads as the header it makes. */
  contentSecurityPolicy?: string;
}

/** An installation as the API answers it. */
export type InstallationObject = ReturnType<typeof presentInstallation>;
/** An installation on a space or a site as the API answers it. */
export type PlaceInstallationObject = Awaited<ReturnType<typeof presentPlaceInstallation>>;

/** `GET /integrations`: public integrations and those of the caller's organizations, by name; the filters are the interface's. */
export class ListIntegrations extends Query<ListEnvelope<IntegrationObject>> {
  constructor(
    readonly caller: Caller,
    readonly query: IntegrationListQuery,
  ) {
    super();
  }
}

@QueryHandler(ListIntegrations)
export class ListIntegrationsHandler implements IQueryHandler<ListIntegrations> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(INTEGRATION_ORGANIZATIONS) private readonly organizations: IntegrationOrganizations,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async execute({ caller, query }: ListIntegrations): Promise<ListEnvelope<IntegrationObject>> {
    const mine = caller.kind === 'user' ? await this.organizations.memberOrganizations(caller.userId) : [];
    const filter: Filter = {
      deleted: { $exists: false },
      $or: [{ 'definition.visibility': 'public' }, { organizationId: { $in: mine } }],
      ...(query.search !== undefined
        ? {
            $and: [
              {
                $or: [
                  { _id: { $regex: escapeRegExp(query.search), $options: 'i' } },
                  { 'definition.title': { $regex: escapeRegExp(query.search), $options: 'i' } },
                ],
              },
            ],
          }
        : {}),
      ...(query.category !== undefined ? { 'definition.categories': query.category } : {}),
      ...(query.blockDomain !== undefined
        ? { 'definition.blocks.urlUnfurl': { $regex: `^(https?://)?([^/]*\\.)?${escapeRegExp(query.blockDomain)}(/|$)`, $options: 'i' } }
        : {}),
      ...(query.blocks !== undefined ? { 'definition.blocks.0': { $exists: query.blocks } } : {}),
      ...(query.contentSources !== undefined ? { 'definition.contentSources.0': { $exists: query.contentSources } } : {}),
      ...(query.owner !== undefined ? { organizationId: query.owner } : {}),
      ...(query.scope !== undefined ? { 'definition.scopes': query.scope } : {}),
      ...(query.target !== undefined ? { 'definition.target': query.target } : {}),
    };
    const page = await this.reads
      .collection<IntegrationDoc>(INTEGRATIONS)
      .find(filter, { sort: { _id: 1 }, limit: query.limit, after: query.page });
    const roleIn = async (organizationId: string) => {
      const role = caller.kind === 'user' ? await this.organizations.roleOf(organizationId, caller.userId) : null;
      return role?.member ? { member: true, role: role.role } : { member: false, role: null };
    };
    const items = await Promise.all(
      page.items.map(async (integration) =>
        presentIntegration(integration, await roleIn(integration.organizationId), caller, this.config.publicUrl, this.organizations),
      ),
    );
    return listEnvelope({ items, count: page.count, next: page.next });
  }
}

/** `GET /integrations/{name}`: the integration, with the revision of its stream that document is at (its ETag). */
export class GetIntegration extends Query<Versioned<IntegrationObject>> {
  constructor(
    readonly name: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetIntegration)
export class GetIntegrationHandler implements IQueryHandler<GetIntegration> {
  constructor(
    @Inject(INTEGRATION_ORGANIZATIONS) private readonly organizations: IntegrationOrganizations,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly access: IntegrationAccess,
  ) {}

  async execute({ name, caller }: GetIntegration): Promise<Versioned<IntegrationObject>> {
    const { integration, member, ownerRole } = await this.access.visible(name, caller);
    return {
      object: await presentIntegration(integration, { member, role: ownerRole }, caller, this.config.publicUrl, this.organizations),
      streamRevision: integration.streamRevision,
    };
  }
}

/** `GET /integrations/{name}/assets/{hash}` (extension): an icon or preview image of an integration the caller may see, as stored. */
export class GetIntegrationAsset extends Query<Buffer> {
  constructor(
    readonly name: string,
    readonly hash: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetIntegrationAsset)
export class GetIntegrationAssetHandler implements IQueryHandler<GetIntegrationAsset> {
  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    private readonly access: IntegrationAccess,
  ) {}

  async execute({ name, hash, caller }: GetIntegrationAsset): Promise<Buffer> {
    const { integration } = await this.access.visible(name, caller);
    const { icon, previewImages } = integration.definition;
    if (hash !== icon && !previewImages.includes(hash)) throw DomainError.notFound(`no asset ${hash.slice(0, 80)} of integration ${name}`);
    return this.blobs.read(hash);
  }
}

/**
 * `GET /integrations/{name}/dev` (extension): the tunnel, as the owner's admins see it, and the
 * secret its deliveries are signed with, with the integration's revision (its ETag: development
 * mode lives in the integration's stream). The signing secret is in no read model: it is read from
 * the integration's stream and opened here.
 */
export class GetDevMode extends Query<Versioned<{ tunnelUrl: string | null; all: boolean; signingSecret: string }>> {
  constructor(
    readonly name: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetDevMode)
export class GetDevModeHandler implements IQueryHandler<GetDevMode> {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly runner: CommandRunner,
    private readonly access: IntegrationAccess,
    private readonly secrets: IntegrationSecrets,
  ) {}

  async execute({ name, caller }: GetDevMode): Promise<Versioned<{ tunnelUrl: string | null; all: boolean; signingSecret: string }>> {
    const integration = await this.access.requireOwnerAdmin(name, caller);
    // The signing secret is set at the first publication and never changes: the revision of the tunnel's read versions the whole answer.
    const { state } = await this.runner.load(integrationStream(name), integrationDecider);
    return {
      object: {
        tunnelUrl: integration.dev?.tunnelUrl ?? null,
        all: integration.dev?.all ?? false,
        signingSecret: this.secrets.open(state.published!.signingSecret),
      },
      streamRevision: integration.streamRevision,
    };
  }
}

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

/**
 * `GET /integrations/{name}/events`: the owner's admins, newest first; the events delivered (or
 * whose delivery failed), after waiting a moment (EVENTS_SETTLE_MS) for those being delivered.
 */
export class ListIntegrationEvents extends Query<ListEnvelope<PresentedEvent>> {
  constructor(
    readonly name: string,
    readonly caller: Caller,
    readonly paging: { page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListIntegrationEvents)
export class ListIntegrationEventsHandler implements IQueryHandler<ListIntegrationEvents> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: IntegrationAccess,
    private readonly presenter: IntegrationEventPresenter,
  ) {}

  async execute({ name, caller, paging }: ListIntegrationEvents): Promise<ListEnvelope<PresentedEvent>> {
    await this.access.requireOwnerAdmin(name, caller);
    await deliveriesSettled(this.reads, { integrationName: name, status: 'pending' });
    const page = await this.reads
      .collection<IntegrationEventDoc>(INTEGRATION_EVENTS)
      .find(
        { integrationName: name, status: { $in: ['success', 'failed'] } },
        { sort: { sequence: -1 }, limit: paging.limit, after: paging.page },
      );
    return listEnvelope({ items: await presentEvents(page.items, this.presenter), count: page.count, next: page.next });
  }
}

/** `GET /integrations/{name}/events/{eventId}`: one event with its trace, once delivered; one still being delivered after EVENTS_SETTLE_MS is 404, as it is not listed yet. */
export class GetIntegrationEvent extends Query<{ event: PresentedEvent; trace: { logs: IntegrationEventDoc['logs'] } }> {
  constructor(
    readonly name: string,
    readonly eventId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetIntegrationEvent)
export class GetIntegrationEventHandler implements IQueryHandler<GetIntegrationEvent> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: IntegrationAccess,
    private readonly presenter: IntegrationEventPresenter,
  ) {}

  async execute({
    name,
    eventId,
    caller,
  }: GetIntegrationEvent): Promise<{ event: PresentedEvent; trace: { logs: IntegrationEventDoc['logs'] } }> {
    await this.access.requireOwnerAdmin(name, caller);
    const events = this.reads.collection<IntegrationEventDoc>(INTEGRATION_EVENTS);
    let event = await events.get(eventId);
    if (!event || event.integrationName !== name) throw DomainError.notFound(`no event ${eventId} of integration ${name}`);
    if (event.status === 'pending') {
      await deliveriesSettled(this.reads, { _id: eventId, status: 'pending' });
      event = (await events.get(eventId))!;
      if (event.status === 'pending')
        throw DomainError.notFound(`event ${eventId} of integration ${name} is still being delivered: it is shown once delivered`);
    }
    const [presented] = await presentEvents([event], this.presenter);
    return { event: presented, trace: { logs: event.logs } };
  }
}

/** What the script's component renders, and the integration's content security policy as header text (null: none). */
export interface RenderedComponent {
  rendered: Awaited<ReturnType<IntegrationRuntime['render']>>;
  contentSecurityPolicy: string | null;
}

/** `POST|GET /integrations/{name}/render`: the script's component of an integration the caller may see, rendered in the sandbox. */
export class RenderComponent extends Query<RenderedComponent> {
  constructor(
    readonly name: string,
    readonly request: {
      componentId: string;
      props: Record<string, unknown>;
      state: Record<string, unknown>;
      context: Record<string, unknown>;
      action?: unknown;
    },
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(RenderComponent)
export class RenderComponentHandler implements IQueryHandler<RenderComponent> {
  constructor(
    private readonly access: IntegrationAccess,
    private readonly runtime: IntegrationRuntime,
  ) {}

  async execute({ name, request, caller }: RenderComponent): Promise<RenderedComponent> {
    const { integration } = await this.access.visible(name, caller);
    const rendered = await this.runtime.render(integration, request);
    return { rendered, contentSecurityPolicy: policyText(integration.definition.contentSecurityPolicy) };
  }
}

export const integrationQueryHandlers = [
  ListIntegrationsHandler,
  GetIntegrationHandler,
  GetIntegrationAssetHandler,
  GetDevModeHandler,
  ListInstallationsHandler,
  GetInstallationHandler,
  ListPlaceInstallationsHandler,
  GetPlaceInstallationHandler,
  ListIntegrationEventsHandler,
  GetIntegrationEventHandler,
  RenderComponentHandler,
];

// ---- shared by the handlers ---------------------------------------------------------------------

/** Waits at most EVENTS_SETTLE_MS for the events matching `waiting` now (at most 100 of them) to be delivered. */
async function deliveriesSettled(reads: ReadStore, waiting: Filter): Promise<void> {
  const events = reads.collection<IntegrationEventDoc>(INTEGRATION_EVENTS);
  const pending = await events.find(waiting, { limit: 100, count: false });
  if (pending.items.length === 0) return;
  const ids = pending.items.map((event) => event._id);
  const giveUpAt = Date.now() + EVENTS_SETTLE_MS;
  while (Date.now() < giveUpAt) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
    if ((await events.find({ _id: { $in: ids }, status: 'pending' }, { limit: 1, count: false })).items.length === 0) return;
  }
}

// ---- presenting ---------------------------------------------------------------------------------

/** `standing`: the caller's in the organization that publishes it: the owner is presented as the caller sees it, its `permissions` the caller's there. */
async function presentIntegration(
  integration: IntegrationDoc,
  standing: { member: boolean; role: string | null },
  caller: Caller,
  publicUrl: string,
  organizations: IntegrationOrganizations,
): Promise<IntegrationObject> {
  const base = `${publicUrl}/v1/integrations/${integration._id}`;
  const { definition } = integration;
  const asset = (hash: string) => `${base}/assets/${hash}`;
  const owner = await organizations.present(integration.organizationId, standing.role, standing.member);
  // Built member by member, in the same order: on Node 20 a literal with conditional spreads followed by members takes V8's slow path.
  const object = {
    object: 'integration',
    name: integration._id,
    version: integration.version,
    runtime: definition.runtime,
    title: definition.title,
    description: definition.description,
    summary: definition.summary,
    previewImages: definition.previewImages.map(asset),
    target: definition.target,
    verified: false,
    visibility: definition.visibility,
    scopes: definition.scopes,
    categories: definition.categories,
    blocks: definition.blocks,
    contentSources: definition.contentSources,
    configurations: definition.configurations,
    externalLinks: definition.externalLinks,
  } as IntegrationObject;
  if (owner) object.owner = owner;
  const urls = { location: base } as IntegrationObject['urls'];
  if (definition.icon) urls.icon = asset(definition.icon);
  urls.app = `${publicUrl}/integrations/${integration._id}`;
  urls.assets = `${base}/assets`;
  urls.publicEndpoint = `${base}/public`;
  // The platform's: equal to publicEndpoint when no separate content origin is configured (none is).
  urls.publicContentEndpoint = urls.publicEndpoint;
  object.urls = urls;
  object.permissions = { admin: standing.member && standing.role === 'admin', install: caller.kind === 'user' };
  const policy = policyText(definition.contentSecurityPolicy);
  if (policy !== null) object.contentSecurityPolicy = policy;
  return object;
}

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

/** Delivered events, their payloads as integrations receive them. */
async function presentEvents(events: readonly IntegrationEventDoc[], presenter: IntegrationEventPresenter): Promise<PresentedEvent[]> {
  const payloads = await presenter.events(events.map((event) => event.payload));
  return events.map((event, index) => ({
    object: 'integration-event' as const,
    id: event._id,
    integrationId: event.integrationName,
    installationId: event.installationId,
    createdAt: event.createdAt,
    payload: payloads[index],
    status: event.status as 'success' | 'failed',
  }));
}

/** An integration event as `…/events` answers it (delivered: `success` or `failed`). */
export interface PresentedEvent {
  object: 'integration-event';
  id: string;
  integrationId: string;
  installationId: string;
  createdAt: string;
  payload: Record<string, unknown>;
  status: 'success' | 'failed';
}
