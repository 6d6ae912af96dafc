import { mergeRulesSchema } from '#platform/merge-rules';
import { booleans, closedObject, dateTime, listOf, ref, role, roleOrGuest, url, type JsonSchema } from '#platform/platform.schemas';
import { DEFAULT_LEVELS, EDIT_MODES, SPACE_LANGUAGES, SPACE_VISIBILITIES } from './space.events';

/** A default level: a role, `inherit`, or null (none of its own). */
const defaultLevel: JsonSchema = { type: 'string', enum: [...DEFAULT_LEVELS, null], nullable: true };

/** Response schemas of the spaces context (spaces, collections, share links, team access), for the OpenAPI document. */
export const spaceSchemas: Record<string, JsonSchema> = {
  Space: closedObject(
    {
      object: { type: 'string', enum: ['space'] },
      id: { type: 'string' },
      title: { type: 'string' },
      emoji: { type: 'string', description: "'' when the space has no emoji" },
      visibility: { type: 'string', enum: [...SPACE_VISIBILITIES] },
      createdAt: dateTime,
      updatedAt: dateTime,
      deletedAt: dateTime,
      editMode: { type: 'string', enum: [...EDIT_MODES] },
      mergeRules: mergeRulesSchema({ inherit: true }),
      urls: closedObject({ location: url, app: url, public: url, icon: url }, ['public', 'icon']),
      organization: { type: 'string' },
      parent: { type: 'string', description: 'the collection it is in; absent at the top level' },
      language: { type: 'string', enum: [...SPACE_LANGUAGES] },
      defaultLevel,
      revision: { type: 'string', description: 'the id of the active revision: the primary content' },
      comments: { type: 'integer', minimum: 0 },
      changeRequests: { type: 'integer', minimum: 0 },
      changeRequestsOpen: { type: 'integer', minimum: 0 },
      changeRequestsDraft: { type: 'integer', minimum: 0 },
      permissions: booleans(
        'view',
        'access',
        'admin',
        'viewInviteLinks',
        'edit',
        'triggerGitSync',
        'comment',
        'merge',
        'review',
        'installIntegration',
      ),
    },
    ['deletedAt', 'parent', 'revision', 'language'],
  ),
  Collection: closedObject(
    {
      object: { type: 'string', enum: ['collection'] },
      id: { type: 'string' },
      title: { type: 'string' },
      description: { type: 'string' },
      organization: { type: 'string' },
      parent: { type: 'string', description: 'the collection it is in; absent at the top level' },
      defaultLevel,
      urls: closedObject({ location: url, app: url }),
      permissions: booleans('view', 'admin', 'viewInviteLinks', 'create'),
    },
    ['description', 'parent'],
  ),
  ShareLink: closedObject({
    object: { type: 'string', enum: ['share-link'] },
    key: { type: 'string', description: 'the `shareKey` of `GET /v1/spaces/{spaceId}`' },
    space: { type: 'string' },
    createdAt: dateTime,
    urls: closedObject({ location: url, space: url }),
  }),
  /** `GET /v1/spaces/{spaceId}/teams`: the roles the space grants to teams. */
  SpaceTeamAccess: listOf(closedObject({ team: { type: 'string' }, role })),
  /** An item of `GET /v1/orgs/{organizationId}/members/{userId}/spaces`. */
  MemberSpace: closedObject({ permission: roleOrGuest, space: ref('Space') }),
};
