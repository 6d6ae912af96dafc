/**
 * One declared rule per operation of the service's OpenAPI document: who may call it, and the
 * request (body, set-up, query) an allowed caller sends. The authorization matrix derives every
 * caller's expected outcome from it; the platform contract sends the allowed request and checks
 * the answer's shape.
 */
import { compressToEncodedURIComponent } from 'lz-string';
import { ADMIN_TOKEN, type InProcessApi } from './api-spec';
import { expectStatus, joinWithRole, organizationFixture, samlResponseFor, type OrganizationFixture } from './api-spec-fixtures';

export const ROLES = ['admin', 'create', 'review', 'edit', 'comment', 'read'] as const;
export type Role = (typeof ROLES)[number];
/** Callers: no token, a bad token, the service's ADMIN_TOKEN, users outside, a guest, each role, another organization's admin. */
export const CALLERS = [
  'anonymous',
  'badToken',
  'service',
  'outsider',
  'otherAdmin',
  'guest',
  'read',
  'comment',
  'edit',
  'review',
  'create',
  'admin',
] as const;
export type CallerName = (typeof CALLERS)[number];

export interface Context {
  api: InProcessApi;
  org: MatrixFixture;
  caller: CallerName;
  user?: User;
  unique: string;
}

export interface Rule {
  /**
   * Who is allowed: `public` (no token needed), `adminToken` (only the service's ADMIN_TOKEN), `user`
   * (any user token, inside the organization or not), `guest` (every member, guests included) or
   * the lowest organization role allowed.
   */
  allow: 'public' | 'adminToken' | 'user' | 'guest' | Role;
  /** What members below `allow` get (default 403); `guest` overrides it for guests. */
  below?: 403 | 404;
  guest?: 403 | 404;
  /** Also tried with `{userId}` the caller's own: members from this role up succeed (anyone leaves, reads themselves). */
  self?: 'guest' | Role;
  body?: (ctx: Context) => unknown;
  /** Run before the request, as the organization's owner (e.g. delete the space that `restore` restores). */
  setup?: (ctx: Context) => Promise<Record<string, string> | void>;
  /** False: a write whose callers run on the organization the reads use (it changes nothing they read). */
  fresh?: boolean;
  /** The status allowed callers get when the operation cannot succeed here (no DNS for domain checks); authorization passed. */
  allowedStatus?: number;
  /** A query string (without `?`) the request carries, computed as the organization's owner (a signed download URL). */
  query?: (ctx: Context) => Promise<string>;
}

export interface User {
  id: string;
  token: string;
  email: string;
}

export interface MatrixFixture extends OrganizationFixture {
  victim: User;
}

/** Private spaces and collections without a default level are invisible to guests: 404, as if absent. */
const space = (allow: Role, extra: Partial<Rule> = {}): Rule => ({ allow, guest: 404, ...extra });

export const RULES: Record<string, Rule> = {
  'GET /health': { allow: 'public' },
  'GET /metrics': { allow: 'public' },

  'POST /v1/admin/users': {
    allow: 'adminToken',
    body: (c) => ({ email: `new-${c.unique}@example.com`, displayName: 'New' }),
    fresh: false,
  },
  'POST /v1/admin/users/{userId}/tokens': { allow: 'adminToken', fresh: false },
  'DELETE /v1/admin/tokens/{tokenId}': {
    allow: 'adminToken',
    setup: async (c) => ({
      tokenId: expectStatus(
        await c.api.request({ method: 'POST', url: `/v1/admin/users/${c.org.victim.id}/tokens`, token: ADMIN_TOKEN }),
        201,
        'issuing a token',
      ).id,
    }),
    fresh: false,
  },
  'GET /v1/admin/streams/{streamName}': { allow: 'adminToken' },
  'POST /v1/admin/orgs/{organizationId}/verified-domains/{domain}': { allow: 'adminToken' },

  'GET /v1/user': { allow: 'user' },
  'PATCH /v1/user': { allow: 'user', body: () => ({ displayName: 'Renamed' }), fresh: false },
  'POST /v1/orgs': { allow: 'user', body: () => ({ title: 'Another' }), fresh: false },
  'GET /v1/orgs': { allow: 'user' },
  'GET /v1/email-domains/{emailDomain}/orgs': { allow: 'user' },
  'GET /v1/orgs/{organizationId}': { allow: 'guest' },
  'PATCH /v1/orgs/{organizationId}': { allow: 'admin', body: () => ({ title: 'Renamed' }) },
  /** A user's profile: people who share an organization with them. */
  'GET /v1/users/{userId}': { allow: 'guest' },

  'GET /v1/orgs/{organizationId}/members': { allow: 'read' },
  'GET /v1/orgs/{organizationId}/members/{userId}': { allow: 'read', self: 'guest' },
  'PATCH /v1/orgs/{organizationId}/members/{userId}': { allow: 'admin', body: () => ({ role: 'edit' }) },
  'DELETE /v1/orgs/{organizationId}/members/{userId}': { allow: 'admin', self: 'guest' },
  'POST /v1/orgs/{organizationId}/members/{userId}/sso': { allow: 'admin' },
  'GET /v1/orgs/{organizationId}/members/{userId}/spaces': { allow: 'read' },
  'GET /v1/orgs/{organizationId}/members/{userId}/teams': { allow: 'read' },
  'POST /v1/orgs/{organizationId}/ping': { allow: 'guest', fresh: false },
  'POST /v1/orgs/{organizationId}/invites': { allow: 'admin', body: (c) => ({ emails: [`invited-${c.unique}@example.com`] }) },
  'GET /v1/orgs/{organizationId}/pending-invites': { allow: 'admin' },
  'DELETE /v1/orgs/{organizationId}/pending-invites/{inviteId}': {
    allow: 'admin',
    setup: async (c) => ({ inviteId: await invitation(c, `pending-${c.unique}@example.com`) }),
  },
  /** Joining by link: any user, member or not (members stay as they are). */
  'POST /v1/orgs/{organizationId}/invites/{inviteId}': { allow: 'user' },
  'GET /v1/orgs/{organizationId}/link-invites': { allow: 'admin' },
  'POST /v1/orgs/{organizationId}/link-invites': { allow: 'admin', body: () => ({ role: 'read' }) },
  'GET /v1/orgs/{organizationId}/link-invites/{inviteId}': { allow: 'admin' },
  'DELETE /v1/orgs/{organizationId}/link-invites/{inviteId}': { allow: 'admin' },

  /** The caller's own invitations by e-mail. */
  'GET /v1/user/invites': { allow: 'user' },
  'POST /v1/user/invites/{inviteId}': {
    allow: 'user',
    setup: async (c) => (c.user ? { inviteId: await invitation(c, c.user.email) } : undefined),
  },
  'DELETE /v1/user/invites/{inviteId}': {
    allow: 'user',
    setup: async (c) => (c.user ? { inviteId: await invitation(c, c.user.email) } : undefined),
  },

  /** Guests list only the teams they are in (an empty list when none): not refused. */
  'GET /v1/orgs/{organizationId}/teams': { allow: 'guest' },
  'PUT /v1/orgs/{organizationId}/teams': { allow: 'create', body: () => ({ title: 'New team' }) },
  'GET /v1/orgs/{organizationId}/teams/{teamId}': { allow: 'read' },
  /** The team's owner is the organization's owner: other members manage it only as organization admins. */
  'PATCH /v1/orgs/{organizationId}/teams/{teamId}': { allow: 'admin', body: () => ({ title: 'Renamed' }) },
  'DELETE /v1/orgs/{organizationId}/teams/{teamId}': { allow: 'admin' },
  'GET /v1/orgs/{organizationId}/teams/{teamId}/members': { allow: 'read' },
  'PUT /v1/orgs/{organizationId}/teams/{teamId}/members': { allow: 'admin', body: (c) => ({ add: [c.org.victim.id] }) },
  'PUT /v1/orgs/{organizationId}/teams/{teamId}/members/{userId}': { allow: 'admin', body: () => ({ role: 'owner' }) },
  'DELETE /v1/orgs/{organizationId}/teams/{teamId}/members/{userId}': { allow: 'admin' },

  /** Guests see the public spaces only: an empty list here. */
  'GET /v1/orgs/{organizationId}/spaces': { allow: 'guest' },
  'POST /v1/orgs/{organizationId}/spaces': { allow: 'create', body: () => ({ title: 'New space' }) },
  'GET /v1/spaces/{spaceId}': space('read'),
  'PATCH /v1/spaces/{spaceId}': space('edit', { body: () => ({ title: 'Renamed' }) }),
  'DELETE /v1/spaces/{spaceId}': space('admin'),
  /** A deleted space is invisible to all but its admins. */
  'POST /v1/spaces/{spaceId}/restore': space('admin', {
    below: 404,
    setup: async (c) =>
      void expectStatus(
        await c.api.request({ method: 'DELETE', url: `/v1/spaces/${c.org.spaceId}`, token: ruleUsers.owner.token }),
        204,
        'deleting the space',
      ),
  }),
  'POST /v1/spaces/{spaceId}/duplicate': space('create'),
  'POST /v1/spaces/{spaceId}/move': space('admin', { body: () => ({}) }),
  'POST /v1/spaces/{spaceId}/transfer': space('admin', { body: (c) => ({ organization: ownOrganization(c) }) }),
  'GET /v1/spaces/{spaceId}/share-links': space('admin'),
  'POST /v1/spaces/{spaceId}/share-links': space('admin'),
  'DELETE /v1/spaces/{spaceId}/share-links/{shareKey}': space('admin'),
  'GET /v1/spaces/{spaceId}/teams': space('read'),
  'PUT /v1/spaces/{spaceId}/teams/{teamId}': space('admin', { body: () => ({ role: 'read' }) }),
  'DELETE /v1/spaces/{spaceId}/teams/{teamId}': space('admin', {
    setup: async (c) =>
      void expectStatus(
        await c.api.request({
          method: 'PUT',
          url: `/v1/spaces/${c.org.spaceId}/teams/${c.org.teamId}`,
          token: ruleUsers.owner.token,
          body: { role: 'read' },
        }),
        200,
        'granting the team access',
      ),
  }),

  /** Guests have no role on collections: an empty list here. */
  'GET /v1/orgs/{organizationId}/collections': { allow: 'guest' },
  'POST /v1/orgs/{organizationId}/collections': { allow: 'create', body: () => ({ title: 'New collection' }) },
  'GET /v1/collections/{collectionId}': space('read'),
  'PATCH /v1/collections/{collectionId}': space('admin', { body: () => ({ title: 'Renamed' }) }),
  'DELETE /v1/collections/{collectionId}': space('admin'),
  'GET /v1/collections/{collectionId}/spaces': space('read'),
  'POST /v1/collections/{collectionId}/move': space('admin', { body: () => ({}) }),
  'POST /v1/collections/{collectionId}/transfer': space('admin', { body: (c) => ({ organization: ownOrganization(c) }) }),

  'GET /v1/spaces/{spaceId}/content': space('read'),
  'POST /v1/spaces/{spaceId}/content': space('edit', {
    body: () => ({ changes: [{ operation: 'insert_page', title: 'Another', document: { markdown: 'x' } }] }),
  }),
  /** Authorization passes; the loopback address is then refused (400): imports never reach private networks here. */
  'POST /v1/spaces/{spaceId}/content/import': space('edit', {
    body: () => ({ source: 'markdown', url: 'http://127.0.0.1:9/notes.md' }),
    allowedStatus: 400,
  }),
  'GET /v1/spaces/{spaceId}/content/pages': space('read'),
  'GET /v1/spaces/{spaceId}/content/files': space('read'),
  'GET /v1/spaces/{spaceId}/content/files/{fileId}': space('read'),
  /** The signed URL of `downloadURL` is the credential: no token needed. */
  'GET /v1/spaces/{spaceId}/content/files/{fileId}/download': { allow: 'public', query: signedDownload },
  'GET /v1/spaces/{spaceId}/content/files/{fileId}/backlinks': space('read'),
  'GET /v1/spaces/{spaceId}/content/page/{pageId}': space('read'),
  'GET /v1/spaces/{spaceId}/content/page/{pageId}/links': space('read'),
  'GET /v1/spaces/{spaceId}/content/page/{pageId}/backlinks': space('read'),
  'POST /v1/spaces/{spaceId}/content/page/{pageId}/import': space('edit', {
    body: () => ({ source: 'markdown', url: 'http://127.0.0.1:9/notes.md' }),
    allowedStatus: 400,
  }),
  'GET /v1/spaces/{spaceId}/content/path/{pagePath}': space('read'),
  'GET /v1/spaces/{spaceId}/links': space('read'),

  /** Sites are the organization's: members read them (guests included), `create` creates, admins change them. */
  'GET /v1/orgs/{organizationId}/openapi': { allow: 'guest' },
  'POST /v1/orgs/{organizationId}/openapi': {
    allow: 'create',
    body: (c) => ({
      slug: `spec-${c.unique}`
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, ''),
      source: { text: 'swagger: "2.0"\ninfo: { title: T, version: "1" }\npaths: {}\n' },
    }),
  },
  'GET /v1/orgs/{organizationId}/openapi/{specSlug}': { allow: 'guest' },
  'PUT /v1/orgs/{organizationId}/openapi/{specSlug}': {
    allow: 'create',
    body: () => ({ source: { text: 'swagger: "2.0"\ninfo: { title: T, version: "2" }\npaths: {}\n' } }),
  },
  'DELETE /v1/orgs/{organizationId}/openapi/{specSlug}': { allow: 'create' },
  'GET /v1/orgs/{organizationId}/openapi/{specSlug}/versions': { allow: 'guest' },
  'GET /v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest': { allow: 'guest' },
  'GET /v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content': { allow: 'guest' },
  'GET /v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}': { allow: 'guest' },
  'GET /v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/content': { allow: 'guest' },
  'GET /v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/raw': { allow: 'guest' },
  'GET /v1/orgs/{organizationId}/sites': { allow: 'guest' },
  'POST /v1/orgs/{organizationId}/sites': { allow: 'create', body: () => ({ title: 'Another site' }) },
  'GET /v1/orgs/{organizationId}/sites/{siteId}': { allow: 'guest' },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}': { allow: 'admin', body: () => ({ title: 'Renamed' }) },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}': { allow: 'admin' },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/publish': { allow: 'admin' },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/unpublish': { allow: 'admin' },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/published': {
    allow: 'public',
    setup: async (c) =>
      void expectStatus(
        await c.api.request({
          method: 'POST',
          url: `/v1/orgs/${c.org.organizationId}/sites/${c.org.ids.siteId}/publish`,
          token: ruleUsers.owner.token,
        }),
        200,
        'publishing the site',
      ),
  },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/share-links': { allow: 'admin' },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/share-links': { allow: 'admin', body: () => ({ name: 'Another link' }) },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}': { allow: 'admin', body: () => ({ active: false }) },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}': { allow: 'admin' },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/visitor-auth': { allow: 'admin' },
  'PUT /v1/orgs/{organizationId}/sites/{siteId}/visitor-auth': { allow: 'admin', body: () => ({ jwksUrl: null }) },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/visitor-auth/rotate': { allow: 'admin' },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/sections': { allow: 'guest' },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/sections': { allow: 'admin', body: (c) => ({ spaceId: c.org.spaceId }) },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}': { allow: 'admin', body: () => ({ title: 'Renamed' }) },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}': { allow: 'admin' },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move': { allow: 'admin', body: () => ({ position: {} }) },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/section-groups': { allow: 'guest' },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/section-groups': { allow: 'admin', body: () => ({ title: 'Another group' }) },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}': {
    allow: 'admin',
    body: () => ({ title: 'Renamed' }),
  },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}': { allow: 'admin' },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections': {
    allow: 'admin',
    body: (c) => ({ sectionId: c.org.ids.siteSectionId }),
  },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections/{siteSectionId}': { allow: 'admin' },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/move': {
    allow: 'admin',
    body: () => ({ position: {} }),
  },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/structure': { allow: 'guest' },
  /** The fixture's site has two sections: the one made of its root's site space, and one in a group. */
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/structure/sort': {
    allow: 'admin',
    body: (c) => ({
      structure: [
        { type: 'section', id: c.org.ids.siteRootSectionId },
        { type: 'group', id: c.org.ids.siteSectionGroupId, sections: [{ id: c.org.ids.siteSectionId }] },
      ],
    }),
  },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/adaptive-schema': { allow: 'guest' },
  'PUT /v1/orgs/{organizationId}/sites/{siteId}/adaptive-schema': {
    allow: 'admin',
    body: () => ({ jsonSchema: { type: 'object', properties: {}, additionalProperties: false } }),
  },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/adaptive-schema/template-conditions': { allow: 'guest' },
  'GET /v1/orgs/{organizationId}/sites/{siteId}/site-spaces': { allow: 'guest' },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/site-spaces': { allow: 'admin', body: (c) => ({ spaceId: c.org.spaceId }) },
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}': {
    allow: 'admin',
    body: () => ({ condition: 'visitor.claims.beta' }),
  },
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}': { allow: 'admin' },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/move': { allow: 'admin', body: () => ({ position: {} }) },

  /** Translation settings are the organization's: members with a role read them (guests do not), admins manage them. */
  'GET /v1/orgs/{organizationId}/translations': { allow: 'read' },
  'POST /v1/orgs/{organizationId}/translations': { allow: 'admin', body: () => ({ title: 'Another translation', languages: ['fr'] }) },
  'GET /v1/orgs/{organizationId}/translations/{translationSettingsId}': { allow: 'read' },
  'PUT /v1/orgs/{organizationId}/translations/{translationSettingsId}': {
    allow: 'admin',
    body: () => ({ title: 'Renamed', languages: ['de-CH'] }),
  },
  'DELETE /v1/orgs/{organizationId}/translations/{translationSettingsId}': { allow: 'admin' },

  /** Integrations are the service's, not an organization's: any user lists and reads public ones. */
  'GET /v1/integrations': { allow: 'user' },
  'GET /v1/integrations/{integrationName}': { allow: 'user' },
  'POST /v1/integrations/{integrationName}': { allow: 'admin', body: () => ({ title: 'Renamed' }) },
  'DELETE /v1/integrations/{integrationName}': { allow: 'admin' },
  'GET /v1/integrations/{integrationName}/assets/{hash}': { allow: 'public' },
  /** Each user sees the installations of the organizations they administer (none: an empty list). */
  'GET /v1/integrations/{integrationName}/installations': { allow: 'user' },
  'POST /v1/integrations/{integrationName}/installations': { allow: 'admin', body: (c) => ({ organization: c.org.organizationId }) },
  'GET /v1/integrations/{integrationName}/installations/{installationId}': { allow: 'admin', below: 404 },
  'PATCH /v1/integrations/{integrationName}/installations/{installationId}': { allow: 'admin', body: () => ({ status: 'active' }) },
  'DELETE /v1/integrations/{integrationName}/installations/{installationId}': { allow: 'admin' },
  'GET /v1/integrations/{integrationName}/installations/{installationId}/spaces': { allow: 'admin', below: 404 },
  'POST /v1/integrations/{integrationName}/installations/{installationId}/spaces': {
    allow: 'admin',
    body: (c) => ({ space: c.org.spaceId }),
  },
  'GET /v1/integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}': { allow: 'admin', below: 404 },
  'PATCH /v1/integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}': {
    allow: 'admin',
    below: 404,
    body: () => ({ status: 'active' }),
  },
  'DELETE /v1/integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}': { allow: 'admin' },
  'GET /v1/integrations/{integrationName}/spaces': { allow: 'user' },
  'GET /v1/integrations/{integrationName}/installations/{installationId}/sites': { allow: 'admin', below: 404 },
  'POST /v1/integrations/{integrationName}/installations/{installationId}/sites': {
    allow: 'admin',
    body: (c) => ({ site: c.org.ids.siteId }),
  },
  'GET /v1/integrations/{integrationName}/installations/{installationId}/sites/{siteId}': { allow: 'admin', below: 404 },
  'PATCH /v1/integrations/{integrationName}/installations/{installationId}/sites/{siteId}': {
    allow: 'admin',
    below: 404,
    body: () => ({ status: 'active' }),
  },
  'DELETE /v1/integrations/{integrationName}/installations/{installationId}/sites/{siteId}': { allow: 'admin' },
  'GET /v1/integrations/{integrationName}/sites': { allow: 'user' },
  'GET /v1/integrations/{integrationName}/events': { allow: 'admin' },
  'GET /v1/integrations/{integrationName}/events/{eventId}': { allow: 'admin' },
  'PUT /v1/integrations/{integrationName}/dev': { allow: 'admin', body: () => ({ tunnelUrl: 'https://tunnel.example.com/hook' }) },
  'DELETE /v1/integrations/{integrationName}/dev': { allow: 'admin' },
  'GET /v1/integrations/{integrationName}/dev': { allow: 'admin' },
  'POST /v1/integrations/{integrationName}/render': { allow: 'user', body: () => ({ componentId: 'counter' }) },
  'GET /v1/integrations/{integrationName}/render': {
    allow: 'user',
    query: async () => `request=${compressToEncodedURIComponent(JSON.stringify({ componentId: 'counter' }))}`,
  },
  'GET /v1/spaces/{spaceId}/comments': space('read'),
  'POST /v1/spaces/{spaceId}/comments': space('comment', { body: (c) => ({ page: c.org.ids.pageId, body: { markdown: 'Looks good' } }) }),
  'GET /v1/spaces/{spaceId}/comments/{commentId}': space('read'),
  /** Reacting needs read access only. */
  'PUT /v1/spaces/{spaceId}/comments/{commentId}': space('read', { body: () => ({ addedReactions: ['👍'] }) }),
  /** The author (the owner) or a space admin. */
  'DELETE /v1/spaces/{spaceId}/comments/{commentId}': space('admin'),
  'GET /v1/spaces/{spaceId}/comments/{commentId}/replies': space('read'),
  'POST /v1/spaces/{spaceId}/comments/{commentId}/replies': space('comment', { body: () => ({ body: { markdown: 'Agreed' } }) }),
  'GET /v1/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}': space('read'),
  'PUT /v1/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}': space('read', { body: () => ({ addedReactions: ['👀'] }) }),
  'DELETE /v1/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}': space('admin'),
  'GET /v1/spaces/{spaceId}/commenters': space('read'),
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments': space('read'),
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments': space('comment', {
    body: (c) => ({ page: c.org.ids.pageId, body: { markdown: 'Looks good' } }),
  }),
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}': space('read', { setup: changeRequestThread }),
  /** Reacting needs read access only. */
  'PUT /v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}': space('read', {
    body: () => ({ addedReactions: ['👍'] }),
    setup: changeRequestThread,
  }),
  /** The author (the owner) or a space admin. */
  'DELETE /v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}': space('admin', { setup: changeRequestThread }),
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies': space('read', { setup: changeRequestThread }),
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies': space('comment', {
    body: () => ({ body: { markdown: 'Agreed' } }),
    setup: changeRequestThread,
  }),
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}': space('read', {
    setup: changeRequestThread,
  }),
  'PUT /v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}': space('read', {
    body: () => ({ addedReactions: ['👀'] }),
    setup: changeRequestThread,
  }),
  'DELETE /v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}': space('admin', {
    setup: changeRequestThread,
  }),
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/commenters': space('read'),

  'GET /v1/spaces/{spaceId}/change-requests': space('read'),
  'POST /v1/spaces/{spaceId}/change-requests': space('edit', { body: () => ({ subject: 'Another' }) }),
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}': space('read'),
  'PATCH /v1/spaces/{spaceId}/change-requests/{changeRequestId}': space('edit', { body: () => ({ subject: 'Renamed' }) }),
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/merge': space('review'),
  /** Up to date already in a fresh fixture: allowed callers get the request's head back. */
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/update': space('edit'),
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/changes': space('read'),
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers': space('read'),
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers': space('edit', {
    body: (c) => ({ users: [c.org.victim.id] }),
  }),
  'DELETE /v1/spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers/{userId}': space('edit', {
    setup: async (c) =>
      void expectStatus(
        await c.api.request({
          method: 'POST',
          url: `/v1/spaces/${c.org.spaceId}/change-requests/${c.org.ids.changeRequestId}/requested-reviewers`,
          token: ruleUsers.owner.token,
          body: { users: [c.org.victim.id] },
        }),
        200,
        'requesting a reviewer',
      ),
  }),
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/reviews': space('read'),
  /** The fixture's author is the owner: every caller allowed to review is someone else. */
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/reviews': space('review', { body: () => ({ status: 'approved' }) }),
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/reviews/{reviewId}': space('read', {
    setup: async (c) => ({ reviewId: await review(c) }),
  }),
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/pdf': space('read'),
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/pdf/download': { allow: 'public', query: signedPdf },
  /** Guests read the requests of the spaces they can see: none here, an empty list. */
  'GET /v1/orgs/{organizationId}/change-requests': { allow: 'guest' },
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content': space('read'),
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content': space('edit', {
    body: () => ({ changes: [{ operation: 'insert_page', title: 'Another', document: { markdown: 'x' } }] }),
  }),
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/import': space('edit', {
    body: () => ({ source: 'markdown', url: 'http://127.0.0.1:9/notes.md' }),
    allowedStatus: 400,
  }),
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/pages': space('read'),
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files': space('read'),
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}': space('read'),
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}/backlinks': space('read'),
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}': space('read'),
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/links': space('read'),
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/backlinks': space('read'),
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/import': space('edit', {
    body: () => ({ source: 'markdown', url: 'http://127.0.0.1:9/notes.md' }),
    allowedStatus: 400,
  }),
  'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/path/{pagePath}': space('read'),
  'GET /v1/spaces/{spaceId}/search': space('read', { query: async () => 'query=guide' }),
  'GET /v1/orgs/{organizationId}/search': { allow: 'guest', query: async () => 'query=guide' },
  'GET /v1/spaces/{spaceId}/revisions': space('read'),
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}': space('read'),
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/pages': space('read'),
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/files': space('read'),
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}': space('read'),
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/path/{pagePath}': space('read'),
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/changes': space('read'),
  'POST /v1/spaces/{spaceId}/revisions/{revisionId}/rollback': space('edit', { body: () => ({}) }),

  'GET /v1/orgs/{organizationId}/audit-events': { allow: 'admin' },
  'GET /v1/orgs/{organizationId}/audit-events/{auditEventId}': { allow: 'admin' },

  'GET /v1/orgs/{organizationId}/saml': { allow: 'admin' },
  'POST /v1/orgs/{organizationId}/saml': { allow: 'admin', body: () => ({ label: 'Another IdP' }) },
  'GET /v1/orgs/{organizationId}/saml/{samlProviderId}': { allow: 'admin' },
  'PATCH /v1/orgs/{organizationId}/saml/{samlProviderId}': { allow: 'admin', body: () => ({ label: 'Renamed' }) },
  'DELETE /v1/orgs/{organizationId}/saml/{samlProviderId}': { allow: 'admin' },
  /** For login pages: no token needed. */
  'GET /v1/orgs/{organizationId}/sso': { allow: 'public' },
  'GET /v1/sso/saml/{providerId}/start': { allow: 'public' },
  'POST /v1/sso/saml/{providerId}/acs': {
    allow: 'public',
    fresh: false,
    body: () => ({ SAMLResponse: samlResponse }),
    // The identity provider signs in addresses of a domain the organization has verified (here through the admin route).
    setup: async (c) => {
      const domain = `sso-${c.org.organizationId.toLowerCase()}.example.com`;
      await c.api.request({
        method: 'POST',
        url: `/v1/orgs/${c.org.organizationId}/verified-domains`,
        token: ruleUsers.owner.token,
        body: { domain },
      });
      await c.api.request({ method: 'POST', url: `/v1/admin/orgs/${c.org.organizationId}/verified-domains/${domain}`, token: ADMIN_TOKEN });
      samlResponse = await samlResponseFor(c.api, c.org.samlProviderId, `sso-${c.unique}@${domain}`);
    },
  },

  'GET /v1/orgs/{organizationId}/verified-domains': { allow: 'admin' },
  'POST /v1/orgs/{organizationId}/verified-domains': { allow: 'admin', body: (c) => ({ domain: `verify-${c.unique}.example.com` }) },
  'GET /v1/orgs/{organizationId}/verified-domains/{domain}': { allow: 'admin', setup: async (c) => ({ domain: await verifiedDomain(c) }) },
  /** No DNS TXT record can be published from a test: admins get as far as 409 (not verified). */
  'POST /v1/orgs/{organizationId}/verified-domains/{domain}/verify': {
    allow: 'admin',
    allowedStatus: 409,
    setup: async (c) => ({ domain: await verifiedDomain(c) }),
  },
  'DELETE /v1/orgs/{organizationId}/verified-domains/{domain}': {
    allow: 'admin',
    setup: async (c) => ({ domain: await verifiedDomain(c) }),
  },
};

/**
 * Where a write runs. By default a write leaves nothing another caller would notice (it creates,
 * renames, grants, or acts on what its own `setup` made), so every caller of every such rule runs on
 * one organization. The writes below change what the fixture's ids name for whoever comes next:
 *  - `caller`: they delete, transfer, merge or roll back a fixture's thing — each allowed caller
 *    gets an organization of its own (refused callers, who change nothing, run first on the first);
 *  - `rule`: their callers do not disturb each other, but they would disturb other rules (callers
 *    leave or join, the set-up deletes the space, the site's structure or delivery target changes) —
 *    the rule's callers share an organization of their own.
 */
export const ISOLATION: Record<string, 'caller' | 'rule'> = {
  'DELETE /v1/orgs/{organizationId}/members/{userId}': 'rule',
  'POST /v1/orgs/{organizationId}/invites/{inviteId}': 'rule',
  'POST /v1/user/invites/{inviteId}': 'rule',
  'DELETE /v1/orgs/{organizationId}/link-invites/{inviteId}': 'caller',
  'DELETE /v1/orgs/{organizationId}/teams/{teamId}': 'caller',
  'DELETE /v1/orgs/{organizationId}/teams/{teamId}/members/{userId}': 'caller',
  'DELETE /v1/spaces/{spaceId}': 'caller',
  'POST /v1/spaces/{spaceId}/restore': 'rule',
  'POST /v1/spaces/{spaceId}/transfer': 'caller',
  'DELETE /v1/spaces/{spaceId}/share-links/{shareKey}': 'caller',
  'DELETE /v1/collections/{collectionId}': 'caller',
  'POST /v1/collections/{collectionId}/transfer': 'caller',
  'DELETE /v1/orgs/{organizationId}/openapi/{specSlug}': 'caller',
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}': 'caller',
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}': 'caller',
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}': 'caller',
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}': 'caller',
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections/{siteSectionId}': 'caller',
  'DELETE /v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}': 'caller',
  'PATCH /v1/orgs/{organizationId}/sites/{siteId}/structure/sort': 'rule',
  'DELETE /v1/orgs/{organizationId}/translations/{translationSettingsId}': 'caller',
  'DELETE /v1/integrations/{integrationName}': 'caller',
  'DELETE /v1/integrations/{integrationName}/installations/{installationId}': 'caller',
  'DELETE /v1/integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}': 'caller',
  'DELETE /v1/integrations/{integrationName}/installations/{installationId}/sites/{siteId}': 'caller',
  'PUT /v1/integrations/{integrationName}/dev': 'rule',
  'DELETE /v1/spaces/{spaceId}/comments/{commentId}': 'caller',
  'DELETE /v1/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}': 'caller',
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/merge': 'caller',
  'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/update': 'rule',
  'POST /v1/spaces/{spaceId}/revisions/{revisionId}/rollback': 'caller',
  'DELETE /v1/orgs/{organizationId}/saml/{samlProviderId}': 'caller',
};

/** The users the rules act as: set by the suite before the first rule runs. */
export const ruleUsers = {
  /** Every fixture organization's owner. */
  owner: undefined as unknown as User,
  /** A member with the review role in every fixture organization. */
  reviewer: undefined as unknown as User,
  /** Each user's own organization (they are its admin), the destination of transfers. */
  ownOrganizations: new Map<string, string>(),
};
let samlResponse = '';

/**
 * The rules' users for a suite that calls as the owner: the owner (with a second organization of
 * theirs, the destination of transfers), a reviewer, and the member the rules act on (`victim`).
 */
export async function ownerCallers(api: InProcessApi): Promise<{ owner: User; victim: User }> {
  ruleUsers.owner = await api.createUser('Owner');
  ruleUsers.reviewer = await api.createUser('Reviewer');
  const victim = await api.createUser('Member');
  const second = expectStatus(
    await api.request({ method: 'POST', url: '/v1/orgs', token: ruleUsers.owner.token, body: { title: "Owner's other" } }),
    201,
    'creating a second organization',
  );
  ruleUsers.ownOrganizations.set(ruleUsers.owner.id, second.id);
  return { owner: ruleUsers.owner, victim };
}

/** A fixture organization of the owner's, with the reviewer (review role) and the victim (read role, in the team) in it. */
export async function ownerFixture(api: InProcessApi, owner: User, victim: User): Promise<MatrixFixture> {
  const org = await organizationFixture(api, owner);
  await Promise.all([
    joinWithRole(api, owner, org.organizationId, ruleUsers.reviewer, 'review'),
    joinWithRole(api, owner, org.organizationId, victim, 'read'),
  ]);
  expectStatus(
    await api.request({
      method: 'PUT',
      url: `/v1/orgs/${org.organizationId}/teams/${org.teamId}/members/${victim.id}`,
      token: owner.token,
      body: {},
    }),
    204,
    'adding the victim to the team',
  );
  return { ...org, victim, ids: { ...org.ids, userId: victim.id } };
}

/** A thread (a comment and a reply by the owner) on the fixture's change request: the change-request group's `{commentId}` and `{commentReplyId}`. */
async function changeRequestThread(c: Context): Promise<Record<string, string>> {
  const base = `/v1/spaces/${c.org.spaceId}/change-requests/${c.org.ids.changeRequestId}/comments`;
  const commentId = expectStatus(
    await c.api.request({
      method: 'POST',
      url: base,
      token: ruleUsers.owner.token,
      body: { page: c.org.ids.pageId, body: { markdown: 'On the request' } },
    }),
    201,
    'commenting on the request',
  ).id;
  const commentReplyId = expectStatus(
    await c.api.request({
      method: 'POST',
      url: `${base}/${commentId}/replies`,
      token: ruleUsers.owner.token,
      body: { body: { markdown: 'A reply' } },
    }),
    201,
    'replying on the request',
  ).id;
  return { commentId, commentReplyId };
}

/** The query of the PDF's signed URL, as the owner gets it. */
async function signedPdf(c: Context): Promise<string> {
  const answer = expectStatus(
    await c.api.request({
      method: 'GET',
      url: `/v1/spaces/${c.org.spaceId}/change-requests/${c.org.ids.changeRequestId}/pdf`,
      token: ruleUsers.owner.token,
    }),
    200,
    'asking for the PDF',
  );
  return new URL(answer.url).search.slice(1);
}

/** A review of the fixture's request by a member with the review role (its author, the owner, may not review it). */
async function review(c: Context): Promise<string> {
  return expectStatus(
    await c.api.request({
      method: 'POST',
      url: `/v1/spaces/${c.org.spaceId}/change-requests/${c.org.ids.changeRequestId}/reviews`,
      token: ruleUsers.reviewer.token,
      body: { status: 'approved' },
    }),
    201,
    'reviewing',
  ).id;
}

/** The query of the file's signed download URL, as its space's owner reads it. */
async function signedDownload(c: Context): Promise<string> {
  const file = expectStatus(
    await c.api.request({
      method: 'GET',
      url: `/v1/spaces/${c.org.spaceId}/content/files/${c.org.ids.fileId}`,
      token: ruleUsers.owner.token,
    }),
    200,
    'reading the file',
  );
  return new URL(file.downloadURL).search.slice(1);
}

/** The caller's own organization (they are its admin), as the destination of a transfer. */
function ownOrganization(c: Context): string {
  return (c.user && ruleUsers.ownOrganizations.get(c.user.id)) ?? 'noSuchOrganization';
}

/** An e-mail invitation to the organization, by its owner; its id. */
async function invitation(c: Context, email: string): Promise<string> {
  const answer = expectStatus(
    await c.api.request({
      method: 'POST',
      url: `/v1/orgs/${c.org.organizationId}/invites`,
      token: ruleUsers.owner.token,
      body: { emails: [email] },
    }),
    200,
    'inviting by e-mail',
  );
  return (answer.invites ?? answer.users)[0];
}

async function verifiedDomain(c: Context): Promise<string> {
  const domain = `verify-${c.unique}.example.com`;
  expectStatus(
    await c.api.request({
      method: 'POST',
      url: `/v1/orgs/${c.org.organizationId}/verified-domains`,
      token: ruleUsers.owner.token,
      body: { domain },
    }),
    201,
    'adding a domain',
  );
  return domain;
}
