import { mergeRulesSchema } from '#platform/merge-rules';
import { booleans, closedObject, dateTime, ref, roleOrGuest, url, type JsonSchema } from '#platform/platform.schemas';

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
      defaultContent: {
        ...closedObject({ type: { type: 'string', enum: ['site'] }, site: { type: 'string' } }),
        description: 'absent when there is none',
      },
      sso: { type: 'boolean' },
      ai: { type: 'boolean' },
      inviteLinks: { type: 'boolean' },
      changeRequestsRequireApproval: {
        type: 'boolean',
        description:
          'change requests merge only with an approval of their latest revision (extension; the require_at_least_one_approved_review rule of mergeRules)',
      },
      mergeRules: mergeRulesSchema({ inherit: false }),
      plan: { type: 'string', enum: ['free'] },
      urls: closedObject({ location: url, app: url, logo: url }, ['logo']),
      trial: closedObject({ status: { type: 'string', enum: ['notapplicable'] }, count: { type: 'integer', enum: [0] } }, []),
      internal_isOnNewTrial: { type: 'boolean', enum: [true] },
      permissions: booleans(
        'view',
        'access',
        'admin',
        'ownTeam',
        'createContent',
        'createOpenAPISpec',
        'ingestConversations',
        'viewBilling',
        'listMembers',
        'listTeams',
        'listIntegrations',
        'listInstallations',
        'installIntegration',
      ),
    },
    ['hostname', 'defaultContent'],
  ),
  OrganizationsByEmailDomain: closedObject({ organizations: { type: 'array', items: ref('Organization') } }),
  Member: closedObject(
    {
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
      sites: { type: 'integer', minimum: 0, description: 'the live sites of the organization: every member sees them all' },
    },
    ['lastSeenAt'],
  ),
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
