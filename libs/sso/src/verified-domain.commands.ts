import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import type { Versioned } from '../../platform/src/http/etag';
import { listEnvelope, type ListEnvelope } from '../../platform/src/http/list';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { SSO_ORGANIZATIONS, type SsoOrganizations } from './sso-organizations.port';
import { verifiedDomainsDecider, verifiedDomainsStream, type DomainVerificationState, type VerifiedDomainsState } from './verified-domain.decider';
import { checkVerificationRecord, TXT_RESOLVER, verificationRecordName, verificationRecordValue, type TxtResolver } from './verified-domain.dns';
import type { DomainVerificationMethod } from './verified-domain.events';

/** The verified-domain resource. */
export interface VerifiedDomainObject {
  object: 'verified-domain';
  domain: string;
  status: 'pending' | 'verified';
  /** What to publish in the domain's DNS to verify it. */
  txtRecord: { name: string; value: string };
  verifiedAt?: string;
  method?: DomainVerificationMethod;
}

export function presentVerifiedDomain(domain: string, state: DomainVerificationState): VerifiedDomainObject {
  return {
    object: 'verified-domain',
    domain,
    status: state.verifiedAt === null ? 'pending' : 'verified',
    txtRecord: { name: verificationRecordName(domain), value: verificationRecordValue(state.token) },
    ...(state.verifiedAt !== null ? { verifiedAt: state.verifiedAt } : {}),
    ...(state.method !== null ? { method: state.method } : {}),
  };
}

function presentFrom(state: VerifiedDomainsState, domain: string): VerifiedDomainObject {
  const current = state.domains.get(domain);
  if (!current) throw DomainError.notFound(`no domain ${domain}`);
  return presentVerifiedDomain(domain, current);
}

/** The domain as the stream holds it at `revision`, with that revision: its ETag. */
function versionedFrom(state: VerifiedDomainsState, revision: number | null, domain: string): Versioned<VerifiedDomainObject> {
  const object = presentFrom(state, domain);
  // A stream holding the domain has a revision: null would be a stream without events.
  if (revision === null) throw DomainError.notFound(`no domain ${domain}`);
  return { object, streamRevision: revision };
}

/** 192 random bits: nobody can guess the value an organization has to publish. */
const newToken = () => randomBytes(24).toString('base64url');

const MANAGE = 'manage its verified domains';

/**
 * The verified-domain commands, each decided by the organization's domain stream. That stream's
 * revision is the ETag of each of its domains: `ifMatch` names it. Admins only, checked (404
 * outside the organization, 403 below admin) before the revision is compared.
 */
@Injectable()
export class VerifiedDomainCommands {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    @Inject(SSO_ORGANIZATIONS) private readonly membership: SsoOrganizations,
    @Inject(TXT_RESOLVER) private readonly resolver: TxtResolver,
  ) {}

  private now(): string {
    return this.commands.now().toISOString();
  }

  /** `POST /v1/orgs/{organizationId}/verified-domains`: a pending domain with a new random token to publish. */
  async add(organizationId: string, domain: string, caller: Caller): Promise<Versioned<VerifiedDomainObject>> {
    await this.membership.requireAdmin(organizationId, caller, MANAGE);
    const outcome = await this.commands.run(verifiedDomainsStream(organizationId), verifiedDomainsDecider, { kind: 'AddVerifiedDomain', organizationId, domain, token: newToken(), now: this.now() }, { caller });
    return versionedFrom(outcome.state, outcome.revision, domain);
  }

  /**
   * `POST /v1/orgs/{organizationId}/verified-domains/{domain}/verify`: looks for the TXT record and
   * verifies the domain when it holds the current token; 409 naming what is missing otherwise.
   */
  async check(organizationId: string, domain: string, caller: Caller, ifMatch?: number): Promise<Versioned<VerifiedDomainObject>> {
    await this.membership.requireAdmin(organizationId, caller, MANAGE);
    const stream = verifiedDomainsStream(organizationId);
    const { state, revision } = await this.commands.load(stream, verifiedDomainsDecider);
    // Before the DNS lookup: a stale precondition is 412 whatever the record says, and costs no query.
    if (ifMatch !== undefined && ifMatch !== revision) throw DomainError.preconditionFailed(`the resource has changed: If-Match names revision ${ifMatch} but it is at ${revision ?? 'none'}`);
    const current = state.domains.get(domain);
    if (!current) throw DomainError.notFound(`no domain ${domain}`);
    if (current.verifiedAt !== null) return versionedFrom(state, revision, domain);
    const check = await checkVerificationRecord(this.resolver, domain, current.token);
    if (!check.found) throw DomainError.conflict(`domain ${domain} is not verified: ${check.reason}`);
    const outcome = await this.commands.run(stream, verifiedDomainsDecider, { kind: 'ConfirmVerifiedDomainByDns', organizationId, domain, token: current.token, now: this.now() }, { caller }, { ifMatch });
    return versionedFrom(outcome.state, outcome.revision, domain);
  }

  /** `DELETE /v1/orgs/{organizationId}/verified-domains/{domain}`: SAML logins stop relying on it at once. */
  async remove(organizationId: string, domain: string, caller: Caller, ifMatch?: number): Promise<void> {
    await this.membership.requireAdmin(organizationId, caller, MANAGE);
    await this.commands.run(verifiedDomainsStream(organizationId), verifiedDomainsDecider, { kind: 'RemoveVerifiedDomain', organizationId, domain }, { caller }, { ifMatch });
  }

  /** `POST /v1/admin/orgs/{organizationId}/verified-domains/{domain}` (ADMIN_TOKEN): the domain is added if need be and verified. */
  async verifyByAdmin(organizationId: string, domain: string, caller: Caller): Promise<VerifiedDomainObject> {
    // roleOf answers null only when the organization does not exist.
    if ((await this.membership.roleOf(organizationId, '')) === null) throw DomainError.notFound(`no organization ${organizationId}`);
    const outcome = await this.commands.run(verifiedDomainsStream(organizationId), verifiedDomainsDecider, { kind: 'VerifyDomainByAdmin', organizationId, domain, token: newToken(), now: this.now() }, { caller });
    return presentFrom(outcome.state, domain);
  }
}

/**
 * The read side of verified domains. Read from the organization's domain stream rather than a read
 * model: it is short (at most MAX_DOMAINS_PER_ORGANIZATION), and logins read the same stream, so
 * both agree at once on every replica.
 */
@Injectable()
export class VerifiedDomainQueries {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    @Inject(SSO_ORGANIZATIONS) private readonly membership: SsoOrganizations,
  ) {}

  /** `GET /v1/orgs/{organizationId}/verified-domains` (admins), in the order they were added. */
  async list(organizationId: string, caller: Caller): Promise<ListEnvelope<VerifiedDomainObject>> {
    await this.membership.requireAdmin(organizationId, caller, MANAGE);
    const { state } = await this.commands.load(verifiedDomainsStream(organizationId), verifiedDomainsDecider);
    const items = [...state.domains].map(([domain, current]) => presentVerifiedDomain(domain, current));
    return listEnvelope({ items, count: items.length });
  }

  /** `GET /v1/orgs/{organizationId}/verified-domains/{domain}` (admins): the domain and its ETag, the revision of the stream it was read at. */
  async get(organizationId: string, domain: string, caller: Caller): Promise<Versioned<VerifiedDomainObject>> {
    await this.membership.requireAdmin(organizationId, caller, MANAGE);
    const { state, revision } = await this.commands.load(verifiedDomainsStream(organizationId), verifiedDomainsDecider);
    return versionedFrom(state, revision, domain);
  }
}
