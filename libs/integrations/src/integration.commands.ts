import { Inject } from '@nestjs/common';
import { Command, CommandHandler } from '@nestjs/cqrs';
import { BLOB_STORE, type BlobStore } from '#blob-store/blob-store.port';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { DecidingHandler } from '#runtime/command-handler';
import { IntegrationAccess } from './integration.access';
import { checkPublishedComponents, checkPublishedConfigurations } from './integration.configuration';
import { integrationDecider, integrationStream, type IntegrationCommand, type IntegrationState } from './integration.decider';
import type { IntegrationDefinition } from './integration.events';
import { IntegrationSecrets } from './integration.secrets';

/*
 * The integration writes: publishing (owner admins) and the development tunnel. Blobs (icon,
 * previews, script) are stored before the event that names them. Installations are written in
 * integration-installations.commands.ts, the record of each integration event processed (the
 * delivery worker) in integration-deliveries.commands.ts.
 *
 * An integration and its development mode live in the integration's stream: `ifMatch` is its
 * revision, the ETag of the integration and of its `/dev`. Whoever may not make the change is
 * refused (403, 404, 409) before the revision is compared, so a 412 tells them nothing.
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
    const by = actingUser(caller);
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
    const command: IntegrationCommand = { kind: 'DeleteIntegration', name, ownerAdmin, by: actingUser(caller), now: this.now() };
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
    const command: IntegrationCommand = { kind: 'SetDevMode', name, tunnelUrl, all, ownerAdmin, by: actingUser(caller), now: this.now() };
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
    const command: IntegrationCommand = { kind: 'ClearDevMode', name, ownerAdmin, by: actingUser(caller), now: this.now() };
    await this.decide(stream, integrationDecider, command, { caller, ifMatch });
  }
}

/** The integration's publication, or 404 when it is not published (or deleted). */
export function livePublication(state: IntegrationState, name: string): NonNullable<IntegrationState['published']> {
  if (!state.published || state.deleted) throw DomainError.notFound(`no integration ${name}`);
  return state.published;
}

/** The user a publication or an installation is by: the service token neither publishes nor installs. */
export function actingUser(caller: Caller): string {
  if (caller.kind !== 'user') throw DomainError.forbidden('integrations are published and installed by users, not with the service token');
  return caller.userId;
}

export const integrationCommandHandlers = [PublishIntegrationHandler, DeleteIntegrationHandler, SetDevModeHandler, ClearDevModeHandler];
