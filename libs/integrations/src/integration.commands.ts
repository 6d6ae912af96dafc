import { Inject, Injectable } from '@nestjs/common';
import { BLOB_STORE, type BlobStore } from '../../blob-store/src/blob-store.port';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import { READ_STORE, type ReadStore } from '../../read-store/src/read-store.port';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { INTEGRATION_ORGANIZATIONS, INTEGRATION_SITES, INTEGRATION_SPACES, type IntegrationOrganizations, type IntegrationSites, type IntegrationSpaces } from './integrations-ports.port';
import { checkPublishedComponents, checkPublishedConfigurations, validateConfiguration } from './integration.configuration';
import {
  deliveryDecider,
  deliveryStream,
  installationDecider,
  installationIdOf,
  installationRefusal,
  installationStream,
  integrationDecider,
  integrationRefusal,
  integrationStream,
  type InstallationCommand,
  type IntegrationCommand,
  type IntegrationState,
} from './integration.decider';
import type { InstallationPlace, InstallationStatus, IntegrationDefinition, PlaceSettings, SpaceSelection, TraceLog } from './integration.events';
import { placeIdMember } from './integration.places';
import { INSTALLATIONS, PLACE_INSTALLATIONS, type InstallationDoc, type PlaceInstallationDoc } from './integration.projections';
import { IntegrationSecrets } from './integration.secrets';

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
    if (typeof value !== 'string' || value.length > MAX_SECRET_LENGTH) throw DomainError.invalid(`secrets.${name} must be text of at most ${MAX_SECRET_LENGTH} characters`);
  }
}

/** Largest icon or preview image, decoded. */
const MAX_IMAGE_BYTES = 512 * 1024;

/**
 * The integration writes: publishing (owner admins), the tunnel, installations (admins of the
 * organization installing) and their spaces, and the record of each integration event processed
 * (the delivery worker). Blobs (icon, previews, script) are stored before the event that names them.
 */
@Injectable()
export class IntegrationCommands {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(INTEGRATION_ORGANIZATIONS) private readonly organizations: IntegrationOrganizations,
    @Inject(INTEGRATION_SPACES) private readonly spaces: IntegrationSpaces,
    @Inject(INTEGRATION_SITES) private readonly sites: IntegrationSites,
    private readonly secrets: IntegrationSecrets,
  ) {}

  async integration(name: string): Promise<IntegrationState> {
    return (await this.commands.load(integrationStream(name), integrationDecider)).state;
  }

  /** `POST /integrations/{name}`: creates or updates; `version` + 1 each time. */
  async publish(name: string, input: PublishInput, caller: Caller, ifMatch?: number): Promise<void> {
    const by = user(caller);
    const current = await this.integration(name);
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
      previewImages: previewImages === undefined ? previous.previewImages : await Promise.all(previewImages.map((image, index) => this.image(`previewImages[${index}]`, image))),
      script: script === undefined ? previous.script : (await this.blobs.put(Buffer.from(script, 'utf8'))).hash,
    };
    await this.runIntegration(
      { kind: 'PublishIntegration', name, organizationId, definition, secrets: secrets === undefined ? undefined : this.secrets.seal(JSON.stringify(secrets)), signingSecret: this.secrets.newSigningSecret(), ownerAdmin: await this.isAdmin(organizationId, caller), by, now: this.now() },
      caller,
      ifMatch,
    );
  }

  async delete(name: string, caller: Caller, ifMatch?: number): Promise<void> {
    await this.runIntegration({ kind: 'DeleteIntegration', name, ownerAdmin: await this.isOwnerAdmin(name, caller), by: user(caller), now: this.now() }, caller, ifMatch);
  }

  async setDevMode(name: string, tunnelUrl: string, all: boolean, caller: Caller, ifMatch?: number): Promise<void> {
    await this.runIntegration({ kind: 'SetDevMode', name, tunnelUrl, all, ownerAdmin: await this.isOwnerAdmin(name, caller), by: user(caller), now: this.now() }, caller, ifMatch);
  }

  async clearDevMode(name: string, caller: Caller, ifMatch?: number): Promise<void> {
    await this.runIntegration({ kind: 'ClearDevMode', name, ownerAdmin: await this.isOwnerAdmin(name, caller), by: user(caller), now: this.now() }, caller, ifMatch);
  }

  /** `POST /integrations/{name}/installations`: in an organization the caller administers; private integrations only in their owner. Installing accepts the scopes the integration asks for now. */
  async install(name: string, organizationId: string, caller: Caller): Promise<string> {
    const integration = await this.liveIntegration(name);
    const role = caller.kind === 'user' ? await this.organizations.roleOf(organizationId, caller.userId) : null;
    if (!role?.member) throw DomainError.notFound(`no organization ${organizationId}`);
    if (integration.definition.visibility === 'private' && integration.organizationId !== organizationId) throw DomainError.forbidden(`integration ${name} is private to its organization`);
    const installationId = installationIdOf(name, organizationId);
    await this.runInstallation({ kind: 'Install', installationId, integrationName: name, organizationId, configuration: {}, scopes: integration.definition.scopes, organizationAdmin: role.role === 'admin', by: user(caller), now: this.now() }, caller);
    return installationId;
  }

  /** `scopes` (extension): the scopes the organization's admin accepts, among those the integration asks for now; until then a republication asking for more grants nothing. */
  async updateInstallation(name: string, installationId: string, changes: { status?: InstallationStatus; configuration?: Record<string, unknown>; space_selection?: SpaceSelection; site_selection?: SpaceSelection; scopes?: string[] }, caller: Caller, ifMatch?: number): Promise<void> {
    const installation = await this.installation(name, installationId);
    // Membership first: people outside the organization learn nothing of the installation (404), and compile no schema.
    const organizationAdmin = await this.isAdmin(installation.organizationId, caller);
    const integration = changes.configuration !== undefined || changes.scopes !== undefined ? await this.liveIntegration(name) : null;
    if (changes.configuration !== undefined) validateConfiguration(`installation ${installationId}`, integration!.definition.configurations.account, changes.configuration);
    await this.runInstallation(
      {
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
      },
      caller,
      ifMatch,
    );
  }

  async uninstall(name: string, installationId: string, caller: Caller, ifMatch?: number): Promise<void> {
    const installation = await this.installation(name, installationId);
    await this.runInstallation({ kind: 'Uninstall', installationId, organizationAdmin: await this.isAdmin(installation.organizationId, caller), by: user(caller), now: this.now() }, caller, ifMatch);
  }

  /** Installs (or reconfigures) the integration on a space or a site: a live one of the installation's organization, else 404. */
  async setPlaceInstallation(place: InstallationPlace, name: string, installationId: string, placeId: string, changes: Partial<PlaceSettings>, caller: Caller, ifMatch?: number): Promise<void> {
    const installation = await this.installation(name, installationId);
    // Membership first: people outside the organization learn nothing of its places (404).
    const organizationAdmin = await this.isAdmin(installation.organizationId, caller);
    const found = await (place === 'space' ? this.spaces.spaceById(placeId) : this.sites.siteById(placeId));
    if (!found || found.deleted || found.organizationId !== installation.organizationId) throw DomainError.notFound(`no ${place} ${placeId} in the organization of installation ${installationId}`);
    if (changes.configuration !== undefined) validateConfiguration(`${place} ${placeId}`, (await this.liveIntegration(name)).definition.configurations[place], changes.configuration);
    await this.runInstallation({ kind: 'SetPlaceInstallation', installationId, place, placeId, ...changes, organizationAdmin, by: user(caller), now: this.now() }, caller, ifMatch);
  }

  async removePlaceInstallation(place: InstallationPlace, name: string, installationId: string, placeId: string, caller: Caller, ifMatch?: number): Promise<void> {
    const installation = await this.installation(name, installationId);
    await this.runInstallation({ kind: 'RemovePlaceInstallation', installationId, place, placeId, organizationAdmin: await this.isAdmin(installation.organizationId, caller), by: user(caller), now: this.now() }, caller, ifMatch);
  }

  /** Removes every installation on a place that is gone for good (the reactor; idempotent). */
  async removeFromPlace(place: InstallationPlace, placeId: string, caller: Caller): Promise<void> {
    const entries = await this.reads.collection<PlaceInstallationDoc>(PLACE_INSTALLATIONS[place]).find({ [placeIdMember(place)]: placeId }, { limit: 1000, count: false });
    for (const entry of entries.items) {
      const stream = installationStream(entry.installationId);
      const { state } = await this.commands.load(stream, installationDecider);
      if (!state.installed || !state.places[place].has(placeId)) continue;
      await this.commands.run(stream, installationDecider, { kind: 'RemovePlaceInstallation', installationId: entry.installationId, place, placeId, organizationAdmin: true, by: 'system', now: this.now() }, { caller });
    }
  }

  /** Uninstalls a deleted integration everywhere (the reactor; idempotent). */
  async uninstallEverywhere(name: string, caller: Caller): Promise<void> {
    const installed = await this.reads.collection<InstallationDoc>(INSTALLATIONS).find({ integrationName: name }, { limit: 1000, count: false });
    for (const installation of installed.items) {
      if (installation.uninstalled) continue;
      const { state } = await this.commands.load(installationStream(installation._id), installationDecider);
      if (!state.installed) continue;
      await this.commands.run(installationStream(installation._id), installationDecider, { kind: 'Uninstall', installationId: installation._id, organizationAdmin: true, by: 'system', now: this.now() }, { caller });
    }
  }

  /** What became of one integration event (the delivery worker): recorded once per event, by the worker holding the installation. */
  async recordProcessed(event: { eventId: string; installationId: string; integrationName: string; organizationId: string }, worker: string, status: 'success' | 'failed', logs: TraceLog[], caller: Caller): Promise<void> {
    await this.commands.run(deliveryStream(event.installationId), deliveryDecider, { kind: 'RecordProcessed', ...event, worker, status, logs, now: this.now() }, { caller }, { wait: false });
  }

  /** Takes (or renews) an installation's deliveries for this worker until `until`; false when another worker holds them. */
  async claimDeliveries(installation: { installationId: string; integrationName: string; organizationId: string }, worker: string, until: Date, caller: Caller): Promise<boolean> {
    try {
      await this.commands.run(deliveryStream(installation.installationId), deliveryDecider, { kind: 'ClaimDeliveries', ...installation, worker, until: until.toISOString(), now: this.now() }, { caller }, { wait: false });
      return true;
    } catch (error) {
      if (error instanceof DomainError && error.status === 409) return false;
      throw error;
    }
  }

  // ---- helpers ------------------------------------------------------------------------------------

  private async image(member: string, base64: string): Promise<string> {
    const bytes = Buffer.from(base64, 'base64');
    if (bytes.length === 0) throw DomainError.invalid(`${member} must be base64 image bytes`);
    if (bytes.length > MAX_IMAGE_BYTES) throw new DomainError(413, `${member} is larger than ${MAX_IMAGE_BYTES} bytes`);
    return (await this.blobs.put(bytes)).hash;
  }

  private async liveIntegration(name: string) {
    const state = await this.integration(name);
    if (!state.published || state.deleted) throw DomainError.notFound(`no integration ${name}`);
    return state.published;
  }

  private async installation(name: string, installationId: string): Promise<InstallationDoc> {
    const installation = await this.reads.collection<InstallationDoc>(INSTALLATIONS).get(installationId);
    if (!installation || installation.uninstalled || installation.integrationName !== name) throw DomainError.notFound(`no installation ${installationId} of integration ${name}`);
    return installation;
  }

  private async isAdmin(organizationId: string, caller: Caller): Promise<boolean> {
    if (caller.kind !== 'user') return false;
    const role = await this.organizations.roleOf(organizationId, caller.userId);
    if (!role?.member) throw DomainError.notFound(`no organization ${organizationId}`);
    return role.role === 'admin';
  }

  private async isOwnerAdmin(name: string, caller: Caller): Promise<boolean> {
    return this.isAdmin((await this.liveIntegration(name)).organizationId, caller);
  }

  /**
   * An integration and its development mode live in the integration's stream: `ifMatch` is its
   * revision, the ETag of the integration and of its `/dev`. Whoever may not make the change is
   * refused (403, 404, 409) before the revision is compared, so a 412 tells them nothing.
   */
  private async runIntegration(command: IntegrationCommand, caller: Caller, ifMatch?: number): Promise<void> {
    const stream = integrationStream(command.name);
    if (ifMatch !== undefined) {
      const refusal = integrationRefusal(command, (await this.commands.load(stream, integrationDecider)).state);
      if (refusal) throw refusal;
    }
    await this.commands.run(stream, integrationDecider, command, { caller }, { ifMatch });
  }

  /**
   * An installation and its installations on spaces and sites live in the installation's stream:
   * `ifMatch` is its revision, the ETag of each of them. Refusals (403, 404) come before the
   * revision is compared, as for integrations.
   */
  private async runInstallation(command: InstallationCommand, caller: Caller, ifMatch?: number): Promise<void> {
    const stream = installationStream(command.installationId);
    if (ifMatch !== undefined) {
      const refusal = installationRefusal(command, (await this.commands.load(stream, installationDecider)).state);
      if (refusal) throw refusal;
    }
    await this.commands.run(stream, installationDecider, command, { caller }, { ifMatch });
  }

  private now(): string {
    return this.commands.now().toISOString();
  }
}

function user(caller: Caller): string {
  if (caller.kind !== 'user') throw DomainError.forbidden('integrations are published and installed by users, not with the service token');
  return caller.userId;
}
