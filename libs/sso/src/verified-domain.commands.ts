import { randomBytes } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import { listEnvelope, type ListEnvelope } from '../../platform/src/http/list';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { OrganizationMembership } from '../../organizations/src/organization.queries';
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

/** 192 random bits: nobody can guess the value an organization has to publish. */
const newToken = () => randomBytes(24).toString('base64url');

const MANAGE = 'manage its verified domains';

export class AddVerifiedDomain {
  constructor(readonly organizationId: string, readonly domain: string, readonly caller: Caller) {}
}

/** `POST /v1/orgs/{organizationId}/verified-domains`: a pending domain with a new random token to publish. */
@CommandHandler(AddVerifiedDomain)
export class AddVerifiedDomainHandler implements ICommandHandler<AddVerifiedDomain, VerifiedDomainObject> {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    private readonly membership: OrganizationMembership,
  ) {}

  async execute({ organizationId, domain, caller }: AddVerifiedDomain) {
    await this.membership.requireAdmin(organizationId, caller, MANAGE);
    const now = this.commands.now().toISOString();
    const outcome = await this.commands.run(verifiedDomainsStream(organizationId), verifiedDomainsDecider, { kind: 'AddVerifiedDomain', organizationId, domain, token: newToken(), now }, { caller });
    return presentFrom(outcome.state, domain);
  }
}

export class CheckVerifiedDomain {
  constructor(readonly organizationId: string, readonly domain: string, readonly caller: Caller) {}
}

/**
 * `POST /v1/orgs/{organizationId}/verified-domains/{domain}/verify`: looks for the TXT record and
 * verifies the domain when it holds the current token; 409 naming what is missing otherwise.
 */
@CommandHandler(CheckVerifiedDomain)
export class CheckVerifiedDomainHandler implements ICommandHandler<CheckVerifiedDomain, VerifiedDomainObject> {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    private readonly membership: OrganizationMembership,
    @Inject(TXT_RESOLVER) private readonly resolver: TxtResolver,
  ) {}

  async execute({ organizationId, domain, caller }: CheckVerifiedDomain) {
    await this.membership.requireAdmin(organizationId, caller, MANAGE);
    const stream = verifiedDomainsStream(organizationId);
    const { state } = await this.commands.load(stream, verifiedDomainsDecider);
    const current = state.domains.get(domain);
    if (!current) throw DomainError.notFound(`no domain ${domain}`);
    if (current.verifiedAt !== null) return presentVerifiedDomain(domain, current);
    const check = await checkVerificationRecord(this.resolver, domain, current.token);
    if (!check.found) throw DomainError.conflict(`domain ${domain} is not verified: ${check.reason}`);
    const now = this.commands.now().toISOString();
    const outcome = await this.commands.run(stream, verifiedDomainsDecider, { kind: 'ConfirmVerifiedDomainByDns', organizationId, domain, token: current.token, now }, { caller });
    return presentFrom(outcome.state, domain);
  }
}

export class RemoveVerifiedDomain {
  constructor(readonly organizationId: string, readonly domain: string, readonly caller: Caller) {}
}

/** `DELETE /v1/orgs/{organizationId}/verified-domains/{domain}`: SAML logins stop relying on it at once. */
@CommandHandler(RemoveVerifiedDomain)
export class RemoveVerifiedDomainHandler implements ICommandHandler<RemoveVerifiedDomain, void> {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    private readonly membership: OrganizationMembership,
  ) {}

  async execute({ organizationId, domain, caller }: RemoveVerifiedDomain): Promise<void> {
    await this.membership.requireAdmin(organizationId, caller, MANAGE);
    await this.commands.run(verifiedDomainsStream(organizationId), verifiedDomainsDecider, { kind: 'RemoveVerifiedDomain', organizationId, domain }, { caller });
  }
}

export class VerifyDomainByAdmin {
  constructor(readonly organizationId: string, readonly domain: string, readonly caller: Caller) {}
}

/** `POST /v1/admin/orgs/{organizationId}/verified-domains/{domain}` (ADMIN_TOKEN): the domain is added if need be and verified. */
@CommandHandler(VerifyDomainByAdmin)
export class VerifyDomainByAdminHandler implements ICommandHandler<VerifyDomainByAdmin, VerifiedDomainObject> {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    private readonly membership: OrganizationMembership,
  ) {}

  async execute({ organizationId, domain, caller }: VerifyDomainByAdmin) {
    // roleOf answers null only when the organization does not exist.
    if ((await this.membership.roleOf(organizationId, '')) === null) throw DomainError.notFound(`no organization ${organizationId}`);
    const now = this.commands.now().toISOString();
    const outcome = await this.commands.run(verifiedDomainsStream(organizationId), verifiedDomainsDecider, { kind: 'VerifyDomainByAdmin', organizationId, domain, token: newToken(), now }, { caller });
    return presentFrom(outcome.state, domain);
  }
}

export class ListVerifiedDomains {
  constructor(readonly organizationId: string, readonly caller: Caller) {}
}

/**
 * `GET /v1/orgs/{organizationId}/verified-domains` (admins), in the order they were added. Read
 * from the organization's domain stream rather than a read model: it is short (at most
 * MAX_DOMAINS_PER_ORGANIZATION), and logins read the same stream, so both agree at once on every replica.
 */
@QueryHandler(ListVerifiedDomains)
export class ListVerifiedDomainsHandler implements IQueryHandler<ListVerifiedDomains, ListEnvelope<VerifiedDomainObject>> {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    private readonly membership: OrganizationMembership,
  ) {}

  async execute({ organizationId, caller }: ListVerifiedDomains) {
    await this.membership.requireAdmin(organizationId, caller, MANAGE);
    const { state } = await this.commands.load(verifiedDomainsStream(organizationId), verifiedDomainsDecider);
    const items = [...state.domains].map(([domain, current]) => presentVerifiedDomain(domain, current));
    return listEnvelope({ items, count: items.length });
  }
}
