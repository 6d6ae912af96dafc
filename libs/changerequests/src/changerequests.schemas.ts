import { closedObject, dateTime, ref, url, type JsonSchema } from '#platform/platform.schemas';
import { CHANGE_REQUEST_STATUSES, REVIEW_STATUSES } from './changerequest.events';

const text: JsonSchema = { type: 'string' };
const conflict = closedObject(
  {
    page: { ...closedObject({ id: text, title: text, path: text }), nullable: true },
    file: closedObject({ id: text, name: text }),
    kind: { type: 'string', enum: ['content', 'attributes', 'deleted-edited', 'moved', 'slug', 'file', 'variables'] },
    ours: {},
    theirs: {},
  },
  ['file'],
);

/** Response schemas of the change-request context, for the OpenAPI document. */
export const changeRequestSchemas: Record<string, JsonSchema> = {
  ChangeRequest: closedObject(
    {
      object: { type: 'string', enum: ['change-request'] },
      id: text,
      number: { type: 'integer', minimum: 1 },
      status: { type: 'string', enum: [...CHANGE_REQUEST_STATUSES] },
      subject: { type: 'string', maxLength: 100 },
      description: { type: 'object', description: 'a JSON document', additionalProperties: true },
      createdBy: ref('User'),
      createdAt: dateTime,
      updatedAt: dateTime,
      revision: text,
      revisionInitial: text,
      revisionMergedAncestor: text,
      revisionMerged: text,
      mergedBy: ref('User'),
      mergedAt: dateTime,
      agentTaskId: text,
      space: text,
      comments: { type: 'integer', minimum: 0 },
      outdated: { type: 'boolean' },
      links: {
        type: 'array',
        maxItems: 10,
        items: closedObject(
          {
            id: text,
            ref: closedObject({ kind: { type: 'string', enum: ['url'] }, url: { type: 'string' } }),
            title: { type: 'string', maxLength: 128 },
          },
          ['title'],
        ),
      },
      urls: closedObject({ app: url, location: url }),
      permissions: closedObject({
        view: { type: 'boolean' },
        edit: { type: 'boolean' },
        review: { type: 'boolean' },
        merge: { type: 'boolean' },
      }),
    },
    ['description', 'createdBy', 'revisionMergedAncestor', 'revisionMerged', 'mergedBy', 'mergedAt', 'agentTaskId'],
  ),
  ChangeRequestMergeResult: closedObject({ revision: text, result: { type: 'string', enum: ['merge'] } }),
  ChangeRequestUpdateResult: closedObject({ revision: text, result: { type: 'string', enum: ['update'] } }),
  ChangeRequestChanges: closedObject({ changes: { type: 'array', items: ref('SemanticChange') } }),
  ChangeRequestReview: closedObject(
    {
      object: { type: 'string', enum: ['change-request-review'] },
      id: text,
      changeRequest: text,
      status: { type: 'string', enum: [...REVIEW_STATUSES] },
      body: text,
      reviewer: ref('User'),
      revision: text,
      outdated: { type: 'boolean' },
      createdAt: dateTime,
    },
    ['body', 'reviewer'],
  ),
  RequestedReviewer: closedObject({ object: { type: 'string', enum: ['requested-reviewer'] }, user: ref('User') }),
  PdfUrl: closedObject({ url }),
  MergeConflict: conflict,
  /** `POST …/change-requests/{changeRequestId}/content`: the space's batch write answer, with the request's id. */
  ChangeRequestContentWriteResult: closedObject({
    changeRequest: text,
    revision: text,
    changes: {
      type: 'array',
      items: closedObject(
        {
          object: { type: 'string', enum: ['created_page', 'updated_page', 'deleted_page'] },
          page: closedObject({ id: text, title: text, path: text }),
          ref: text,
        },
        ['ref'],
      ),
    },
    insertedFiles: { type: 'array', items: ref('File') },
  }),
};
