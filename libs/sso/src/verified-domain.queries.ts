import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import type { Versioned } from '#platform/http/etag';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import { COMMAND_RUNNER, type CommandRunner } from '#runtime/command-runner';
import { SSO_ORGANIZATIONS, type SsoOrganizations } from './sso.needs';
import {
  verifiedDomainNames,
  verifiedDomainsDecider,
  verifiedDomainsStream,
  type DomainVerificationState,
  type VerifiedDomainsState,
} from './verified-domain.decider';
import { verificationRecordName, verificationRecordValue } from './verified-domain.dns';
import type { DomainVerificationMethod } from './verified-domain.events';

/*
 * The read side of verified domains. Read from the organization's domain stream rather than a read
 * model: it is short (at most MAX_DOMAINS_PER_ORGANIZATION), and logins read the same stream, so
 * both agree at once on every replica.
 */

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

/** The domain as the stream holds it; 404 when it holds no such domain. */
export function presentDomainFrom(state: VerifiedDomainsState, domain: string): VerifiedDomainObject {
  const current = state.domains.get(domain);
  if (!current) throw DomainError.notFound(`no domain ${domain}`);
  return presentVerifiedDomain(domain, current);
}

/** The domain as the stream holds it at `revision`, with that revision: its ETag. */
export function versionedDomainFrom(state: VerifiedDomainsState, revision: number | null, domain: string): Versioned<VerifiedDomainObject> {
  const object = presentDomainFrom(state, domain);
  // A stream holding the domain has a revision: null would be a stream without events.
  if (revision === null) throw DomainError.notFound(`no domain ${domain}`);
  return { object, streamRevision: revision };
}

export const MANAGE_VERIFIED_DOMAINS = 'manage its verified domains';

/** `GET /v1/orgs/{organizationId}/verified-domains` (admins), in the order they were added. */
export class ListVerifiedDomains extends Query<ListEnvelope<VerifiedDomainObject>> {
  constructor(
    readonly organizationId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(ListVerifiedDomains)
export class ListVerifiedDomainsHandler implements IQueryHandler<ListVerifiedDomains> {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    @Inject(SSO_ORGANIZATIONS) private readonly membership: SsoOrganizations,
  ) {}

  async execute({ organizationId, caller }: ListVerifiedDomains): Promise<ListEnvelope<VerifiedDomainObject>> {
    await this.membership.requireAdmin(organizationId, caller, MANAGE_VERIFIED_DOMAINS);
    const { state } = await this.commands.load(verifiedDomainsStream(organizationId), verifiedDomainsDecider);
    const items = [...state.domains].map(([domain, current]) => presentVerifiedDomain(domain, current));
    return listEnvelope({ items, count: items.length });
  }
}

/** `GET /v1/orgs/{organizationId}/verified-domains/{domain}` (admins): the domain and its ETag, the revision of the stream it was read at. */
export class GetVerifiedDomain extends Query<Versioned<VerifiedDomainObject>> {
  constructor(
    readonly organizationId: string,
    readonly domain: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetVerifiedDomain)
export class GetVerifiedDomainHandler implements IQueryHandler<GetVerifiedDomain> {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    @Inject(SSO_ORGANIZATIONS) private readonly membership: SsoOrganizations,
  ) {}

  async execute({ organizationId, domain, caller }: GetVerifiedDomain): Promise<Versioned<VerifiedDomainObject>> {
    await this.membership.requireAdmin(organizationId, caller, MANAGE_VERIFIED_DOMAINS);
    const { state, revision } = await this.commands.load(verifiedDomainsStream(organizationId), verifiedDomainsDecider);
    return versionedDomainFrom(state, revision, domain);
  }
}

/**
 * For sites (their SITE_DOMAINS port): the domains an organization verified, read from its domain
 * stream as logins read it, so a domain removed stops counting at once.
 */
export class ListVerifiedDomainNames extends Query<readonly string[]> {
  constructor(readonly organizationId: string) {
    super();
  }
}

@QueryHandler(ListVerifiedDomainNames)
export class ListVerifiedDomainNamesHandler implements IQueryHandler<ListVerifiedDomainNames> {
  constructor(@Inject(COMMAND_RUNNER) private readonly commands: CommandRunner) {}

  async execute({ organizationId }: ListVerifiedDomainNames): Promise<readonly string[]> {
    const { state } = await this.commands.load(verifiedDomainsStream(organizationId), verifiedDomainsDecider);
    return [...verifiedDomainNames(state)];
  }
}

export const verifiedDomainQueryHandlers = [ListVerifiedDomainsHandler, GetVerifiedDomainHandler, ListVerifiedDomainNamesHandler];
