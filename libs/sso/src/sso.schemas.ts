import { closedObject, dateTime, ref, roleOrGuest, url, type JsonSchema } from '#platform/platform.schemas';

/** Response schemas of the SSO context (SAML providers and logins), for the OpenAPI document. */
export const ssoSchemas: Record<string, JsonSchema> = {
  SamlProvider: closedObject(
    {
      object: { type: 'string', enum: ['saml-provider'] },
      id: { type: 'string' },
      label: { type: 'string' },
      ssoURL: { ...url, description: '`about:blank` until it is set' },
      entityID: { type: 'string', description: "'' until it is set" },
      certificate: { type: 'string', description: "the identity provider’s signing certificate, PEM; '' until it is set" },
      defaultTeam: ref('Team'),
      defaultRole: roleOrGuest,
      createdAt: dateTime,
      status: {
        type: 'string',
        enum: ['active', 'pending'],
        description: '`pending` until the provider has the SSO URL and certificate a login needs',
      },
      service: closedObject({ entityID: url, startURL: url, acsURL: url }),
      urls: closedObject({ location: url }),
    },
    ['defaultTeam'],
  ),
  /** `GET /v1/orgs/{organizationId}/sso`: the ways to sign in, for login pages. */
  SsoOptions: closedObject({
    items: { type: 'array', items: closedObject({ id: { type: 'string' }, label: { type: 'string' }, startURL: url }) },
  }),
  /** `POST /v1/sso/saml/{providerId}/acs`: the user and a new token for them. */
  SamlLogin: closedObject({ user: ref('User'), token: { type: 'string' }, relayState: { type: 'string' } }, ['relayState']),
};
