import { booleans, closedObject, dateTime, url, type JsonSchema } from '#platform/platform.schemas';

const text: JsonSchema = { type: 'string' };

/** Response schemas of the translations context, for the OpenAPI document. */
export const translationSchemas: Record<string, JsonSchema> = {
  TranslationSettings: closedObject({
    object: { type: 'string', enum: ['translation-settings'] },
    id: text,
    title: text,
    languages: { type: 'array', items: { type: 'string', description: 'a BCP 47 language tag, in canonical form' } },
    createdAt: dateTime,
    updatedAt: dateTime,
    permissions: booleans('view', 'edit'),
    urls: closedObject({ location: url }),
  }),
};
