import { Inject } from '@nestjs/common';
import { Command, CommandHandler } from '@nestjs/cqrs';
import { BLOB_STORE, type BlobStore } from '#blob-store/blob-store.port';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { DecidingHandler } from '#runtime/command-handler';
import {
  INTEGRATION_ORGANIZATIONS,
  INTEGRATION_SITES,
  INTEGRATION_SPACES,
  type IntegrationOrganizations,
  type IntegrationSites,
  type IntegrationSpaces,
} from './integrations.needs';
import { IntegrationAccess } from './integration.access';
import { checkPublishedComponents, checkPublishedConfigurations, validateConfiguration } from './integration.configuration';
import {
  deliveryDecider,
  deliveryStream,
  installationDecider,
  installationIdOf,
  installationStream,
  integrationDecider,
  integrationStream,
  type InstallationCommand,
  type IntegrationCommand,
  type IntegrationState,
} from './integration.decider';
import type {
  InstallationPlace,
  InstallationStatus,
  IntegrationDefinition,
  PlaceSettings,
  SpaceSelection,
  TraceLog,
} from './integration.events';
import { placeIdMember } from './integration.places';
import { INSTALLATIONS, PLACE_INSTALLATIONS, type InstallationDoc, type PlaceInstallationDoc } from './integration.projections';
import { IntegrationSecrets } from './integration.secrets';

/*
 * The integration writes: publishing (owner admins), the tunnel, installations (admins of the
 * organization installing) and their spaces, and the record of each integration event processed
 * (the delivery worker). Blobs (icon, previews, script) are stored before the event that names them.
 *
 * An integration and its development mode live in the integration's stream: `ifMatch` is its
 * revision, the ETag of the integration and of its `/dev`. An installation and its installations
 * on spaces and sites live in the installation's stream: `ifMatch` is its revision, the ETag of
 * each of them. Whoever may not make the change is refused (403, 404, 409) before the revision is
 * compared, so a 412 tells them nothing.
 */

/** A publication as the request sends it (every member optional; absent members keep their published value). */
export interface PublishInput extends Partial<Omit<IntegrationDefinition, 'icon' | 'previewImages' | 'script'>> {
  icon?: string;
  previewImages?: string[];
  script?: string;
  organization?: string;
  secrets?: Record<string, string>;
}

const EMPTY_DEFINITION: IntegrationDefinition = {
  runtime: 'v1',
  title: '',
  description: '',
  summary: '',
  icon: null,
  previewImages: [],
  visibility: 'private',
  target: 'all',
  scopes: [],
  categories: [],
  blocks: [],
  contentSources: [],
  externalLinks: [],
  configurations: {},
  script: null,
  contentSecurityPolicy: null,
};

/** The platform's IntegrationSecrets: at most 20, each a name mapped to text. */
export const MAX_SECRETS = 20;
const MAX_SECRET_LENGTH = 10_000;

function checkSecrets(secrets: Record<string, unknown>): void {
  const entries = Object.entries(secrets);
  if (entries.length > MAX_SECRETS) throw DomainError.invalid(`secrets must hold at most ${MAX_SECRETS} secrets`);
  for (const [name, value] of entries) {
    if (name.length === 0 || name.length > 100) throw DomainError.invalid('secrets: each name must be 1 to 100 characters');
    if (typeof value !== 'string' || value.length > MAX_SECRET_LENGTH)
      throw DomainError.invalid(`secrets.${name} must be text of at most ${MAX_SECRET_LENGTH} characters`);
  }
}

/** Largest icon or preview image, decoded. */
const MAX_IMAGE_BYTES = 512 * 1024;

/** `POST /integrations/{name}`: creates or updates; `version` + 1 each time. */
export class PublishIntegration extends Command<void> {
  constructor(
    readonly name: string,
    readonly input: PublishInput,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(PublishIntegration)
export class PublishIntegrationHandler extends DecidingHandler {
  constructor(
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    private readonly access: IntegrationAccess,
    private readonly secrets: IntegrationSecrets,
  ) {
    super();
  }

  async execute({ name, input, caller, ifMatch }: PublishIntegration): Promise<void> {
    const by = user(caller);
    const stream = integrationStream(name);
    const current = (await this.load(stream, integrationDecider)).state;
    const live = current.published !== null && !current.deleted;
    const organizationId = input.organization ?? (live ? current.published!.organizationId : undefined);
    if (organizationId === undefined) throw DomainError.invalid('organization is required to publish a new integration');
    // The platform's Integration always has a title (2 to 30 characters): a new one cannot do without.
    if (!live && input.title === undefined) throw DomainError.invalid('title is required to publish a new integration');
    const previous = live ? current.published!.definition : EMPTY_DEFINITION;
    const { icon, previewImages, script, organization, secrets, ...members } = input;
    void organization;
    // Members the request leaves out keep their published value (a validated body holds them as undefined).
    const given = Object.fromEntries(Object.entries(members).filter(([, value]) => value !== undefined));
    if (members.configurations !== undefined) checkPublishedConfigurations(members.configurations);
    checkPublishedComponents({ blocks: members.blocks, contentSources: members.contentSources, externalLinks: members.externalLinks });
    if (secrets !== undefined) checkSecrets(secrets);
    const definition: IntegrationDefinition = {
      ...previous,
      ...given,
      icon: icon === undefined ? previous.icon : await this.image('icon', icon),
      previewImages:
        previewImages === undefined
          ? previous.previewImages
          : await Promise.all(previewImages.map((image, index) => this.image(`previewImages[${index}]`, image))),
      script: script === undefined ? previous.script : (await this.blobs.put(Buffer.from(script, 'utf8'))).hash,
    };
    const command: IntegrationCommand = {
      kind: 'PublishIntegration',
      name,
      organizationId,
      definition,
      secrets: secrets === undefined ? undefined : this.secrets.seal(JSON.stringify(secrets)),
      signingSecret: this.secrets.newSigningSecret(),
      ownerAdmin: await this.access.isAdmin(organizationId, caller),
      by,
      now: this.now(),
    };
    await this.decide(stream, integrationDecider, command, { caller, ifMatch });
  }

  private async image(member: string, base64: string): Promise<string> {
    const bytes = Buffer.from(base64, 'base64');
    if (bytes.length === 0) throw DomainError.invalid(`${member} must be base64 image bytes`);
    if (bytes.length > MAX_IMAGE_BYTES) throw new DomainError(413, `${member} is larger than ${MAX_IMAGE_BYTES} bytes`);
    return (await this.blobs.put(bytes)).hash;
  }
}

/** `DELETE /integrations/{name}`: the owner's admins; the reactor then uninstalls it everywhere. */
export class DeleteIntegration extends Command<void> {
  constructor(
    readonly name: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(DeleteIntegration)
export class DeleteIntegrationHandler extends DecidingHandler {
  constructor(private readonly access: IntegrationAccess) {
    super();
  }

  async execute({ name, caller, ifMatch }: DeleteIntegration): Promise<void> {
    const stream = integrationStream(name);
    const ownerAdmin = await this.access.isAdmin(
      livePublication((await this.load(stream, integrationDecider)).state, name).organizationId,
      caller,
    );
    const command: IntegrationCommand = { kind: 'DeleteIntegration', name, ownerAdmin, by: user(caller), now: this.now() };
    await this.decide(stream, integrationDecider, command, { caller, ifMatch });
  }
}

/** `PUT /integrations/{name}/dev`: the integration's events go to the tunnel (the owner's installations', or every one with `all`). */
export class SetDevMode extends Command<void> {
  constructor(
    readonly name: string,
    readonly tunnelUrl: string,
    readonly all: boolean,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(SetDevMode)
export class SetDevModeHandler extends DecidingHandler {
  constructor(private readonly access: IntegrationAccess) {
    super();
  }

  async execute({ name, tunnelUrl, all, caller, ifMatch }: SetDevMode): Promise<void> {
    const stream = integrationStream(name);
    const ownerAdmin = await this.access.isAdmin(
      livePublication((await this.load(stream, integrationDecider)).state, name).organizationId,
      caller,
    );
    const command: IntegrationCommand = { kind: 'SetDevMode', name, tunnelUrl, all, ownerAdmin, by: user(caller), now: this.now() };
    await this.decide(stream, integrationDecider, command, { caller, ifMatch });
  }
}

/** `DELETE /integrations/{name}/dev`: development mode off. */
export class ClearDevMode extends Command<void> {
  constructor(
    readonly name: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(ClearDevMode)
export class ClearDevModeHandler extends DecidingHandler {
  constructor(private readonly access: IntegrationAccess) {
    super();
  }

  async execute({ name, caller, ifMatch }: ClearDevMode): Promise<void> {
    const stream = integrationStream(name);
    const ownerAdmin = await this.access.isAdmin(
      livePublication((await this.load(stream, integrationDecider)).state, name).organizationId,
      caller,
    );
    const command: IntegrationCommand = { kind: 'ClearDevMode', name, ownerAdmin, by: user(caller), now: this.now() };
    await this.decide(stream, integrationDecider, command, { caller, ifMatch });
  }
}

/**
 * `POST /integrations/{name}/installations`: in an organization the caller administers; private
 * integrations only in their owner. Installing accepts the scopes the integration asks for now.
 * Answers the installation's id.
 */
export class InstallIntegration extends Command<string> {
  constructor(
    readonly name: string,
    readonly organizationId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(InstallIntegration)
export class InstallIntegrationHandler extends DecidingHandler {
  constructor(@Inject(INTEGRATION_ORGANIZATIONS) private readonly organizations: IntegrationOrganizations) {
    super();
  }

  async execute({ name, organizationId, caller }: InstallIntegration): Promise<string> {
    const integration = livePublication((await this.load(integrationStream(name), integrationDecider)).state, name);
    const role = caller.kind === 'user' ? await this.organizations.roleOf(organizationId, caller.userId) : null;
    if (!role?.member) throw DomainError.notFound(`no organization ${organizationId}`);
    if (integration.definition.visibility === 'private' && integration.organizationId !== organizationId)
      throw DomainError.forbidden(`integration ${name} is private to its organization`);
    const installationId = installationIdOf(name, organizationId);
    await this.decide(
      installationStream(installationId),
      installationDecider,
      {
        kind: 'Install',
        installationId,
        integrationName: name,
        organizationId,
        configuration: {},
        scopes: integration.definition.scopes,
        organizationAdmin: role.role === 'admin',
        by: user(caller),
        now: this.now(),
      },
      { caller },
    );
    return installationId;
  }
}

/**
 * `PATCH /integrations/{name}/installations/{installationId}`. `scopes` (extension): the scopes the
 * organization's admin accepts, among those the integration asks for now; until then a
 * republication asking for more grants nothing.
 */
export class UpdateInstallation extends Command<void> {
  constructor(
    readonly name: string,
    readonly installationId: string,
    readonly changes: {
      status?: InstallationStatus;
      configuration?: Record<string, unknown>;
      space_selection?: SpaceSelection;
      site_selection?: SpaceSelection;
      scopes?: string[];
    },
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(UpdateInstallation)
export class UpdateInstallationHandler extends DecidingHandler {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: IntegrationAccess,
  ) {
    super();
  }

  async execute({ name, installationId, changes, caller, ifMatch }: UpdateInstallation): Promise<void> {
    const installation = await activeInstallation(this.reads, name, installationId);
    // Membership first: people outside the organization learn nothing of the installation (404), and compile no schema.
    const organizationAdmin = await this.access.isAdmin(installation.organizationId, caller);
    const integration =
      changes.configuration !== undefined || changes.scopes !== undefined
        ? livePublication((await this.load(integrationStream(name), integrationDecider)).state, name)
        : null;
    if (changes.configuration !== undefined)
      validateConfiguration(`installation ${installationId}`, integration!.definition.configurations.account, changes.configuration);
    const stream = installationStream(installationId);
    const command: InstallationCommand = {
      kind: 'UpdateInstallation',
      installationId,
      ...(changes.status !== undefined ? { status: changes.status } : {}),
      ...(changes.configuration !== undefined ? { configuration: changes.configuration } : {}),
      ...(changes.space_selection !== undefined ? { spaceSelection: changes.space_selection } : {}),
      ...(changes.site_selection !== undefined ? { siteSelection: changes.site_selection } : {}),
      ...(changes.scopes !== undefined ? { acceptScopes: { scopes: changes.scopes, requested: integration!.definition.scopes } } : {}),
      organizationAdmin,
      by: user(caller),
      now: this.now(),
    };
    await this.decide(stream, installationDecider, command, { caller, ifMatch });
  }
}

/** `DELETE /integrations/{name}/installations/{installationId}` */
export class UninstallIntegration extends Command<void> {
  constructor(
    readonly name: string,
    readonly installationId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(UninstallIntegration)
export class UninstallIntegrationHandler extends DecidingHandler {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: IntegrationAccess,
  ) {
    super();
  }

  async execute({ name, installationId, caller, ifMatch }: UninstallIntegration): Promise<void> {
    const installation = await activeInstallation(this.reads, name, installationId);
    const stream = installationStream(installationId);
    const command: InstallationCommand = {
      kind: 'Uninstall',
      installationId,
      organizationAdmin: await this.access.isAdmin(installation.organizationId, caller),
      by: user(caller),
      now: this.now(),
    };
    await this.decide(stream, installationDecider, command, { caller, ifMatch });
  }
}

/**
 * `POST …/installations/{installationId}/spaces|sites` and `PATCH` of one: installs (or
 * reconfigures) the integration on a space or a site, a live one of the installation's
 * organization, else 404.
 */
export class SetPlaceInstallation extends Command<void> {
  constructor(
    readonly place: InstallationPlace,
    readonly name: string,
    readonly installationId: string,
    readonly placeId: string,
    readonly changes: Partial<PlaceSettings>,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(SetPlaceInstallation)
export class SetPlaceInstallationHandler extends DecidingHandler {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(INTEGRATION_SPACES) private readonly spaces: IntegrationSpaces,
    @Inject(INTEGRATION_SITES) private readonly sites: IntegrationSites,
    private readonly access: IntegrationAccess,
  ) {
    super();
  }

  async execute({ place, name, installationId, placeId, changes, caller, ifMatch }: SetPlaceInstallation): Promise<void> {
    const installation = await activeInstallation(this.reads, name, installationId);
    // Membership first: people outside the organization learn nothing of its places (404).
    const organizationAdmin = await this.access.isAdmin(installation.organizationId, caller);
    const found = await (place === 'space' ? this.spaces.spaceById(placeId) : this.sites.siteById(placeId));
    if (!found || found.deleted || found.organizationId !== installation.organizationId)
      throw DomainError.notFound(`no ${place} ${placeId} in the organization of installation ${installationId}`);
    if (changes.configuration !== undefined)
      validateConfiguration(
        `${place} ${placeId}`,
        livePublication((await this.load(integrationStream(name), integrationDecider)).state, name).definition.configurations[place],
        changes.configuration,
      );
    const stream = installationStream(installationId);
    const command: InstallationCommand = {
      kind: 'SetPlaceInstallation',
      installationId,
      place,
      placeId,
      ...changes,
      organizationAdmin,
      by: user(caller),
      now: this.now(),
    };
    await this.decide(stream, installationDecider, command, { caller, ifMatch });
  }
}

/** `DELETE …/installations/{installationId}/spaces|sites/{placeId}` */
export class RemovePlaceInstallation extends Command<void> {
  constructor(
    readonly place: InstallationPlace,
    readonly name: string,
    readonly installationId: string,
    readonly placeId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(RemovePlaceInstallation)
export class RemovePlaceInstallationHandler extends DecidingHandler {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly access: IntegrationAccess,
  ) {
    super();
  }

  async execute({ place, name, installationId, placeId, caller, ifMatch }: RemovePlaceInstallation): Promise<void> {
    const installation = await activeInstallation(this.reads, name, installationId);
    const stream = installationStream(installationId);
    const command: InstallationCommand = {
      kind: 'RemovePlaceInstallation',
      installationId,
      place,
      placeId,
      organizationAdmin: await this.access.isAdmin(installation.organizationId, caller),
      by: user(caller),
      now: this.now(),
    };
    await this.decide(stream, installationDecider, command, { caller, ifMatch });
  }
}

/** Removes every installation on a place that is gone for good (a system command of the place-removals reactor; idempotent). */
export class RemoveInstallationsFromPlace extends Command<void> {
  constructor(
    readonly place: InstallationPlace,
    readonly placeId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(RemoveInstallationsFromPlace)
export class RemoveInstallationsFromPlaceHandler extends DecidingHandler {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {
    super();
  }

  async execute({ place, placeId, caller }: RemoveInstallationsFromPlace): Promise<void> {
    const entries = await this.reads
      .collection<PlaceInstallationDoc>(PLACE_INSTALLATIONS[place])
      .find({ [placeIdMember(place)]: placeId }, { limit: 1000, count: false });
    for (const entry of entries.items) {
      const stream = installationStream(entry.installationId);
      const { state } = await this.load(stream, installationDecider);
      if (!state.installed || !state.places[place].has(placeId)) continue;
      await this.decide(
        stream,
        installationDecider,
        {
          kind: 'RemovePlaceInstallation',
          installationId: entry.installationId,
          place,
          placeId,
          organizationAdmin: true,
          by: 'system',
          now: this.now(),
        },
        { caller },
      );
    }
  }
}

/** Uninstalls a deleted integration everywhere (a system command of the uninstalls reactor; idempotent). */
export class UninstallEverywhere extends Command<void> {
  constructor(
    readonly name: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(UninstallEverywhere)
export class UninstallEverywhereHandler extends DecidingHandler {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {
    super();
  }

  async execute({ name, caller }: UninstallEverywhere): Promise<void> {
    const installed = await this.reads
      .collection<InstallationDoc>(INSTALLATIONS)
      .find({ integrationName: name }, { limit: 1000, count: false });
    for (const installation of installed.items) {
      if (installation.uninstalled) continue;
      const stream = installationStream(installation._id);
      const { state } = await this.load(stream, installationDecider);
      if (!state.installed) continue;
      await this.decide(
        stream,
        installationDecider,
        { kind: 'Uninstall', installationId: installation._id, organizationAdmin: true, by: 'system', now: this.now() },
        { caller },
      );
    }
  }
}

/** What became of one integration event (the delivery worker): recorded once per event, by the worker holding the installation. */
export class RecordProcessed extends Command<void> {
  constructor(
    readonly event: { eventId: string; installationId: string; integrationName: string; organizationId: string },
    readonly worker: string,
    readonly status: 'success' | 'failed',
    readonly logs: TraceLog[],
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(RecordProcessed)
export class RecordProcessedHandler extends DecidingHandler {
  async execute({ event, worker, status, logs, caller }: RecordProcessed): Promise<void> {
    await this.decide(
      deliveryStream(event.installationId),
      deliveryDecider,
      { kind: 'RecordProcessed', ...event, worker, status, logs, now: this.now() },
      { caller, wait: false },
    );
  }
}

/** Takes (or renews) an installation's deliveries for this worker until `until`; answers false when another worker holds them. */
export class ClaimDeliveries extends Command<boolean> {
  constructor(
    readonly installation: { installationId: string; integrationName: string; organizationId: string },
    readonly worker: string,
    readonly until: Date,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(ClaimDeliveries)
export class ClaimDeliveriesHandler extends DecidingHandler {
  async execute({ installation, worker, until, caller }: ClaimDeliveries): Promise<boolean> {
    try {
      await this.decide(
        deliveryStream(installation.installationId),
        deliveryDecider,
        { kind: 'ClaimDeliveries', ...installation, worker, until: until.toISOString(), now: this.now() },
        { caller, wait: false },
      );
      return true;
    } catch (error) {
      if (error instanceof DomainError && error.status === 409) return false;
      throw error;
    }
  }
}

// ---- shared by the handlers ---------------------------------------------------------------------

/** The integration's publication, or 404 when it is not published (or deleted). */
function livePublication(state: IntegrationState, name: string): NonNullable<IntegrationState['published']> {
  if (!state.published || state.deleted) throw DomainError.notFound(`no integration ${name}`);
  return state.published;
}

/** An installation of the integration that is not uninstalled, or 404. */
async function activeInstallation(reads: ReadStore, name: string, installationId: string): Promise<InstallationDoc> {
  const installation = await reads.collection<InstallationDoc>(INSTALLATIONS).get(installationId);
  if (!installation || installation.uninstalled || installation.integrationName !== name)
    throw DomainError.notFound(`no installation ${installationId} of integration ${name}`);
  return installation;
}

function user(caller: Caller): string {
  if (caller.kind !== 'user') throw DomainError.forbidden('integrations are published and installed by users, not with the service token');
  return caller.userId;
}

export const integrationCommandHandlers = [
  PublishIntegrationHandler,
  DeleteIntegrationHandler,
  SetDevModeHandler,
  ClearDevModeHandler,
  InstallIntegrationHandler,
  UpdateInstallationHandler,
  UninstallIntegrationHandler,
  SetPlaceInstallationHandler,
  RemovePlaceInstallationHandler,
  RemoveInstallationsFromPlaceHandler,
  UninstallEverywhereHandler,
  RecordProcessedHandler,
  ClaimDeliveriesHandler,
];
