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
import { INTEGRATION_ORGANIZATIONS, type IntegrationOrganizations } from './integrations.needs';
import { IntegrationAccess } from './integration.access';
import { policyText } from './integration.content-security-policy';
import { integrationDecider, integrationStream } from './integration.decider';
import type { IntegrationDefinition } from './integration.events';
import { INTEGRATIONS, type IntegrationDoc } from './integration.projections';
import { IntegrationRuntime } from './integration.runtime';
import { IntegrationSecrets } from './integration.secrets';

/*
 * The integration reads. Private integrations are visible to their owner's members only; unlisted
 * ones are read by name but listed only for their owner. Installations are read in
 * integration-installations.queries.ts, integration events in integration-events.queries.ts.
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
  RenderComponentHandler,
];

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
