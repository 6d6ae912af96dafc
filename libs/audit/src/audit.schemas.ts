import { closedObject, dateTime, url, type JsonSchema } from '#platform/platform.schemas';

/** Response schemas of the audit context, for the OpenAPI document. */
export const auditSchemas: Record<string, JsonSchema> = {
  AuditEvent: closedObject(
    {
      object: { type: 'string', enum: ['audit-event'] },
      id: { type: 'string' },
      occurredAt: dateTime,
      action: { type: 'string', description: 'such as `space.deleted`' },
      actor: closedObject({
        type: { type: 'string', enum: ['user', 'integration', 'system'] },
        id: { type: 'string' },
        label: { type: 'string' },
      }),
      source: { type: 'string' },
      target: closedObject({ type: { type: 'string' }, id: { type: 'string' }, label: { type: 'string' } }),
      details: {
        type: 'object',
        description:
          'what the change touched, for events that say more than their target (the pages a content write created, updated and deleted)',
      },
      urls: closedObject({ location: url }),
    },
    ['details'],
  ),
  /** A stored event of the admin stream history. */
  Event: closedObject({
    object: { type: 'string', enum: ['event'] },
    id: { type: 'string' },
    streamId: { type: 'string' },
    revision: { type: 'integer', minimum: 0 },
    position: { type: 'string', pattern: '^[0-9]+$', description: 'the global log position, decimal (positions are 64-bit)' },
    type: { type: 'string' },
    data: {},
    metadata: { type: 'object' },
    recordedAt: dateTime,
  }),
};
