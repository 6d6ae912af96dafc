import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TOKEN_VERIFIER } from '#platform/http/auth';
import { JsonNestLogger } from '#platform/logging';
import { compose, type Composition, type ContextManifest, type PortBinding } from '#runtime/context';
import type { ServiceToken, Services } from '#runtime/reactor';
import type { Runtime } from '#runtime/runtime.module';
import {
  identityContext,
  ReadModelTokenVerifier,
  UsersForChangeRequests,
  UsersForComments,
  UsersForIntegrations,
  UsersForOrganizations,
  UsersForSso,
  UsersForTeams,
} from '#identity';
import {
  MEMBER_SPACES,
  MEMBER_TEAM_COUNTS,
  ORGANIZATION_USERS,
  organizationsContext,
  OrganizationsForAudit,
  OrganizationsForChangeRequests,
  OrganizationsForComments,
  OrganizationsForIntegrations,
  OrganizationsForOpenapi,
  OrganizationsForSites,
  OrganizationsForSpaces,
  OrganizationsForSso,
  OrganizationsForTeams,
  OrganizationsForTranslations,
  VISITOR_CLAIMS_KEY,
  visitorClaimsKey,
} from '#organizations';
import { TEAM_ORGANIZATIONS, TEAM_USERS, teamsContext, TeamsForOrganizations, TeamsForSpaces, TeamsForSso } from '#teams';
import {
  MemberSpaces,
  SPACE_FACT_SOURCES,
  SPACE_ORGANIZATIONS,
  SPACE_TEAMS,
  SpacesForChangeRequests,
  SpacesForComments,
  SpacesForContent,
  SpacesForIntegrations,
  SpacesForSites,
  spacesContext,
} from '#spaces';
import {
  CONTENT_CHANGE_REQUESTS,
  CONTENT_OPENAPI,
  CONTENT_SPACES,
  CONTENT_URL_KEY,
  ContentForChangeRequests,
  ContentForComments,
  ContentForSites,
  ContentForSpaces,
  contentContext,
  contentUrlKey,
} from '#content';
import {
  CHANGE_REQUEST_COMMENTS,
  CHANGE_REQUEST_CONTENT,
  CHANGE_REQUEST_DOCUMENTS,
  CHANGE_REQUEST_ORGANIZATIONS,
  CHANGE_REQUEST_SPACES,
  CHANGE_REQUEST_URL_KEY,
  CHANGE_REQUEST_USERS,
  changeRequestsContext,
  ChangeRequestsForComments,
  ChangeRequestsForContent,
  ChangeRequestsForSpaces,
  changeRequestUrlKey,
} from '#changerequests';
import { SITE_CONTENT, SITE_DOMAINS, SITE_ORGANIZATIONS, SITE_SPACES, SITE_VIEWS, sitesContext, SitesForIntegrations } from '#sites';
import { TRANSLATION_ORGANIZATIONS, translationsContext } from '#translations';
import { OPENAPI_ORGANIZATIONS, openapiContext, OpenapiForContent } from '#openapi';
import {
  INTEGRATION_ORGANIZATIONS,
  INTEGRATION_SITES,
  INTEGRATION_SPACES,
  INTEGRATION_USERS,
  integrationsContext,
  IntegrationsForSites,
} from '#integrations';
import {
  COMMENT_CHANGE_REQUESTS,
  COMMENT_CONTENT,
  COMMENT_MEMBERS,
  COMMENT_SPACES,
  COMMENT_USERS,
  commentsContext,
  CommentsForChangeRequests,
  CommentsForSpaces,
} from '#comments';
import { auditContext, ORGANIZATION_ACCESS } from '#audit';
import { SSO_ORGANIZATIONS, SSO_TEAMS, SSO_USERS, ssoContext, VerifiedDomainsForSites } from '#sso';

/**
 * The composition root: the one list of bounded contexts, and how the ports they declare are bound
 * to what other contexts provide. The API, the projector and the CLI all take the service from here,
 * so adding a context is its folder plus one line in CONTEXTS (and a binding for each port it needs
 * or implements). It is a library rather than part of an app because all three apps share it and no
 * app may import another.
 */
export const CONTEXTS: readonly ContextManifest[] = [
  identityContext,
  organizationsContext,
  teamsContext,
  spacesContext,
  contentContext,
  changeRequestsContext,
  commentsContext,
  integrationsContext,
  sitesContext,
  translationsContext,
  openapiContext,
  auditContext,
  ssoContext,
];

/**
 * Port (declared by its consumer) → what implements it (an adapter class the provider lists in its
 * manifest's `provides`). The one way a context uses another: no context imports another's module.
 */
export const BINDINGS: readonly PortBinding[] = [
  // The front door verifies bearer tokens against identity's read model.
  { port: TOKEN_VERIFIER, use: ReadModelTokenVerifier },
  // Signs visitor claims; every replica derives the same key from the admin token.
  { port: VISITOR_CLAIMS_KEY, value: ({ adminToken }) => visitorClaimsKey(adminToken) },
  // organizations needs
  { port: ORGANIZATION_USERS, use: UsersForOrganizations },
  { port: MEMBER_TEAM_COUNTS, use: TeamsForOrganizations },
  { port: MEMBER_SPACES, use: MemberSpaces },
  // teams needs
  { port: TEAM_ORGANIZATIONS, use: OrganizationsForTeams },
  { port: TEAM_USERS, use: UsersForTeams },
  // spaces needs
  { port: SPACE_ORGANIZATIONS, use: OrganizationsForSpaces },
  { port: SPACE_TEAMS, use: TeamsForSpaces },
  // Content gives each space its revision, change requests and comments their counts.
  { port: SPACE_FACT_SOURCES, useAll: [ContentForSpaces, ChangeRequestsForSpaces, CommentsForSpaces] },
  // content needs
  { port: CONTENT_SPACES, use: SpacesForContent },
  { port: CONTENT_CHANGE_REQUESTS, use: ChangeRequestsForContent },
  { port: CONTENT_OPENAPI, use: OpenapiForContent },
  // Signs download URLs of files; every replica derives the same key from the admin token.
  { port: CONTENT_URL_KEY, value: ({ adminToken }) => contentUrlKey(adminToken) },
  // change requests need
  { port: CHANGE_REQUEST_SPACES, use: SpacesForChangeRequests },
  { port: CHANGE_REQUEST_ORGANIZATIONS, use: OrganizationsForChangeRequests },
  { port: CHANGE_REQUEST_USERS, use: UsersForChangeRequests },
  { port: CHANGE_REQUEST_COMMENTS, use: CommentsForChangeRequests },
  { port: CHANGE_REQUEST_CONTENT, use: ContentForChangeRequests },
  // A description is validated as content validates a comment's JSON document.
  { port: CHANGE_REQUEST_DOCUMENTS, use: ContentForComments },
  // Signs PDF URLs; every replica derives the same key from the admin token.
  { port: CHANGE_REQUEST_URL_KEY, value: ({ adminToken }) => changeRequestUrlKey(adminToken) },
  // comments need
  { port: COMMENT_SPACES, use: SpacesForComments },
  { port: COMMENT_CHANGE_REQUESTS, use: ChangeRequestsForComments },
  { port: COMMENT_CONTENT, use: ContentForComments },
  { port: COMMENT_USERS, use: UsersForComments },
  { port: COMMENT_MEMBERS, use: OrganizationsForComments },
  // integrations need
  { port: INTEGRATION_ORGANIZATIONS, use: OrganizationsForIntegrations },
  { port: INTEGRATION_SPACES, use: SpacesForIntegrations },
  { port: INTEGRATION_SITES, use: SitesForIntegrations },
  { port: INTEGRATION_USERS, use: UsersForIntegrations },
  // sites need
  { port: SITE_ORGANIZATIONS, use: OrganizationsForSites },
  { port: SITE_SPACES, use: SpacesForSites },
  { port: SITE_CONTENT, use: ContentForSites },
  // A site's custom hostname must be in a domain its organization verified.
  { port: SITE_DOMAINS, use: VerifiedDomainsForSites },
  // Readers' views of published pages, for integrations that receive site_view.
  { port: SITE_VIEWS, use: IntegrationsForSites },
  // translations need
  { port: TRANSLATION_ORGANIZATIONS, use: OrganizationsForTranslations },
  // OpenAPI specs need
  { port: OPENAPI_ORGANIZATIONS, use: OrganizationsForOpenapi },
  // audit needs
  { port: ORGANIZATION_ACCESS, use: OrganizationsForAudit },
  // sso needs
  { port: SSO_TEAMS, use: TeamsForSso },
  { port: SSO_ORGANIZATIONS, use: OrganizationsForSso },
  { port: SSO_USERS, use: UsersForSso },
];

/** Ports the entry points inject themselves. */
const HOST_NEEDS = [TOKEN_VERIFIER];

let composed: Composition | null = null;

/** The service composed from CONTEXTS and BINDINGS, checked once (an unbound port throws, naming the context and the port). */
export function service(): Composition {
  return (composed ??= compose(CONTEXTS, BINDINGS, HOST_NEEDS));
}

/** Composes other contexts or bindings (tests of the wiring itself). */
export function composeService(contexts: readonly ContextManifest[], bindings: readonly PortBinding[]): Composition {
  return compose(contexts, bindings, HOST_NEEDS);
}

@Module({})
class ContextServicesModule {
  static forRuntime(runtime: Runtime, adminToken: string, composition: Composition): DynamicModule {
    return { module: ContextServicesModule, imports: composition.modules(runtime, { adminToken }) };
  }
}

/**
 * The contexts' services without HTTP, for a process that reacts but does not serve the API (the
 * distributed projector): reactions call the contexts' command services from it.
 */
export async function createContextServices(
  runtime: Runtime,
  adminToken: string,
  composition: Composition = service(),
): Promise<Services & { close(): Promise<void> }> {
  const context = await NestFactory.createApplicationContext(ContextServicesModule.forRuntime(runtime, adminToken, composition), {
    logger: new JsonNestLogger(),
    bufferLogs: false,
  });
  return { get: <T>(token: ServiceToken<T>) => context.get<T>(token, { strict: false }), close: () => context.close() };
}
