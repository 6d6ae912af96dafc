import { Inject, Injectable } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import type { OrganizationRole } from '#platform/permissions';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { SSO_ORGANIZATIONS, SSO_TEAMS, type SsoOrganizations, type SsoTeams } from './sso.needs';
import { SAML_PROVIDERS, type SamlProviderDoc } from './saml-provider.projections';
import { samlServiceUrls, type SamlServiceUrls } from './saml-service';

/**
 * What a provider answers for an SSO URL not set yet: the platform requires `ssoURL` to be a URI
 * even then, and `about:blank` (RFC 6694) is the URI of nothing. Unset texts are ''.
 */
export const UNSET_SSO_URL = 'about:blank';

/** The SAML provider resource: `pending` until it has the SSO URL and certificate a login needs. */
export interface SamlProviderObject {
  object: 'saml-provider';
  id: string;
  label: string;
  ssoURL: string;
  entityID: string;
  certificate: string;
  /** The Team object, while the team exists. */
  defaultTeam?: { id: string; object: 'team'; [k: string]: unknown };
  defaultRole: OrganizationRole;
  createdAt: string;
  status: 'active' | 'pending';
  service: SamlServiceUrls;
  urls: { location: string };
}

/** One way to sign in to an organization, as a login page lists them. */
export interface SsoOption {
  id: string;
  label: string;
  startURL: string;
}

/** The SAML provider resource as the reads answer it (the embedded default team comes from the teams context). */
@Injectable()
export class SamlProviderPresenter {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SSO_TEAMS) private readonly teams: SsoTeams,
  ) {}

  async present(provider: SamlProviderDoc): Promise<SamlProviderObject> {
    const team = provider.defaultTeam === null ? null : await this.teams.findTeam(provider.organizationId, provider.defaultTeam);
    return {
      object: 'saml-provider',
      id: provider._id,
      label: provider.label,
      ssoURL: provider.ssoURL ?? UNSET_SSO_URL,
      entityID: provider.entityID ?? '',
      certificate: provider.certificate ?? '',
      ...(team ? { defaultTeam: team } : {}),
      defaultRole: provider.defaultRole,
      createdAt: provider.createdAt,
      // The same test as a login's (`loginSettings`) and the sign-in options' below.
      status: provider.ssoURL !== null && provider.certificate !== null ? 'active' : 'pending',
      service: samlServiceUrls(this.config.publicUrl, provider._id),
      urls: { location: `${this.config.publicUrl}/v1/orgs/${provider.organizationId}/saml/${provider._id}` },
    };
  }
}

/* The read side of SAML providers: admins read them in full; anyone reads how to sign in. */

const MANAGE = 'manage its SAML providers';

/** `GET /v1/orgs/{organizationId}/saml`: admins only; oldest first. */
export class ListSamlProviders extends Query<ListEnvelope<SamlProviderObject>> {
  constructor(
    readonly organizationId: string,
    readonly caller: Caller,
    readonly paging: { page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListSamlProviders)
export class ListSamlProvidersHandler implements IQueryHandler<ListSamlProviders> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(SSO_ORGANIZATIONS) private readonly membership: SsoOrganizations,
    private readonly presenter: SamlProviderPresenter,
  ) {}

  async execute({ organizationId, caller, paging }: ListSamlProviders): Promise<ListEnvelope<SamlProviderObject>> {
    await this.membership.requireAdmin(organizationId, caller, MANAGE);
    const found = await this.reads
      .collection<SamlProviderDoc>(SAML_PROVIDERS)
      .find({ organizationId }, { sort: { createdAt: 1 }, limit: paging.limit, after: paging.page });
    const items = await Promise.all(found.items.map((provider) => this.presenter.present(provider)));
    return listEnvelope({ items, count: found.count, next: found.next });
  }
}

/** `GET /v1/orgs/{organizationId}/saml/{samlProviderId}`: admins only; the provider and its ETag source (the stream revision). */
export class GetSamlProvider extends Query<{ provider: SamlProviderObject; revision: number }> {
  constructor(
    readonly organizationId: string,
    readonly providerId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetSamlProvider)
export class GetSamlProviderHandler implements IQueryHandler<GetSamlProvider> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(SSO_ORGANIZATIONS) private readonly membership: SsoOrganizations,
    private readonly presenter: SamlProviderPresenter,
  ) {}

  async execute({ organizationId, providerId, caller }: GetSamlProvider): Promise<{ provider: SamlProviderObject; revision: number }> {
    await this.membership.requireAdmin(organizationId, caller, MANAGE);
    const provider = await this.reads.collection<SamlProviderDoc>(SAML_PROVIDERS).get(providerId);
    if (!provider || provider.organizationId !== organizationId) throw DomainError.notFound(`no SAML provider ${providerId}`);
    return { provider: await this.presenter.present(provider), revision: provider.revision };
  }
}

/**
 * `GET /v1/orgs/{organizationId}/sso`: how to sign in to the organization, for a login page, so
 * anyone may read it (no token): the providers ready for logins (with an SSO URL and a certificate),
 * oldest first, each with only its id, label and start URL. 404 for an unknown organization.
 */
export class ListSsoOptions extends Query<{ items: SsoOption[] }> {
  constructor(readonly organizationId: string) {
    super();
  }
}

@QueryHandler(ListSsoOptions)
export class ListSsoOptionsHandler implements IQueryHandler<ListSsoOptions> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SSO_ORGANIZATIONS) private readonly membership: SsoOrganizations,
  ) {}

  async execute({ organizationId }: ListSsoOptions): Promise<{ items: SsoOption[] }> {
    // roleOf answers null only when the organization does not exist (no user is needed to tell).
    if ((await this.membership.roleOf(organizationId, '')) === null) throw DomainError.notFound(`no organization ${organizationId}`);
    const found = await this.reads
      .collection<SamlProviderDoc>(SAML_PROVIDERS)
      .find({ organizationId, ssoURL: { $ne: null }, certificate: { $ne: null } }, { sort: { createdAt: 1 }, limit: 1000, count: false });
    return {
      items: found.items.map((provider) => ({
        id: provider._id,
        label: provider.label,
        startURL: samlServiceUrls(this.config.publicUrl, provider._id).startURL,
      })),
    };
  }
}

export const samlProviderQueryHandlers = [ListSamlProvidersHandler, GetSamlProviderHandler, ListSsoOptionsHandler];
