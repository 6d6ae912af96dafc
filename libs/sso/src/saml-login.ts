import { setTimeout as delay } from 'node:timers/promises';
import { Inject } from '@nestjs/common';
import { Command, CommandHandler } from '@nestjs/cqrs';
import type { CacheItem, CacheProvider } from '@node-saml/node-saml';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { log } from '#platform/logging';
import type { CommandRunner } from '#runtime/command-runner';
import { DecidingHandler } from '#runtime/command-handler';
import { SSO_ORGANIZATIONS, SSO_TEAMS, SSO_USERS, type SsoOrganizations, type SsoTeams, type SsoUser, type SsoUsers } from './sso.needs';
import { decideSamlAccess, samlSubjectKey, type SamlAccessDecision } from './saml-access';
import {
  loginSettings,
  nameIdHash,
  samlAssertionDecider,
  samlAssertionStream,
  samlIdentityDecider,
  samlIdentityStream,
  samlProviderDecider,
  samlProviderStream,
  samlRefusalDecider,
  samlRefusalStream,
  samlRequestDecider,
  samlRequestStream,
  type SamlLoginSettings,
} from './saml-provider.decider';
import type { SamlAccessBasis, SamlRefusalReason } from './saml-provider.events';
import {
  SAML_REQUEST_ID,
  SAML_REQUEST_TTL_MS,
  samlClient,
  samlRejected,
  verifySamlResponse,
  type VerifiedAssertion,
} from './saml-response';
import { checkSamlResponseShape } from './saml-xml-limits';
import { emailDomainOf, verifiedDomainNames, verifiedDomainsDecider, verifiedDomainsStream } from './verified-domain.decider';
import { samlServiceUrls } from './saml-service';
import { SAML_FAILURE_LIMITER, type SamlFailureLimiter } from './saml-failure-limiter';

/**
 * node-saml's store of issued AuthnRequest ids, kept in the event log (`samlrequest-<id>` streams)
 * rather than in process memory, so that the replica answering the identity provider's POST knows
 * the request another replica issued. A request belongs to one provider, is answered once, and
 * expires after SAML_REQUEST_TTL_MS. node-saml's own `removeAsync` calls record nothing: the login
 * consumes the request itself with `consume`, once the answer is verified, atomically.
 */
export class EventLogSamlRequests implements CacheProvider {
  constructor(
    private readonly providerId: string,
    private readonly commands: CommandRunner,
    private readonly caller: Caller,
  ) {}

  async saveAsync(requestId: string, issuedAt: string): Promise<CacheItem | null> {
    const command = { kind: 'IssueSamlRequest' as const, requestId, providerId: this.providerId, issuedAt };
    await this.commands.run(
      samlRequestStream(requestId),
      samlRequestDecider,
      command,
      { caller: this.caller, source: 'system' },
      { wait: false },
    );
    return { value: issuedAt, createdAt: Date.parse(issuedAt) };
  }

  async getAsync(requestId: string): Promise<string | null> {
    if (typeof requestId !== 'string' || !SAML_REQUEST_ID.test(requestId)) return null;
    const { state } = await this.commands.load(samlRequestStream(requestId), samlRequestDecider);
    // A consumed request still passes here: `consume` alone decides "already answered", atomically, so
    // that every losing answer gets the same 403 whether it arrives before or after the winner's append.
    if (!state.issued || state.issued.providerId !== this.providerId) return null;
    if (this.commands.now().getTime() - Date.parse(state.issued.issuedAt) >= SAML_REQUEST_TTL_MS) return null;
    return state.issued.issuedAt;
  }

  async removeAsync(requestId: string | null): Promise<string | null> {
    return requestId;
  }

  /**
   * Marks the request answered. Of concurrent answers (in this process they are decided one after
   * another; across replicas the append's expected revision makes the loser re-decide) exactly one
   * wins; the others get 401 "already answered", like any replayed response.
   */
  async consume(requestId: string): Promise<void> {
    if (!SAML_REQUEST_ID.test(requestId)) throw samlRejected('it answers a login request that is unknown, expired or already answered');
    const command = {
      kind: 'ConsumeSamlRequest' as const,
      requestId,
      providerId: this.providerId,
      now: this.commands.now().toISOString(),
      ttlMs: SAML_REQUEST_TTL_MS,
    };
    try {
      await this.commands.run(
        samlRequestStream(requestId),
        samlRequestDecider,
        command,
        { caller: this.caller, source: 'system' },
        { wait: false },
      );
    } catch (error) {
      if (error instanceof DomainError && error.status === 404)
        throw samlRejected('it answers a login request that is unknown, expired or already answered');
      if (error instanceof DomainError) throw samlRejected(error.message);
      if ((error as { name?: string }).name === 'WrongExpectedRevisionError') throw samlRejected('the login request was already answered');
      throw error;
    }
  }
}

/** The provider as a login needs it (read from its stream: current on every replica); 404 when there is none, null while incomplete. */
async function loadProvider(commands: CommandRunner, providerId: string): Promise<SamlLoginSettings | null> {
  const { state } = await commands.load(samlProviderStream(providerId), samlProviderDecider);
  if (!state.exists) throw DomainError.notFound(`no SAML provider ${providerId}`);
  return loginSettings(providerId, state);
}

/** What a login finds out about whom the assertion names, read from the event log (current on every replica) and the user directory. */
interface SamlSubject {
  subjectKey: string;
  nameIdHash: string;
  emailDomain: string | null;
  /** Of the users the assertion may name, the organization's members (with their SSO consent). */
  members: ReadonlyMap<string, { ssoConsent: boolean }>;
  decision: SamlAccessDecision;
}

/*
 * The SAML login commands. The user, their membership and their token come from the identity and
 * organizations contexts through the SSO_USERS and SSO_ORGANIZATIONS ports, acting as the service
 * (the caller is the system actor `SAML login`).
 */

/**
 * `GET /v1/sso/saml/{providerId}/start`: a new AuthnRequest, recorded for the InResponseTo check,
 * and the URL that carries it to the identity provider (HTTP-Redirect binding). 409 while the
 * provider lacks its SSO URL or certificate.
 */
export class StartSamlLogin extends Command<{ url: string }> {
  constructor(
    readonly providerId: string,
    readonly relayState: string | undefined,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(StartSamlLogin)
export class StartSamlLoginHandler extends DecidingHandler {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    super();
  }

  async execute({ providerId, relayState, caller }: StartSamlLogin): Promise<{ url: string }> {
    const settings = await loadProvider(this.runner, providerId);
    if (!settings) throw DomainError.conflict(`SAML provider ${providerId} is not ready for logins: it needs an ssoURL and a certificate`);
    const saml = samlClient(
      settings,
      samlServiceUrls(this.config.publicUrl, providerId),
      new EventLogSamlRequests(providerId, this.runner, caller),
    );
    return { url: await saml.getAuthorizeUrlAsync(relayState ?? '', undefined, {}) };
  }
}

/** What a SAML login answers: the user and their new token. */
export interface SamlLogin {
  user: ReturnType<SsoUsers['present']>;
  token: string;
}

/**
 * `POST /v1/sso/saml/{providerId}/acs`: checks the response's size and shape (400), verifies it
 * (see verifySamlResponse), consumes the AuthnRequest it answers (401 when another answer won),
 * records its assertion as used (a replay, on any replica, is refused), then decides whom it may
 * sign in (decideSamlAccess; 403, recorded for the organization's audit log, when nobody). The
 * user (created only for an address in a verified domain) joins the organization as an SSO member
 * with the provider's default role (newcomers to its default team) and gets a token.
 *
 * Failed attempts are counted per client address (SamlFailureLimiter): past the limit, 429 before
 * anything else.
 */
export class CompleteSamlLogin extends Command<SamlLogin> {
  constructor(
    readonly providerId: string,
    readonly samlResponse: string,
    readonly clientAddress: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(CompleteSamlLogin)
export class CompleteSamlLoginHandler extends DecidingHandler {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SSO_USERS) private readonly users: SsoUsers,
    @Inject(SSO_ORGANIZATIONS) private readonly organizations: SsoOrganizations,
    @Inject(SSO_TEAMS) private readonly teams: SsoTeams,
    @Inject(SAML_FAILURE_LIMITER) private readonly failures: SamlFailureLimiter,
  ) {
    super();
  }

  async execute({ providerId, samlResponse, clientAddress, caller }: CompleteSamlLogin): Promise<SamlLogin> {
    this.failures.check(clientAddress);
    try {
      return await this.login(providerId, samlResponse, caller);
    } catch (error) {
      // Refusals count (forged, replayed, unknown provider, not allowed); store outages do not.
      const status = (error as { status?: unknown }).status;
      if (typeof status === 'number' && status >= 400 && status < 500) this.failures.recordFailure(clientAddress);
      throw error;
    }
  }

  private async login(providerId: string, samlResponse: string, caller: Caller): Promise<SamlLogin> {
    checkSamlResponseShape(samlResponse);
    const settings = await loadProvider(this.runner, providerId);
    if (!settings) throw samlRejected(`SAML provider ${providerId} is not ready for logins (it needs an ssoURL and a certificate)`);
    const service = samlServiceUrls(this.config.publicUrl, providerId);
    const requests = new EventLogSamlRequests(providerId, this.runner, caller);
    const verified = await verifySamlResponse(samlClient(settings, service, requests), settings, service, samlResponse);
    await requests.consume(verified.requestId);
    await this.consumeAssertion(verified.assertionId, providerId, caller);

    const { organizationId } = settings;
    const subject = await this.subjectOf(settings, verified);
    const { decision } = subject;
    if (!decision.allowed) {
      await this.recordRefusal(settings, subject, decision.reason, caller);
      throw DomainError.forbidden(
        'this identity provider may sign in only members of its organization who agreed to single sign-on, and addresses in domains the organization has verified',
      );
    }
    const user =
      decision.userId === null
        ? await this.createUser(verified.email, verified.displayName, caller)
        : await this.existingUser(decision.userId);
    if (decision.bind) await this.bind(settings, subject, user._id, decision.basis, caller);
    const wasMember = subject.members.has(user._id);
    await this.organizations.joinBySso(organizationId, user._id, settings.defaultRole, caller);
    if (!wasMember && settings.defaultTeam !== null) await this.addToDefaultTeam(organizationId, settings.defaultTeam, user._id, caller);
    const { token } = await this.users.issueToken(user._id, caller);
    return { user: this.users.present(user), token };
  }

  private async consumeAssertion(assertionId: string, providerId: string, caller: Caller): Promise<void> {
    try {
      await this.decide(
        samlAssertionStream(assertionId),
        samlAssertionDecider,
        { kind: 'ConsumeSamlAssertion', assertionId, providerId },
        { caller, source: 'system', wait: false },
      );
    } catch (error) {
      const replayed =
        (error instanceof DomainError && error.status === 409) || (error as { name?: string }).name === 'WrongExpectedRevisionError';
      if (replayed) throw samlRejected('its assertion was already used to log in (replayed response)');
      throw error;
    }
  }

  private async subjectOf(settings: SamlLoginSettings, verified: VerifiedAssertion): Promise<SamlSubject> {
    const subjectKey = samlSubjectKey(verified.nameID, verified.nameIDFormat);
    const [identity, domains, emailUser] = await Promise.all([
      this.load(samlIdentityStream(settings.providerId, subjectKey), samlIdentityDecider),
      this.load(verifiedDomainsStream(settings.organizationId), verifiedDomainsDecider),
      this.users.byEmail(verified.email),
    ]);
    const verifiedDomains = verifiedDomainNames(domains.state);
    const boundUserId = identity.state.binding?.userId ?? null;
    const boundUser = boundUserId === null || boundUserId === emailUser?._id ? null : await this.users.byId(boundUserId);
    const candidates = [emailUser, boundUser].filter((user): user is SsoUser => user !== null);
    const members = await this.organizations.membersAmong(
      settings.organizationId,
      candidates.map((user) => user._id),
    );
    const inDomain = (email: string) => {
      const domain = emailDomainOf(email);
      return domain !== null && verifiedDomains.has(domain);
    };
    const emailDomain = emailDomainOf(verified.email);
    const decision = decideSamlAccess({
      boundUserId,
      emailUserId: emailUser?._id ?? null,
      emailInVerifiedDomain: inDomain(verified.email),
      consentingMembers: new Set(candidates.filter((user) => members.get(user._id)?.ssoConsent === true).map((user) => user._id)),
      usersInVerifiedDomains: new Set(candidates.filter((user) => inDomain(user.email)).map((user) => user._id)),
    });
    return { subjectKey, nameIdHash: nameIdHash(subjectKey), emailDomain, members, decision };
  }

  /** Appended before the 403 is answered, and waited for, so the organization's audit log shows it at once. */
  private async recordRefusal(settings: SamlLoginSettings, subject: SamlSubject, reason: SamlRefusalReason, caller: Caller): Promise<void> {
    const { providerId, organizationId } = settings;
    log.warn(
      { providerId, organizationId, reason, nameIdHash: subject.nameIdHash, emailDomain: subject.emailDomain },
      'SAML login refused: the provider may not sign in this identity',
    );
    const command = {
      kind: 'RecordSamlLoginRefusal' as const,
      providerId,
      organizationId,
      reason,
      nameIdHash: subject.nameIdHash,
      emailDomain: subject.emailDomain,
      now: this.now(),
    };
    await this.decide(samlRefusalStream(providerId), samlRefusalDecider, command, { caller, source: 'system' });
  }

  private async bind(
    settings: SamlLoginSettings,
    subject: SamlSubject,
    userId: string,
    basis: SamlAccessBasis,
    caller: Caller,
  ): Promise<void> {
    const { providerId, organizationId } = settings;
    const command = {
      kind: 'BindSamlIdentity' as const,
      providerId,
      organizationId,
      nameIdHash: subject.nameIdHash,
      userId,
      basis,
      now: this.now(),
    };
    await this.decide(samlIdentityStream(providerId, subject.subjectKey), samlIdentityDecider, command, {
      caller,
      source: 'system',
      wait: false,
    });
  }

  private async existingUser(userId: string): Promise<SsoUser> {
    const user = await this.users.byId(userId);
    if (!user) throw DomainError.conflict(`user ${userId} is not available; log in again`);
    return user;
  }

  /** Only for an address in a verified domain (decideSamlAccess). */
  private async createUser(email: string, displayName: string | null, caller: Caller): Promise<SsoUser> {
    try {
      const userId = await this.users.createUser(email, displayName ?? email.split('@')[0], null, caller);
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

export const samlLoginCommandHandlers = [StartSamlLoginHandler, CompleteSamlLoginHandler];
