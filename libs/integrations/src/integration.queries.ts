import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../platform/src/config';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import type { Versioned } from '../../platform/src/http/etag';
import { listEnvelope, type ListEnvelope } from '../../platform/src/http/list';
import { READ_STORE, type Filter, type ReadStore } from '../../read-store/src/read-store.port';
import { INTEGRATION_ORGANIZATIONS, INTEGRATION_SITES, INTEGRATION_SPACES, type IntegrationOrganizations, type IntegrationSites, type IntegrationSpaces } from './integrations-ports.port';
import { policyText } from './integration.content-security-policy';
import { IntegrationEventPresenter } from './integration.event-presenter';
import type { InstallationPlace, IntegrationDefinition } from './integration.events';
import { grantedScopes, pendingScopes } from './integration.scopes';
import { INSTALLATIONS, INTEGRATION_EVENTS, INTEGRATIONS, PLACE_INSTALLATIONS, placeIdOf, type InstallationDoc, type IntegrationDoc, type IntegrationEventDoc, type PlaceInstallationDoc } from './integration.projections';

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

/**
 * The integration reads. Private integrations are visible to their owner's members only; unlisted
 * ones are read by name but listed only for their owner. Installations and events are the owner's
 * admins' (every installation) and each installing organization's admins' (their own).
 */
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

@Injectable()
export class IntegrationQueries {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(INTEGRATION_ORGANIZATIONS) private readonly organizations: IntegrationOrganizations,
    @Inject(INTEGRATION_SPACES) private readonly spaces: IntegrationSpaces,
    @Inject(INTEGRATION_SITES) private readonly sites: IntegrationSites,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly presenter: IntegrationEventPresenter,
  ) {}

  /** The integration as the caller may see it, or 404; `ownerRole`: the caller's role in the organization that publishes it (null outside it). */
  async visible(name: string, caller: Caller): Promise<{ integration: IntegrationDoc; member: boolean; ownerAdmin: boolean; ownerRole: string | null }> {
    const integration = await this.reads.collection<IntegrationDoc>(INTEGRATIONS).get(name);
    if (!integration || integration.deleted) throw DomainError.notFound(`no integration ${name}`);
    const role = caller.kind === 'user' ? await this.organizations.roleOf(integration.organizationId, caller.userId) : null;
    const member = role?.member === true;
    if (integration.definition.visibility === 'private' && !member) throw DomainError.notFound(`no integration ${name}`);
    const ownerRole = member ? (role?.role ?? null) : null;
    return { integration, member, ownerAdmin: ownerRole === 'admin', ownerRole };
  }

  /** The integration, with the revision of its stream that document is at (its ETag). */
  async get(name: string, caller: Caller): Promise<Versioned<IntegrationObject>> {
    const { integration, member, ownerRole } = await this.visible(name, caller);
    return { object: await this.present(integration, { member, role: ownerRole }, caller), streamRevision: integration.streamRevision };
  }

  /** `GET /integrations/{name}/dev`'s tunnel, as the owner's admins see it, with the integration's revision (its ETag: development mode lives in the integration's stream). */
  async devMode(name: string, caller: Caller): Promise<Versioned<{ tunnelUrl: string | null; all: boolean }>> {
    const integration = await this.requireOwnerAdmin(name, caller);
    return { object: { tunnelUrl: integration.dev?.tunnelUrl ?? null, all: integration.dev?.all ?? false }, streamRevision: integration.streamRevision };
  }

  async list(caller: Caller, query: IntegrationListQuery) {
    const mine = caller.kind === 'user' ? await this.organizations.memberOrganizations(caller.userId) : [];
    const filter: Filter = {
      deleted: { $exists: false },
      $or: [{ 'definition.visibility': 'public' }, { organizationId: { $in: mine } }],
      ...(query.search !== undefined ? { $and: [{ $or: [{ _id: { $regex: escapeRegExp(query.search), $options: 'i' } }, { 'definition.title': { $regex: escapeRegExp(query.search), $options: 'i' } }] }] } : {}),
      ...(query.category !== undefined ? { 'definition.categories': query.category } : {}),
      ...(query.blockDomain !== undefined ? { 'definition.blocks.urlUnfurl': { $regex: `^(https?://)?([^/]*\\.)?${escapeRegExp(query.blockDomain)}(/|$)`, $options: 'i' } } : {}),
      ...(query.blocks !== undefined ? { 'definition.blocks.0': { $exists: query.blocks } } : {}),
      ...(query.contentSources !== undefined ? { 'definition.contentSources.0': { $exists: query.contentSources } } : {}),
      ...(query.owner !== undefined ? { organizationId: query.owner } : {}),
      ...(query.scope !== undefined ? { 'definition.scopes': query.scope } : {}),
      ...(query.target !== undefined ? { 'definition.target': query.target } : {}),
    };
    const page = await this.reads.collection<IntegrationDoc>(INTEGRATIONS).find(filter, { sort: { _id: 1 }, limit: query.limit, after: query.page });
    const roleIn = async (organizationId: string) => {
      const role = caller.kind === 'user' ? await this.organizations.roleOf(organizationId, caller.userId) : null;
      return role?.member ? { member: true, role: role.role } : { member: false, role: null };
    };
    const items = await Promise.all(page.items.map(async (integration) => this.present(integration, await roleIn(integration.organizationId), caller)));
    return listEnvelope({ items, count: page.count, next: page.next });
  }

  /** The organizations whose installations the caller may see: all for the owner's admins, else those they administer. */
  private async installationScope(name: string, caller: Caller): Promise<{ integration: IntegrationDoc; filter: Filter }> {
    const { integration, ownerAdmin } = await this.visible(name, caller);
    if (ownerAdmin) return { integration, filter: { integrationName: name } };
    const mine = caller.kind === 'user' ? await this.organizations.memberOrganizations(caller.userId) : [];
    const administered: string[] = [];
    for (const organizationId of mine) if ((await this.organizations.roleOf(organizationId, (caller as { userId: string }).userId))?.role === 'admin') administered.push(organizationId);
    return { integration, filter: { integrationName: name, organizationId: { $in: administered } } };
  }

  async installations(name: string, caller: Caller, query: { externalId?: string; page?: string; limit?: number }) {
    const { integration, filter } = await this.installationScope(name, caller);
    const page = await this.reads
      .collection<InstallationDoc>(INSTALLATIONS)
      .find({ ...filter, uninstalled: { $exists: false }, ...(query.externalId !== undefined ? { externalIds: query.externalId } : {}) }, { sort: { createdAt: 1 }, limit: query.limit, after: query.page });
    return listEnvelope({ items: page.items.map((installation) => this.presentInstallation(installation, integration)), count: page.count, next: page.next });
  }

  /** The installation, with the revision of its stream that document is at (its ETag). */
  async installation(name: string, installationId: string, caller: Caller) {
    const { installation, integration } = await this.visibleInstallation(name, installationId, caller);
    return { object: this.presentInstallation(installation, integration), streamRevision: installation.streamRevision };
  }

  async installationDoc(name: string, installationId: string, caller: Caller): Promise<InstallationDoc> {
    return (await this.visibleInstallation(name, installationId, caller)).installation;
  }

  private async visibleInstallation(name: string, installationId: string, caller: Caller): Promise<{ installation: InstallationDoc; integration: IntegrationDoc }> {
    const { integration, filter } = await this.installationScope(name, caller);
    const installation = await this.reads.collection<InstallationDoc>(INSTALLATIONS).findOne({ ...filter, _id: installationId, uninstalled: { $exists: false } });
    if (!installation) throw DomainError.notFound(`no installation ${installationId} of integration ${name}`);
    return { installation, integration };
  }

  /** Space or site installations of the integration the caller may see (one installation's, or all of them), places as ids or as Space / Site objects. */
  async placeInstallations(place: InstallationPlace, name: string, caller: Caller, query: { installationId?: string; externalId?: string; extended?: boolean; page?: string; limit?: number }) {
    const { filter } = await this.installationScope(name, caller);
    const visible = await this.reads.collection<InstallationDoc>(INSTALLATIONS).find({ ...filter, uninstalled: { $exists: false }, ...(query.installationId !== undefined ? { _id: query.installationId } : {}) }, { limit: 1000, count: false });
    if (query.installationId !== undefined && visible.items.length === 0) throw DomainError.notFound(`no installation ${query.installationId} of integration ${name}`);
    const page = await this.reads
      .collection<PlaceInstallationDoc>(PLACE_INSTALLATIONS[place])
      .find({ installationId: { $in: visible.items.map((installation) => installation._id) }, ...(query.externalId !== undefined ? { externalIds: query.externalId } : {}) }, { sort: { _id: 1 }, limit: query.limit, after: query.page });
    const items = await Promise.all(page.items.map((entry) => this.presentPlaceInstallation(place, entry, query.extended === true, caller)));
    return listEnvelope({ items, count: page.count, next: page.next });
  }

  /**
   * The installation on a place, versioned by the installation's stream (where it lives). The
   * installation is read first: a change landing between the two reads makes the ETag older than
   * the body (a write naming it is refused, 412), never newer (a write based on a body it has not seen).
   */
  async placeInstallation(place: InstallationPlace, name: string, installationId: string, placeId: string, caller: Caller, extended = false) {
    const installation = await this.installationDoc(name, installationId, caller);
    const entry = await this.reads.collection<PlaceInstallationDoc>(PLACE_INSTALLATIONS[place]).get(`${installationId}:${placeId}`);
    if (!entry) throw DomainError.notFound(`integration ${name} is not installed on ${place} ${placeId}`);
    return { object: await this.presentPlaceInstallation(place, entry, extended, caller), streamRevision: installation.streamRevision };
  }

  /**
   * `GET /integrations/{name}/events`: the owner's admins, newest first; the events delivered (or
   * whose delivery failed), after waiting a moment (EVENTS_SETTLE_MS) for those being delivered.
   */
  async events(name: string, caller: Caller, paging: { page?: string; limit?: number }): Promise<ListEnvelope<PresentedEvent>> {
    await this.requireOwnerAdmin(name, caller);
    await this.deliveriesSettled({ integrationName: name, status: 'pending' });
    const page = await this.reads.collection<IntegrationEventDoc>(INTEGRATION_EVENTS).find({ integrationName: name, status: { $in: ['success', 'failed'] } }, { sort: { sequence: -1 }, limit: paging.limit, after: paging.page });
    return listEnvelope({ items: await this.presentEvents(page.items), count: page.count, next: page.next });
  }

  /** One event with its trace, once delivered; one still being delivered after EVENTS_SETTLE_MS is 404, as it is not listed yet. */
  async event(name: string, eventId: string, caller: Caller) {
    await this.requireOwnerAdmin(name, caller);
    const events = this.reads.collection<IntegrationEventDoc>(INTEGRATION_EVENTS);
    let event = await events.get(eventId);
    if (!event || event.integrationName !== name) throw DomainError.notFound(`no event ${eventId} of integration ${name}`);
    if (event.status === 'pending') {
      await this.deliveriesSettled({ _id: eventId, status: 'pending' });
      event = (await events.get(eventId))!;
      if (event.status === 'pending') throw DomainError.notFound(`event ${eventId} of integration ${name} is still being delivered: it is shown once delivered`);
    }
    const [presented] = await this.presentEvents([event]);
    return { event: presented, trace: { logs: event.logs } };
  }

  /** Waits at most EVENTS_SETTLE_MS for the events matching `waiting` now (at most 100 of them) to be delivered. */
  private async deliveriesSettled(waiting: Filter): Promise<void> {
    const events = this.reads.collection<IntegrationEventDoc>(INTEGRATION_EVENTS);
    const pending = await events.find(waiting, { limit: 100, count: false });
    if (pending.items.length === 0) return;
    const ids = pending.items.map((event) => event._id);
    const giveUpAt = Date.now() + EVENTS_SETTLE_MS;
    while (Date.now() < giveUpAt) {
      await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
      if ((await events.find({ _id: { $in: ids }, status: 'pending' }, { limit: 1, count: false })).items.length === 0) return;
    }
  }

  /** The owner's admins only: 404 for people outside the owner (what is inside an organization is not shown to them), 403 for its members below admin. */
  async requireOwnerAdmin(name: string, caller: Caller): Promise<IntegrationDoc> {
    const { integration, member, ownerAdmin } = await this.visible(name, caller);
    if (!member) throw DomainError.notFound(`no such resource of integration ${name}`);
    if (!ownerAdmin) throw DomainError.forbidden(`only admins of the organization that publishes integration ${name} may do this`);
    return integration;
  }

  // ---- presenting ---------------------------------------------------------------------------------

  /** `standing`: the caller's in the organization that publishes it: the owner is presented as the caller sees it, its `permissions` the caller's there. */
  private async present(integration: IntegrationDoc, standing: { member: boolean; role: string | null }, caller: Caller): Promise<IntegrationObject> {
    const base = `${this.config.publicUrl}/v1/integrations/${integration._id}`;
    const { definition } = integration;
    const asset = (hash: string) => `${base}/assets/${hash}`;
    const owner = await this.organizations.present(integration.organizationId, standing.role, standing.member);
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
    urls.app = `${this.config.publicUrl}/integrations/${integration._id}`;
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
  presentInstallation(installation: InstallationDoc, integration: IntegrationDoc) {
    const accepted = installation.scopes ?? [];
    const location = `${this.config.publicUrl}/v1/integrations/${installation.integrationName}/installations/${installation._id}`;
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
      urls: { location, app: `${this.config.publicUrl}/o/${installation.organizationId}/integrations/${installation.integrationName}`, publicEndpoint: `${location}/public`, publicContentEndpoint: `${location}/public` },
      externalIds: (installation as InstallationDoc & { externalIds?: string[] }).externalIds ?? [],
      target: { organization: installation.organizationId },
    };
  }

  private async presentPlaceInstallation(place: InstallationPlace, entry: PlaceInstallationDoc, extended: boolean, caller: Caller) {
    const placeId = placeIdOf(place, entry);
    const location = `${this.config.publicUrl}/v1/integrations/${entry.integrationName}/installations/${entry.installationId}/${place}s/${placeId}`;
    const object = extended ? await (place === 'space' ? this.spaces : this.sites).present(placeId, caller) : null;
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
  private async presentEvents(events: readonly IntegrationEventDoc[]): Promise<PresentedEvent[]> {
    const payloads = await this.presenter.events(events.map((event) => event.payload));
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
