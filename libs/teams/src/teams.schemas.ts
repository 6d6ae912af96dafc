import { booleans, closedObject, dateTime, ref, type JsonSchema } from '#platform/platform.schemas';

const teamRole: JsonSchema = { type: 'string', enum: ['owner', 'member'] };

/** Response schemas of the teams context, for the OpenAPI document. */
export const teamSchemas: Record<string, JsonSchema> = {
  Team: closedObject({
    object: { type: 'string', enum: ['team'] },
    id: { type: 'string' },
    title: { type: 'string' },
    members: { type: 'integer', minimum: 0 },
    spaces: { type: 'integer', minimum: 0 },
    createdAt: dateTime,
    permissions: booleans('admin', 'view'),
  }),
  /** An item of `GET …/teams/{teamId}/members`. */
  TeamMembership: closedObject({
    organization: ref('Member'),
    team: closedObject({ role: teamRole }),
    permissions: booleans('view'),
  }),
  /** An item of `GET …/members/{userId}/teams`. */
  MemberTeam: closedObject({
    team: ref('Team'),
    member: closedObject({ role: teamRole }),
  }),
};
