import { Injectable } from '@nestjs/common';
import { ContentQueries } from './content.queries';

/** Implements spaces' SPACE_FACT_SOURCES port: the Space object's `revision` (its primary content). */
@Injectable()
export class ContentForSpaces {
  constructor(private readonly queries: ContentQueries) {}

  async factsFor(spaceIds: readonly string[]): Promise<ReadonlyMap<string, { revision: string }>> {
    const heads = await this.queries.heads(spaceIds);
    return new Map([...heads].map(([spaceId, revision]) => [spaceId, { revision }]));
  }
}
