import { randomBytes } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { Command, CommandHandler } from '@nestjs/cqrs';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import type { Versioned } from '#platform/http/etag';
import { DecidingHandler } from '#runtime/command-handler';
import { SSO_ORGANIZATIONS, type SsoOrganizations } from './sso.needs';
import { verifiedDomainsDecider, verifiedDomainsStream } from './verified-domain.decider';
import { checkVerificationRecord, TXT_RESOLVER, type TxtResolver } from './verified-domain.dns';
import { MANAGE_VERIFIED_DOMAINS, presentDomainFrom, versionedDomainFrom, type VerifiedDomainObject } from './verified-domain.queries';

/*
 * The verified-domain commands, each decided by the organization's domain stream. That stream's
 * revision is the ETag of each of its domains: `ifMatch` names it. Admins only, checked (404
 * outside the organization, 403 below admin) before the revision is compared.
 */

/** 192 random bits: nobody can guess the value an organization has to publish. */
const newToken = () => randomBytes(24).toString('base64url');

/** `POST /v1/orgs/{organizationId}/verified-domains`: a pending domain with a new random token to publish. */
export class AddVerifiedDomain extends Command<Versioned<VerifiedDomainObject>> {
  constructor(
    readonly organizationId: string,
    readonly domain: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(AddVerifiedDomain)
export class AddVerifiedDomainHandler extends DecidingHandler {
  constructor(@Inject(SSO_ORGANIZATIONS) private readonly membership: SsoOrganizations) {
    super();
  }

  async execute({ organizationId, domain, caller }: AddVerifiedDomain): Promise<Versioned<VerifiedDomainObject>> {
    await this.membership.requireAdmin(organizationId, caller, MANAGE_VERIFIED_DOMAINS);
    const outcome = await this.decide(
      verifiedDomainsStream(organizationId),
      verifiedDomainsDecider,
      { kind: 'AddVerifiedDomain', organizationId, domain, token: newToken(), now: this.now() },
      { caller },
    );
    return versionedDomainFrom(outcome.state, outcome.revision, domain);
  }
}

/**
 * `POST /v1/orgs/{organizationId}/verified-domains/{domain}/verify`: looks for the TXT record and
 * verifies the domain when it holds the current token; 409 naming what is missing otherwise.
 */
export class VerifyDomainByDns extends Command<Versioned<VerifiedDomainObject>> {
  constructor(
    readonly organizationId: string,
    readonly domain: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(VerifyDomainByDns)
export class VerifyDomainByDnsHandler extends DecidingHandler {
  constructor(
    @Inject(SSO_ORGANIZATIONS) private readonly membership: SsoOrganizations,
    @Inject(TXT_RESOLVER) private readonly resolver: TxtResolver,
  ) {
    super();
  }

  async execute({ organizationId, domain, caller, ifMatch }: VerifyDomainByDns): Promise<Versioned<VerifiedDomainObject>> {
    await this.membership.requireAdmin(organizationId, caller, MANAGE_VERIFIED_DOMAINS);
    const stream = verifiedDomainsStream(organizationId);
    const { state, revision } = await this.load(stream, verifiedDomainsDecider);
    // Before the DNS lookup: a stale precondition is 412 whatever the record says, and costs no query.
    if (ifMatch !== undefined && ifMatch !== revision)
      throw DomainError.preconditionFailed(
        `the resource has changed: If-Match names revision ${ifMatch} but it is at ${revision ?? 'none'}`,
      );
    const current = state.domains.get(domain);
    if (!current) throw DomainError.notFound(`no domain ${domain}`);
    if (current.verifiedAt !== null) return versionedDomainFrom(state, revision, domain);
    const check = await checkVerificationRecord(this.resolver, domain, current.token);
    if (!check.found) throw DomainError.conflict(`domain ${domain} is not verified: ${check.reason}`);
    const outcome = await this.decide(
      stream,
      verifiedDomainsDecider,
      { kind: 'ConfirmVerifiedDomainByDns', organizationId, domain, token: current.token, now: this.now() },
      { caller, ifMatch },
    );
    return versionedDomainFrom(outcome.state, outcome.revision, domain);
  }
}

/** `DELETE /v1/orgs/{organizationId}/verified-domains/{domain}`: SAML logins stop relying on it at once. */
export class RemoveVerifiedDomain extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly domain: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(RemoveVerifiedDomain)
export class RemoveVerifiedDomainHandler extends DecidingHandler {
  constructor(@Inject(SSO_ORGANIZATIONS) private readonly membership: SsoOrganizations) {
    super();
  }

  async execute({ organizationId, domain, caller, ifMatch }: RemoveVerifiedDomain): Promise<void> {
    await this.membership.requireAdmin(organizationId, caller, MANAGE_VERIFIED_DOMAINS);
    await this.decide(
      verifiedDomainsStream(organizationId),
      verifiedDomainsDecider,
      { kind: 'RemoveVerifiedDomain', organizationId, domain },
      { caller, ifMatch },
    );
  }
}

/** `POST /v1/admin/orgs/{organizationId}/verified-domains/{domain}` (ADMIN_TOKEN): the domain is added if need be and verified. */
export class VerifyDomainByAdmin extends Command<VerifiedDomainObject> {
  constructor(
    readonly organizationId: string,
    readonly domain: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(VerifyDomainByAdmin)
export class VerifyDomainByAdminHandler extends DecidingHandler {
  constructor(@Inject(SSO_ORGANIZATIONS) private readonly membership: SsoOrganizations) {
    super();
  }

  async execute({ organizationId, domain, caller }: VerifyDomainByAdmin): Promise<VerifiedDomainObject> {
    // roleOf answers null only when the organization does not exist.
    if ((await this.membership.roleOf(organizationId, '')) === null) throw DomainError.notFound(`no organization ${organizationId}`);
    const outcome = await this.decide(
      verifiedDomainsStream(organizationId),
      verifiedDomainsDecider,
      { kind: 'VerifyDomainByAdmin', organizationId, domain, token: newToken(), now: this.now() },
      { caller },
    );
    return presentDomainFrom(outcome.state, domain);
  }
}

export const verifiedDomainCommandHandlers = [
  AddVerifiedDomainHandler,
  VerifyDomainByDnsHandler,
  RemoveVerifiedDomainHandler,
  VerifyDomainByAdminHandler,
];
