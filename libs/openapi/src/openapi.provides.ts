/**
 * What the OpenAPI context provides to other contexts: its implementations of ports they declare
 * (content), matched structurally so that the consumer does not import this context; the
 * composition root binds them. Each injects only the buses and dispatches the context's queries.
 */
import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { FindOpenapiSpecVersion, GetLatestOpenapiDocument } from './openapi.queries';

/** What OpenAPI specs offer content (its CONTENT_OPENAPI port): the latest version's parsed document of a spec, and what a version belongs to. */
@Injectable()
export class OpenapiForContent {
  constructor(private readonly queryBus: QueryBus) {}

  latestDocument(organizationId: string, slug: string): Promise<{ versionId: string; document: Record<string, unknown> } | null> {
    return this.queryBus.execute(new GetLatestOpenapiDocument(organizationId, slug));
  }

  specVersion(specId: string, versionId: string): Promise<{ organizationId: string; slug: string; newest: boolean } | null> {
    return this.queryBus.execute(new FindOpenapiSpecVersion(specId, versionId));
  }
}
