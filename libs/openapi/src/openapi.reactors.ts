import type { Reactor } from '../../runtime/src/reactor';
import { OpenapiCommands } from './openapi.commands';
import type { OpenapiSpecEvent } from './openapi.events';
import { OpenapiProcessing } from './openapi.processing';

type SourceGiven = Extract<OpenapiSpecEvent, { type: 'OpenAPISpecCreated' | 'OpenAPISpecSourceUpdated' }>['data'];
type Deleted = Extract<OpenapiSpecEvent, { type: 'OpenAPISpecDeleted' }>['data'];

/**
 * Processing: each source given (created, or updated by PUT) is fetched, parsed and recorded as a
 * version. Only the latest source of a live spec is processed (OpenapiProcessing), its parsing and
 * validation in the untrusted-work pool within OPENAPI_PROCESSING_TIME_MS. Writes do not wait for
 * it: processingState shows its progress. A failed or over-budget source stays `failed`; one whose
 * processing the service stopped in the middle of (the event comes again after a restart) is
 * started once more, then recorded failed (PROCESSING_INTERRUPTED): never a loop across restarts.
 */
export const openapiProcessingReactor: Reactor = {
  name: 'openapi-processing',
  handles: ['OpenAPISpecCreated', 'OpenAPISpecSourceUpdated'],
  // A slow source must not hold the write that gave it: POST and PUT answer `pending`.
  awaitedByWrites: false,
  async react(event, context) {
    const data = event.data as SourceGiven;
    await context.services.get(OpenapiProcessing).process(data.specId, data.organizationId, data.generation, context.caller);
  },
};

/** A deleted spec's slug is released for a new spec (only while that spec still holds it). */
export const openapiSlugReactor: Reactor = {
  name: 'openapi-slugs',
  handles: ['OpenAPISpecDeleted'],
  async react(event, context) {
    const data = event.data as Deleted;
    await context.services.get(OpenapiCommands).releaseSlug(data.organizationId, data.slug, data.specId, context.caller);
  },
};
