import { Inject } from '@nestjs/common';
import { Command, CommandHandler } from '@nestjs/cqrs';
import { DomainError } from '#platform/errors';
import { newId } from '#platform/ids';
import type { Caller } from '#platform/http/auth';
import type { OrganizationRole } from '#platform/permissions';
import { DecidingHandler } from '#runtime/command-handler';
import { SSO_ORGANIZATIONS, SSO_TEAMS, type SsoOrganizations, type SsoTeams } from './sso.needs';
import { normalizeCertificate } from './certificate';
import { samlProviderDecider, samlProviderStream } from './saml-provider.decider';
import type { SamlProviderChanges, SamlProviderSettings } from './saml-provider.events';

/* The SAML provider commands: organization admins only; a default team must be a team of the organization. */

/** The members of POST /saml; absent ones take their defaults (null, and `read` for defaultRole). */
export interface SamlProviderInput {
  label: string;
  entityID?: string | null;
  certificate?: string | null;
  ssoURL?: string | null;
  defaultTeam?: string | null;
  defaultRole?: OrganizationRole;
}

const MANAGE = 'manage its SAML providers';

/** `POST /v1/orgs/{organizationId}/saml`: answers the new provider's id. */
export class CreateSamlProvider extends Command<string> {
  constructor(
    readonly organizationId: string,
    readonly input: SamlProviderInput,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(CreateSamlProvider)
export class CreateSamlProviderHandler extends DecidingHandler {
  constructor(
    @Inject(SSO_ORGANIZATIONS) private readonly membership: SsoOrganizations,
    @Inject(SSO_TEAMS) private readonly teams: SsoTeams,
  ) {
    super();
  }

  async execute({ organizationId, input, caller }: CreateSamlProvider): Promise<string> {
    await this.membership.requireAdmin(organizationId, caller, MANAGE);
    const settings: SamlProviderSettings = {
      label: input.label,
      entityID: input.entityID ?? null,
      certificate: certificateOf(input.certificate) ?? null,
      ssoURL: input.ssoURL ?? null,
      defaultTeam: input.defaultTeam ?? null,
      defaultRole: input.defaultRole === undefined ? 'read' : input.defaultRole,
    };
    await requireTeam(this.teams, organizationId, settings.defaultTeam);
    const providerId = newId();
    await this.decide(
      samlProviderStream(providerId),
      samlProviderDecider,
      { kind: 'CreateSamlProvider', providerId, organizationId, settings, now: this.now() },
      { caller },
    );
    return providerId;
  }
}

/** `PATCH /v1/orgs/{organizationId}/saml/{samlProviderId}` */
export class UpdateSamlProvider extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly providerId: string,
    readonly changes: SamlProviderChanges,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(UpdateSamlProvider)
export class UpdateSamlProviderHandler extends DecidingHandler {
  constructor(
    @Inject(SSO_ORGANIZATIONS) private readonly membership: SsoOrganizations,
    @Inject(SSO_TEAMS) private readonly teams: SsoTeams,
  ) {
    super();
  }

  async execute({ organizationId, providerId, changes, caller, ifMatch }: UpdateSamlProvider): Promise<void> {
    await this.membership.requireAdmin(organizationId, caller, MANAGE);
    const normalized: SamlProviderChanges = {
      ...changes,
      ...(changes.certificate !== undefined ? { certificate: certificateOf(changes.certificate) } : {}),
    };
    if (normalized.defaultTeam) {
      // An unknown provider is a 404 before an unknown team is a 400.
      const { state } = await this.load(samlProviderStream(providerId), samlProviderDecider);
      if (!state.exists || state.organizationId !== organizationId) throw DomainError.notFound(`no SAML provider ${providerId}`);
      if (state.settings.defaultTeam !== normalized.defaultTeam) await requireTeam(this.teams, organizationId, normalized.defaultTeam);
    }
    await this.decide(
      samlProviderStream(providerId),
      samlProviderDecider,
      { kind: 'UpdateSamlProvider', providerId, organizationId, changes: normalized },
      { caller, ifMatch },
    );
  }
}

/** `DELETE /v1/orgs/{organizationId}/saml/{samlProviderId}` */
export class DeleteSamlProvider extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly providerId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(DeleteSamlProvider)
export class DeleteSamlProviderHandler extends DecidingHandler {
  constructor(@Inject(SSO_ORGANIZATIONS) private readonly membership: SsoOrganizations) {
    super();
  }

  async execute({ organizationId, providerId, caller, ifMatch }: DeleteSamlProvider): Promise<void> {
    await this.membership.requireAdmin(organizationId, caller, MANAGE);
    await this.decide(
      samlProviderStream(providerId),
      samlProviderDecider,
      { kind: 'DeleteSamlProvider', providerId, organizationId },
      { caller, ifMatch },
    );
  }
}

/** The DTO checked the certificate parses; it is stored as one normalized PEM block. */
function certificateOf(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  const pem = normalizeCertificate(value);
  if (pem === null) throw DomainError.invalid('certificate must be an X.509 certificate in PEM format');
  return pem;
}

async function requireTeam(teams: SsoTeams, organizationId: string, teamId: string | null): Promise<void> {
  if (teamId === null) return;
  if (!(await teams.findTeam(organizationId, teamId)))
    throw DomainError.invalid(`defaultTeam: organization ${organizationId} has no team ${teamId}`);
}

export const samlProviderCommandHandlers = [CreateSamlProviderHandler, UpdateSamlProviderHandler, DeleteSamlProviderHandler];
