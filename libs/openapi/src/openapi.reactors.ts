import type { Reactor } from '#runtime/reactor';
import { ReleaseSpecSlug } from './openapi.commands';
import type { OpenapiSpecEvent } from './openapi.events';
import { ProcessOpenapiSource } from './openapi.processing';

/**
 * Processing: each source given (created, or updated by PUT) is fetched, parsed and recorded as a
 * version. Only the latest source of a live spec is processed (ProcessOpenapiSource), its parsing and
 * validation in the untrusted-work pool within OPENAPI_PROCESSING_TIME_MS. Writes do not wait for
 * it: processingState shows its progress. A failed or over-budget source stays `failed`; one whose
 * processing the service stopped in the middle of (the event comes again after a restart) is
 * started once more, then recorded failed (PROCESSING_INTERRUPTED): never a loop across restarts.
 */
export const openapiProcessingReactor: Reactor<OpenapiSpecEvent> = {
  name: 'openapi-processing',
  handles: ['OpenAPISpecCreated', 'OpenAPISpecSourceUpdated'],
  // A slow source must not hold the write that gave it: POST and PUT answer `pending`.
  awaitedByWrites: false,
  async react(event, context) {
    switch (event.type) {
      case 'OpenAPISpecCreated':
      case 'OpenAPISpecSourceUpdated':
        await context.commandBus.execute(
          new ProcessOpenapiSource(event.data.specId, event.data.organizationId, event.data.generation, context.caller),
        );
    }
  },
};

/** A deleted spec's slug is released for a new spec (only while that spec still holds it). */
export const openapiSlugReactor: Reactor<OpenapiSpecEvent> = {
  name: 'openapi-slugs',
  handles: ['OpenAPISpecDeleted'],
  async react(event, context) {
    switch (event.type) {
      case 'OpenAPISpecDeleted':
        await context.commandBus.execute(
          new ReleaseSpecSlug(event.data.organizationId, event.data.slug, event.data.specId, context.caller),
        );
    }
  },
};
