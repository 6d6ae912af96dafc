import { closedObject, ref, url, type JsonSchema } from '#platform/platform.schemas';

/** Response schemas of the identity context, for the OpenAPI document. */
export const identitySchemas: Record<string, JsonSchema> = {
  User: closedObject(
    {
      object: { type: 'string', enum: ['user'] },
      id: { type: 'string' },
      displayName: { type: 'string' },
      email: { type: 'string', format: 'email' },
      photoURL: { ...url, nullable: true },
      urls: closedObject({ location: url }),
    },
    ['photoURL'],
  ),
  /** `POST /v1/admin/users`: the token is shown this once. */
  CreatedUser: closedObject({
    user: ref('User'),
    token: { type: 'string', description: 'the user’s bearer token, shown only in this answer' },
    tokenId: { type: 'string', description: 'the token’s id, for `DELETE /v1/admin/tokens/{tokenId}`' },
  }),
  IssuedToken: closedObject({
    id: { type: 'string' },
    token: { type: 'string', description: 'a bearer token, shown only in this answer' },
  }),
};
