import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../../platform/src/errors';
import { newId } from '../../platform/src/ids';
import type { Caller } from '../../platform/src/http/auth';
import type { OrganizationRole } from '../../platform/src/permissions';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { SSO_ORGANIZATIONS, type SsoOrganizations } from './sso-organizations.port';
import { normalizeCertificate } from './certificate';
import { samlProviderDecider, samlProviderStream } from './saml-provider.decider';
import type { SamlProviderChanges, SamlProviderSettings } from './saml-provider.events';
import { SSO_TEAMS, type SsoTeams } from './sso-teams.port';

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

/** The SAML provider commands: organization admins only; a default team must be a team of the organization. */
@Injectable()
export class SamlProviderCommands {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    @Inject(SSO_ORGANIZATIONS) private readonly membership: SsoOrganizations,
    @Inject(SSO_TEAMS) private readonly teams: SsoTeams,
  ) {}

  async create(organizationId: string, input: SamlProviderInput, caller: Caller): Promise<string> {
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
    const now = this.commands.now().toISOString();
    await this.commands.run(samlProviderStream(providerId), samlProviderDecider, { kind: 'CreateSamlProvider', providerId, organizationId, settings, now }, { caller });
    return providerId;
  }

  async update(organizationId: string, providerId: string, changes: SamlProviderChanges, caller: Caller, ifMatch?: number): Promise<void> {
    await this.membership.requireAdmin(organizationId, caller, MANAGE);
    const normalized: SamlProviderChanges = { ...changes, ...(changes.certificate !== undefined ? { certificate: certificateOf(changes.certificate) } : {}) };
    if (normalized.defaultTeam) {
      // An unknown provider is a 404 before an unknown team is a 400.
      const { state } = await this.commands.load(samlProviderStream(providerId), samlProviderDecider);
      if (!state.exists || state.organizationId !== organizationId) throw DomainError.notFound(`no SAML provider ${providerId}`);
      if (state.settings.defaultTeam !== normalized.defaultTeam) await requireTeam(this.teams, organizationId, normalized.defaultTeam);
    }
    await this.commands.run(samlProviderStream(providerId), samlProviderDecider, { kind: 'UpdateSamlProvider', providerId, organizationId, changes: normalized }, { caller }, { ifMatch });
  }

  async delete(organizationId: string, providerId: string, caller: Caller, ifMatch?: number): Promise<void> {
    await this.membership.requireAdmin(organizationId, caller, MANAGE);
    await this.commands.run(samlProviderStream(providerId), samlProviderDecider, { kind: 'DeleteSamlProvider', providerId, organizationId }, { caller }, { ifMatch });
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
  if (!(await teams.findTeam(organizationId, teamId))) throw DomainError.invalid(`defaultTeam: organization ${organizationId} has no team ${teamId}`);
}
