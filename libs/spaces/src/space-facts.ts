import { Inject, Injectable } from '@nestjs/common';
import { SPACE_FACT_SOURCES, type SpaceFacts, type SpaceFactSource } from './spaces.needs';

/*
 * The facts a space shows that other contexts own, read through the SPACE_FACT_SOURCES port
 * (spaces.needs.ts): a space without any is zero counts and no revision.
 */

export const NO_FACTS: Readonly<SpaceFacts> = Object.freeze({
  comments: 0,
  changeRequests: 0,
  changeRequestsOpen: 0,
  changeRequestsDraft: 0,
});

/** Every source's counts for the spaces of one answer, one call per source whatever the page size. */
@Injectable()
export class SpaceFactsReader {
  constructor(@Inject(SPACE_FACT_SOURCES) private readonly sources: readonly SpaceFactSource[]) {}

  async forSpaces(spaceIds: readonly string[]): Promise<ReadonlyMap<string, SpaceFacts>> {
    const counts = new Map<string, SpaceFacts>();
    if (this.sources.length === 0 || spaceIds.length === 0) return counts;
    const answers = await Promise.all(this.sources.map((source) => source.factsFor(spaceIds)));
    for (const answer of answers) {
      for (const [spaceId, partial] of answer) counts.set(spaceId, { ...(counts.get(spaceId) ?? NO_FACTS), ...partial });
    }
    return counts;
  }
}
