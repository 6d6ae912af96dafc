import { closedObject, dateTime, url, type JsonSchema } from '#platform/platform.schemas';
import { OPENAPI_ERROR_CODES, OPENAPI_PROCESSING_STATES, PLATFORM_OPENAPI_ERROR_CODES } from './openapi.events';

const text: JsonSchema = { type: 'string' };
const flag: JsonSchema = { type: 'boolean' };

/** Response schemas of the OpenAPI context, for the OpenAPI document. */
export const openapiSchemas: Record<string, JsonSchema> = {
  OpenAPISpec: closedObject(
    {
      object: { type: 'string', enum: ['openapi-spec'] },
      id: text,
      createdAt: dateTime,
      updatedAt: dateTime,
      slug: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$' },
      sourceURL: { type: 'string', format: 'uri', maxLength: 2048 },
      processingState: {
        type: 'string',
        enum: [...OPENAPI_PROCESSING_STATES],
        description: '`complete` once a processing has ended, with a version or with `lastProcessErrorCode`',
      },
      lastVersion: text,
      lastProcessedAt: dateTime,
      lastProcessErrorCode: { type: 'string', enum: [...PLATFORM_OPENAPI_ERROR_CODES] },
      lastProcessErrorMessage: { ...text, description: 'extension: what went wrong, in words' },
      lastProcessedErrors: {
        type: 'array',
        items: closedObject({ code: { type: 'string', enum: [...OPENAPI_ERROR_CODES] }, message: text }),
      },
      lastProcessedErrorCount: { type: 'integer', minimum: 0 },
      permissions: closedObject({ view: flag, edit: flag }),
      urls: closedObject({ location: url, app: url }),
    },
    ['sourceURL', 'lastVersion', 'lastProcessedAt', 'lastProcessErrorCode', 'lastProcessErrorMessage', 'lastProcessedErrors'],
  ),
  OpenAPISpecVersion: closedObject(
    {
      object: { type: 'string', enum: ['openapi-spec-version'] },
      id: text,
      createdAt: dateTime,
      url: { type: 'string', format: 'uri', maxLength: 2048 },
      urls: closedObject({ location: url }),
    },
    ['createdAt'],
  ),
  OpenAPISpecContent: closedObject({
    filesystem: { type: 'object' },
    url: { type: 'string', format: 'uri', maxLength: 2048 },
    urls: closedObject({
      source: { type: 'string', format: 'uri', maxLength: 2048 },
      public: { type: 'string', format: 'uri', nullable: true, description: 'null: specs are read by members of their organization only' },
    }),
  }),
};
