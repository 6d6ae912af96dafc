import { booleans, closedObject, dateTime, ref, roleOrGuest, url, type JsonSchema } from '../../platform/src/platform.schemas';

/** Response schemas of the organizations context (organizations, members, link invites), for the OpenAPI document. */
export const organizationSchemas: Record<string, JsonSchema> = {
  Organization: closedObject(
    {
      object: { type: 'string', enum: ['organization'] },
      id: { type: 'string' },
      title: { type: 'string' },
      createdAt: dateTime,
      emailDomains: { type: 'array', items: { type: 'string' } },
      hostname: { type: 'string' },
      type: { type: 'string', enum: ['business'] },
      defaultRole: roleOrGuest,
      defaultContent: { ...closedObject({ type: { type: 'string', enum: ['site'] }, site: { type: 'string' } }), nullable: true },
      sso: { type: 'boolean' },
      ai: { type: 'boolean' },
      inviteLinks: { type: 'boolean' },
      changeRequestsRequireApproval: { type: 'boolean', description: 'change requests merge only with an approval of their latest revision (extension)' },
      plan: { type: 'string', enum: ['free'] },
      urls: closedObject({ location: url, app: url, logo: url }, ['logo']),
      internal_isOnNewTrial: { type: 'boolean', enum: [true] },
      permissions: booleans('view', 'admin', 'ownTeam', 'createContent', 'createOpenAPISpec', 'ingestConversations', 'viewBilling', 'listMembers', 'listTeams', 'listIntegrations'),
    },
    ['hostname'],
  ),
  OrganizationsByEmailDomain: closedObject({ organizations: { type: 'array', items: ref('Organization') } }),
  Member: closedObject({
    object: { type: 'string', enum: ['member'] },
    id: { type: 'string', description: 'the user’s id' },
    role: roleOrGuest,
    user: ref('User'),
    disabled: { type: 'boolean' },
    joinedAt: dateTime,
    lastSeenAt: dateTime,
    sso: { type: 'boolean' },
    spaces: { type: 'integer', minimum: 0 },
    teams: { type: 'integer', minimum: 0 },
  }, ['lastSeenAt']),
  LinkInvite: closedObject({
    object: { type: 'string', enum: ['link-invite'] },
    id: { type: 'string' },
    role: roleOrGuest,
    createdAt: dateTime,
    urls: closedObject({ location: url, join: url }),
  }),
  /** An invitation by e-mail as the organization's admins see it (`GET /v1/orgs/{organizationId}/pending-invites`). */
  PendingInvite: closedObject({
    object: { type: 'string', enum: ['pending-invite'] },
    id: { type: 'string' },
    email: { type: 'string', format: 'email' },
    role: roleOrGuest,
    sso: { type: 'boolean', description: 'accepting it consents to single sign-on through the organization’s SAML providers' },
    invitedBy: { type: 'string', description: 'the inviting admin’s user id' },
    invitedAt: dateTime,
  }),
  /** An invitation as the invited person sees it (`GET /v1/user/invites`). */
  OrganizationInvite: closedObject({
    object: { type: 'string', enum: ['organization-invite'] },
    id: { type: 'string' },
    organization: closedObject({ id: { type: 'string' }, title: { type: 'string' } }),
    role: roleOrGuest,
    sso: { type: 'boolean' },
    invitedAt: dateTime,
  }),
  /** `POST /v1/orgs/{organizationId}/invites`: one pending invitation per address, and how many there are. */
  Invited: closedObject({ invites: { type: 'array', items: { type: 'string' } }, invited: { type: 'integer', minimum: 0 } }),
  /** `POST /v1/orgs/{organizationId}/ping`. */
  VisitorClaims: closedObject({ serviceVisitorClaims: { type: 'string', description: 'a signed token of the visitor’s claims' } }),
};
