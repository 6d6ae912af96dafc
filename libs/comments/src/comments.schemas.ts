import { closedObject, dateTime, ref, url, type JsonSchema } from '#platform/platform.schemas';

const text: JsonSchema = { type: 'string' };
const flag: JsonSchema = { type: 'boolean' };
const reactions: JsonSchema = {
  type: 'array',
  items: closedObject({
    emoji: text,
    count: { type: 'integer', minimum: 1 },
    users: { type: 'array', items: closedObject({ user: ref('User'), reactedAt: dateTime }, ['user']) },
  }),
};
const body: JsonSchema = { oneOf: [closedObject({ markdown: text }), closedObject({ document: { type: 'object' } })] };
const permissions = closedObject({ view: flag, edit: flag, reply: flag, delete: flag });
/** The platform's UserContributor. */
const replier = closedObject({ user: ref('User'), count: { type: 'integer', minimum: 1 }, updatedAt: dateTime });

/** Response schemas of the comments context, for the OpenAPI document. */
export const commentSchemas: Record<string, JsonSchema> = {
  Comment: closedObject(
    {
      object: { type: 'string', enum: ['comment'] },
      id: text,
      postedBy: ref('User'),
      postedAt: dateTime,
      editedAt: dateTime,
      reactions,
      replies: { type: 'integer', minimum: 0 },
      repliers: { type: 'array', items: replier },
      body,
      target: closedObject(
        {
          node: closedObject({ id: text, preview: text }),
          tableCell: closedObject({ record: text, definition: text }),
          changeRequest: text,
          page: closedObject(
            { id: text, title: text, emoji: text, icon: text, createdAt: dateTime, updatedAt: dateTime, path: text, outdated: flag },
            ['title', 'emoji', 'icon', 'createdAt', 'updatedAt', 'path'],
          ),
          space: text,
          revision: text,
        },
        ['node', 'tableCell', 'changeRequest', 'page'],
      ),
      urls: closedObject({ location: url }),
      permissions,
      status: { type: 'string', enum: ['open', 'resolved'] },
      resolvedAt: dateTime,
      resolvedBy: ref('User'),
    },
    ['postedBy', 'editedAt', 'resolvedAt', 'resolvedBy'],
  ),
  CommentReply: closedObject(
    {
      object: { type: 'string', enum: ['comment-reply'] },
      id: text,
      postedBy: ref('User'),
      postedAt: dateTime,
      editedAt: dateTime,
      reactions,
      body,
      urls: closedObject({ location: url }),
      permissions,
    },
    ['postedBy', 'editedAt'],
  ),
};
