import { Inject } from '@nestjs/common';
import { Command, CommandHandler } from '@nestjs/cqrs';
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
import { validateConfiguration } from './integration.configuration';
import {
  installationDecider,
  installationIdOf,
  installationStream,
  integrationDecider,
  integrationStream,
  type InstallationCommand,
} from './integration.decider';
import type { InstallationPlace, InstallationStatus, PlaceSettings, SpaceSelection } from './integration.events';
import { placeIdMember } from './integration.places';
import { INSTALLATIONS, PLACE_INSTALLATIONS, type InstallationDoc, type PlaceInstallationDoc } from './integration.projections';
import { actingUser, livePublication } from './integration.commands';

/*
 * The installation writes: installations (admins of the organization installing) and their
 * installations on spaces and sites, and the system commands of the reactors that remove them when
 * their place or their integration is gone.
 *
 * An installation and its installations on spaces and sites live in the installation's stream:
 * `ifMatch` is its revision, the ETag of each of them. Whoever may not make the change is refused
 * (403, 404, 409) before the revision is compared, so a 412 tells them nothing.
 */

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
        by: actingUser(caller),
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
      by: actingUser(caller),
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
      by: actingUser(caller),
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
      by: actingUser(caller),
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
      by: actingUser(caller),
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

/** An installation of the integration that is not uninstalled, or 404. */
async function activeInstallation(reads: ReadStore, name: string, installationId: string): Promise<InstallationDoc> {
  const installation = await reads.collection<InstallationDoc>(INSTALLATIONS).get(installationId);
  if (!installation || installation.uninstalled || installation.integrationName !== name)
    throw DomainError.notFound(`no installation ${installationId} of integration ${name}`);
  return installation;
}

export const installationCommandHandlers = [
  InstallIntegrationHandler,
  UpdateInstallationHandler,
  UninstallIntegrationHandler,
  SetPlaceInstallationHandler,
  RemovePlaceInstallationHandler,
  RemoveInstallationsFromPlaceHandler,
  UninstallEverywhereHandler,
];
