import { setTimeout as delay } from 'node:timers/promises';
import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CacheItem, CacheProvider } from '@node-saml/node-saml';
import { APP_CONFIG, type AppConfig } from '../../platform/src/config';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import { log } from '../../platform/src/logging';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { CreateUser, IssueToken } from '../../identity/src/identity.commands';
import type { UserDoc } from '../../identity/src/identity.projections';
import { UserQueries, type UserObject } from '../../identity/src/identity.queries';
import { JoinBySso } from '../../organizations/src/member.commands';
import { OrganizationMembership } from '../../organizations/src/organization.queries';
import {
  loginSettings,
  samlAssertionDecider,
  samlAssertionStream,
  samlProviderDecider,
  samlProviderStream,
  samlRequestDecider,
  samlRequestStream,
  type SamlLoginSettings,
} from './saml-provider.decider';
import { SAML_REQUEST_ID, SAML_REQUEST_TTL_MS, samlClient, samlRejected, verifySamlResponse } from './saml-response';
import { samlServiceUrls } from './saml-service';
import { SSO_TEAMS, type SsoTeams } from './sso-teams.port';

/**
 * node-saml's store of issued AuthnRequest ids, kept in the event log (`samlrequest-<id>` streams)
 * rather than in process memory, so that the replica answering the identity provider's POST knows
 * the request another replica issued. A request belongs to one provider, is answered once, and
 * expires after SAML_REQUEST_TTL_MS.
 */
export class EventLogSamlRequests implements CacheProvider {
  constructor(
    private readonly providerId: string,
    private readonly commands: CommandRunner,
    private readonly caller: Caller,
  ) {}

  async saveAsync(requestId: string, issuedAt: string): Promise<CacheItem | null> {
    const command = { kind: 'IssueSamlRequest' as const, requestId, providerId: this.providerId, issuedAt };
    await this.commands.run(samlRequestStream(requestId), samlRequestDecider, command, { caller: this.caller, source: 'system' }, { wait: false });
    return { value: issuedAt, createdAt: Date.parse(issuedAt) };
  }

  async getAsync(requestId: string): Promise<string | null> {
    if (typeof requestId !== 'string' || !SAML_REQUEST_ID.test(requestId)) return null;
    const { state } = await this.commands.load(samlRequestStream(requestId), samlRequestDecider);
    if (!state.issued || state.consumed || state.issued.providerId !== this.providerId) return null;
    if (this.commands.now().getTime() - Date.parse(state.issued.issuedAt) >= SAML_REQUEST_TTL_MS) return null;
    return state.issued.issuedAt;
  }

  async removeAsync(requestId: string | null): Promise<string | null> {
    if (typeof requestId !== 'string' || !SAML_REQUEST_ID.test(requestId)) return null;
    const outcome = await this.commands.run(
      samlRequestStream(requestId),
      samlRequestDecider,
      { kind: 'ConsumeSamlRequest', requestId },
      { caller: this.caller, source: 'system' },
      { wait: false },
    );
    return outcome.events.length > 0 ? requestId : null;
  }
}

/** The provider as a login needs it (read from its stream: current on every replica); 404 when there is none, null while incomplete. */
async function loadProvider(commands: CommandRunner, providerId: string): Promise<SamlLoginSettings | null> {
  const { state } = await commands.load(samlProviderStream(providerId), samlProviderDecider);
  if (!state.exists) throw DomainError.notFound(`no SAML provider ${providerId}`);
  return loginSettings(providerId, state);
}

export class StartSamlLogin {
  constructor(readonly providerId: string, readonly relayState: string | undefined, readonly caller: Caller) {}
}

/**
 * `GET /v1/sso/saml/{providerId}/start`: a new AuthnRequest, recorded for the InResponseTo check,
 * and the URL that carries it to the identity provider (HTTP-Redirect binding). 409 while the
 * provider lacks its SSO URL or certificate.
 */
@CommandHandler(StartSamlLogin)
export class StartSamlLoginHandler implements ICommandHandler<StartSamlLogin, { url: string }> {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async execute({ providerId, relayState, caller }: StartSamlLogin) {
    const settings = await loadProvider(this.commands, providerId);
    if (!settings) throw DomainError.conflict(`SAML provider ${providerId} is not ready for logins: it needs an ssoURL and a certificate`);
    const saml = samlClient(settings, samlServiceUrls(this.config.publicUrl, providerId), new EventLogSamlRequests(providerId, this.commands, caller));
    return { url: await saml.getAuthorizeUrlAsync(relayState ?? '', undefined, {}) };
  }
}

export class ConsumeSamlResponse {
  constructor(readonly providerId: string, readonly samlResponse: string, readonly caller: Caller) {}
}

/**
 * `POST /v1/sso/saml/{providerId}/acs`: verifies the identity provider's response (see
 * verifySamlResponse), records its assertion as used (a replay, on any replica, is refused), then
 * finds or creates the user by e-mail, joins them to the organization as an SSO member with the
 * provider's default role (adding newcomers to its default team), and issues them a token.
 */
@CommandHandler(ConsumeSamlResponse)
export class ConsumeSamlResponseHandler implements ICommandHandler<ConsumeSamlResponse, { user: UserObject; token: string }> {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly commandBus: CommandBus,
    private readonly users: UserQueries,
    private readonly membership: OrganizationMembership,
    @Inject(SSO_TEAMS) private readonly teams: SsoTeams,
  ) {}

  async execute({ providerId, samlResponse, caller }: ConsumeSamlResponse) {
    const settings = await loadProvider(this.commands, providerId);
    if (!settings) throw samlRejected(`SAML provider ${providerId} is not ready for logins (it needs an ssoURL and a certificate)`);
    const service = samlServiceUrls(this.config.publicUrl, providerId);
    const saml = samlClient(settings, service, new EventLogSamlRequests(providerId, this.commands, caller));
    const verified = await verifySamlResponse(saml, settings, service, samlResponse);
    await this.consumeAssertion(verified.assertionId, providerId, caller);

    const user = await this.findOrCreateUser(verified.email, verified.displayName, caller);
    const { organizationId } = settings;
    const wasMember = (await this.membership.roleOf(organizationId, user._id))?.member ?? false;
    await this.commandBus.execute(new JoinBySso(organizationId, user._id, settings.defaultRole, caller));
    if (!wasMember && settings.defaultTeam !== null) await this.addToDefaultTeam(organizationId, settings.defaultTeam, user._id, caller);
    const { token } = await this.commandBus.execute(new IssueToken(user._id, caller));
    return { user: this.users.present(user), token };
  }

  private async consumeAssertion(assertionId: string, providerId: string, caller: Caller): Promise<void> {
    try {
      await this.commands.run(samlAssertionStream(assertionId), samlAssertionDecider, { kind: 'ConsumeSamlAssertion', assertionId, providerId }, { caller, source: 'system' }, { wait: false });
    } catch (error) {
      const replayed = (error instanceof DomainError && error.status === 409) || (error as { name?: string }).name === 'WrongExpectedRevisionError';
      if (replayed) throw samlRejected('its assertion was already used to log in (replayed response)');
      throw error;
    }
  }

  private async findOrCreateUser(email: string, displayName: string | null, caller: Caller): Promise<UserDoc> {
    const existing = await this.users.byEmail(email);
    if (existing) return existing;
    try {
      const { userId } = await this.commandBus.execute(new CreateUser(email, displayName ?? email.split('@')[0], null, caller));
      const created = await this.users.byId(userId);
      if (created) return created;
    } catch (error) {
      if (!(error instanceof DomainError && error.status === 409)) throw error;
    }
    // The address was claimed meanwhile (a concurrent login or invitation): that user shows up in the read model shortly.
    for (let attempt = 0; attempt < 25; attempt++) {
      await delay(200);
      const user = await this.users.byEmail(email);
      if (user) return user;
    }
    throw DomainError.conflict(`the user with e-mail ${email} is being created by another request; log in again`);
  }

  /** Best effort: the login succeeds even if the team is gone or the teams context refuses. */
  private async addToDefaultTeam(organizationId: string, teamId: string, userId: string, caller: Caller): Promise<void> {
    try {
      if (!(await this.teams.findTeam(organizationId, teamId))) {
        log.warn({ organizationId, teamId, userId }, 'SAML login: the default team no longer exists; the user joined no team');
        return;
      }
      await this.teams.addMember(organizationId, teamId, userId, caller);
    } catch (error) {
      log.warn({ err: error, organizationId, teamId, userId }, 'SAML login: could not add the user to the default team');
    }
  }
}
