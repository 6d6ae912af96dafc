/**
 * Organizations with one of everything, for the suites generated from the OpenAPI document: each
 * path parameter name of the document maps to a real id the owner may act on.
 */
import { authnRequestOf, FakeIdp } from '#testing/fake-idp';
import type { ApiResponse, InProcessApi } from './api-spec';

export interface Caller {
  id: string;
  token: string;
}

export interface OrganizationFixture {
  organizationId: string;
  spaceId: string;
  collectionId: string;
  teamId: string;
  samlProviderId: string;
  inviteId: string;
  shareKey: string;
  auditEventId: string;
  emailDomain: string;
  /** Path parameter name → value. */
  ids: Record<string, string>;
}

let idp: FakeIdp | undefined;
/** One identity provider (an RSA key pair) for every fixture: generating keys is slow. */
export function identityProvider(): FakeIdp {
  return (idp ??= new FakeIdp('https://idp.example.test/metadata'));
}

let organizations = 0;

/** A 1×1 PNG: the fixture integration's icon. */
const FIXTURE_PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex').toString('base64');
/** The fixture integration's script: one UI component. */
const FIXTURE_SCRIPT =
  "module.exports = { components: { counter: ({ state }) => ({ type: 'block', children: [], controls: [], state: { count: (state.count || 0) + 1 } }) } };";

/** The fixture OpenAPI spec: one operation. */
const FIXTURE_OPENAPI =
  'openapi: 3.0.3\ninfo: { title: Fixture, version: "1" }\npaths:\n  /pets:\n    get:\n      responses:\n        "200": { description: ok }\n';

/** Throws unless the answer has the status expected; returns its body. */
export function expectStatus(response: ApiResponse, status: number, what: string): any {
  if (response.status !== status)
    throw new Error(`${what} answered ${response.status} (expected ${status}): ${response.text.slice(0, 300)}`);
  return response.body;
}

export async function organizationFixture(
  api: InProcessApi,
  owner: Caller,
  options: { saml?: boolean; title?: string } = {},
): Promise<OrganizationFixture> {
  const n = ++organizations;
  const token = owner.token;
  const emailDomain = `org${n}-${Date.now().toString(36)}.example.com`;
  const org = expectStatus(
    await api.request({
      method: 'POST',
      url: '/v1/orgs',
      token,
      body: { title: options.title ?? `Org ${n}`, emailDomains: [emailDomain] },
    }),
    201,
    'creating an organization',
  );
  const organizationId = org.id as string;
  const base = `/v1/orgs/${organizationId}`;
  expectStatus(await api.request({ method: 'PATCH', url: base, token, body: { inviteLinks: true } }), 200, 'allowing link invites');
  const [space, collection, team, invite] = await Promise.all([
    api.request({ method: 'POST', url: `${base}/spaces`, token, body: { title: `Space ${n}` } }),
    api.request({ method: 'POST', url: `${base}/collections`, token, body: { title: `Collection ${n}` } }),
    api.request({ method: 'PUT', url: `${base}/teams`, token, body: { title: `Team ${n}` } }),
    api.request({ method: 'POST', url: `${base}/link-invites`, token, body: { role: 'read' } }),
  ]);
  const spaceId = expectStatus(space, 201, 'creating a space').id as string;
  const collectionId = expectStatus(collection, 201, 'creating a collection').id as string;
  const teamId = expectStatus(team, 201, 'creating a team').id as string;
  const inviteId = expectStatus(invite, 201, 'creating a link invite').id as string;
  // An OpenAPI spec given as text (no network). Its processing runs after the write answers: it
  // overlaps the requests below, and its version is read last.
  const openapiSpec = expectStatus(
    await api.request({ method: 'POST', url: `${base}/openapi`, token, body: { slug: `spec-${n}`, source: { text: FIXTURE_OPENAPI } } }),
    201,
    'creating an OpenAPI spec',
  );
  let samlProviderId = '';
  if (options.saml !== false) {
    const provider = await api.request({
      method: 'POST',
      url: `${base}/saml`,
      token,
      body: {
        label: `IdP ${n}`,
        entityID: identityProvider().entityID,
        certificate: identityProvider().certificate,
        ssoURL: 'https://idp.example.test/sso',
      },
    });
    samlProviderId = expectStatus(provider, 201, 'registering a SAML provider').id as string;
  }
  const shareKey = expectStatus(
    await api.request({ method: 'POST', url: `/v1/spaces/${spaceId}/share-links`, token }),
    201,
    'creating a share link',
  ).key as string;
  const written = expectStatus(
    await api.request({
      method: 'POST',
      url: `/v1/spaces/${spaceId}/content`,
      token,
      body: {
        changes: [
          { operation: 'insert_files', files: [{ name: 'note.txt', base64: Buffer.from('a note').toString('base64'), ref: 'note' }] },
          {
            operation: 'insert_page',
            title: 'Guide',
            document: { markdown: 'See [the note](./note) and [intro](./intro.md).' },
            ref: 'guide',
          },
          { operation: 'insert_page', title: 'Intro', document: { markdown: 'Welcome.' }, ref: 'intro', into: 'guide' },
        ],
      },
    }),
    200,
    'writing content',
  );
  const pageId = written.changes[1].page.id as string;
  const fileId = written.insertedFiles[0].id as string;
  const revisionId = written.revision as string;
  const commentId = expectStatus(
    await api.request({
      method: 'POST',
      url: `/v1/spaces/${spaceId}/comments`,
      token,
      body: { page: written.changes[1].page.id, body: { markdown: 'A comment' } },
    }),
    201,
    'commenting',
  ).id as string;
  const commentReplyId = expectStatus(
    await api.request({
      method: 'POST',
      url: `/v1/spaces/${spaceId}/comments/${commentId}/replies`,
      token,
      body: { body: { markdown: 'A reply' } },
    }),
    201,
    'replying',
  ).id as string;
  const integrationName = `fixture-${organizationId}`;
  const integration = expectStatus(
    await api.request({
      method: 'POST',
      url: `/v1/integrations/${integrationName}`,
      token,
      body: { organization: organizationId, title: 'Fixture', visibility: 'public', icon: FIXTURE_PNG, script: FIXTURE_SCRIPT },
    }),
    200,
    'publishing an integration',
  );
  const installationId = expectStatus(
    await api.request({
      method: 'POST',
      url: `/v1/integrations/${integrationName}/installations`,
      token,
      body: { organization: organizationId },
    }),
    201,
    'installing it',
  ).id as string;
  expectStatus(
    await api.request({
      method: 'POST',
      url: `/v1/integrations/${integrationName}/installations/${installationId}/spaces`,
      token,
      body: { space: spaceId },
    }),
    201,
    'installing it on the space',
  );
  const site = expectStatus(
    await api.request({ method: 'POST', url: `${base}/sites`, token, body: { title: `Site ${n}`, spaces: [spaceId] } }),
    201,
    'creating a site',
  );
  const siteSectionId = expectStatus(
    await api.request({ method: 'POST', url: `${base}/sites/${site.id}/sections`, token, body: { spaceId, title: 'Section' } }),
    201,
    'adding a section',
  ).id as string;
  // The site showed its space at its root: the first section added made a section of those (listed first).
  const siteRootSectionId = expectStatus(
    await api.request({ method: 'GET', url: `${base}/sites/${site.id}/sections`, token }),
    200,
    'listing sections',
  ).items[0].id as string;
  const siteSectionGroupId = expectStatus(
    await api.request({
      method: 'POST',
      url: `${base}/sites/${site.id}/section-groups`,
      token,
      body: { title: 'Group', sections: [siteSectionId] },
    }),
    201,
    'grouping the section',
  ).id as string;
  const siteSpaceId = expectStatus(
    await api.request({ method: 'GET', url: `${base}/sites/${site.id}/site-spaces`, token }),
    200,
    'listing site spaces',
  ).items[0].id as string;
  const shareLinkId = expectStatus(
    await api.request({ method: 'POST', url: `${base}/sites/${site.id}/share-links`, token, body: { name: 'Fixture' } }),
    201,
    'sharing the site',
  ).id as string;
  const translationSettingsId = expectStatus(
    await api.request({ method: 'POST', url: `${base}/translations`, token, body: { title: `Translation ${n}`, languages: ['fr', 'de'] } }),
    201,
    'creating translation settings',
  ).id as string;
  expectStatus(
    await api.request({
      method: 'POST',
      url: `/v1/integrations/${integrationName}/installations/${installationId}/sites`,
      token,
      body: { site: site.id },
    }),
    201,
    'installing the integration on the site',
  );
  const changeRequestId = expectStatus(
    await api.request({ method: 'POST', url: `/v1/spaces/${spaceId}/change-requests`, token, body: { subject: 'Fixture' } }),
    201,
    'opening a change request',
  ).id as string;
  const audit = expectStatus(
    await api.request({ method: 'GET', url: `${base}/audit-events?limit=1`, token }),
    200,
    'reading the audit log',
  );
  // Read last: the installation's event is delivered while the requests above run, and a read of the
  // events waits for the deliveries still in progress.
  const eventId = expectStatus(
    await api.request({ method: 'GET', url: `/v1/integrations/${integrationName}/events?limit=1`, token }),
    200,
    'reading its events',
  ).items[0].id as string;
  let openapiVersion = await api.request({ method: 'GET', url: `${base}/openapi/${openapiSpec.slug}/versions/latest`, token });
  for (let attempt = 0; attempt < 200 && openapiVersion.status === 404; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    openapiVersion = await api.request({ method: 'GET', url: `${base}/openapi/${openapiSpec.slug}/versions/latest`, token });
  }
  const openapiVersionId = expectStatus(openapiVersion, 200, 'reading its version').id as string;
  const auditEventId = audit.items[0]?.id as string;
  return {
    organizationId,
    spaceId,
    collectionId,
    teamId,
    samlProviderId,
    inviteId,
    shareKey,
    auditEventId,
    emailDomain,
    ids: {
      organizationId,
      spaceId,
      collectionId,
      teamId,
      samlProviderId,
      providerId: samlProviderId,
      inviteId,
      shareKey,
      auditEventId,
      emailDomain,
      domain: emailDomain,
      userId: owner.id,
      streamName: `organization-${organizationId}`,
      pageId,
      fileId,
      revisionId,
      pagePath: 'guide/intro',
      changeRequestId,
      // The space's comment and its reply; rules of the change-request group make their own in `setup`.
      commentId,
      commentReplyId,
      // No review exists in a fresh fixture (its author may not review it): rules that need one create it in `setup`.
      reviewId: 'NoSuchReview00000000',
      integrationName,
      siteId: site.id as string,
      siteSectionId,
      siteRootSectionId,
      siteSpaceId,
      siteSectionGroupId,
      shareLinkId,
      translationSettingsId,
      installationId,
      eventId,
      specSlug: openapiSpec.slug as string,
      versionId: openapiVersionId,
      hash: String(integration.urls.icon).split('/').pop()!,
    },
  };
}

/** Joins `user` to the organization with `role` (null: guest) through a link invite. */
export async function joinWithRole(
  api: InProcessApi,
  owner: Caller,
  organizationId: string,
  user: Caller,
  role: string | null,
): Promise<void> {
  const base = `/v1/orgs/${organizationId}`;
  const invite = expectStatus(
    await api.request({ method: 'POST', url: `${base}/link-invites`, token: owner.token, body: { role } }),
    201,
    `creating a ${role} link invite`,
  );
  const joined = expectStatus(
    await api.request({ method: 'POST', url: `${base}/invites/${invite.id}`, token: user.token }),
    200,
    `joining as ${role}`,
  );
  if (joined.role !== role) throw new Error(`joined with role ${joined.role}, not ${role}`);
}

/** A signed SAML response answering a login just started at the provider, as the identity provider would post it. */
export async function samlResponseFor(api: InProcessApi, providerId: string, email: string): Promise<string> {
  const start = await api.request({ method: 'GET', url: `/v1/sso/saml/${providerId}/start` });
  if (start.status !== 302) throw new Error(`starting a SAML login answered ${start.status}: ${start.text}`);
  const { id } = authnRequestOf(String(start.headers.location));
  const provider = `${api.publicUrl}/v1/sso/saml/${providerId}`;
  return identityProvider().response({ audience: provider, acsURL: `${provider}/acs`, inResponseTo: id, nameID: email });
}
