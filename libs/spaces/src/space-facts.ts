import { Inject, Injectable } from '@nestjs/common';

/**
 * What a space shows that other contexts own: its content's head revision (content), open comments
 * (comments) and change requests by status (change requests). Spaces neither stores nor computes
 * them: it would have to know those contexts' events. Instead it owns this port, and each context
 * that keeps per-space facts provides a source, bound at the composition root. A context without
 * one contributes nothing (zero counts, no revision).
 */
export interface SpaceFacts {
  /** The id of the space's primary content (its latest main revision). */
  revision?: string;
  comments: number;
  changeRequests: number;
  changeRequestsOpen: number;
  changeRequestsDraft: number;
}

/** One context's facts for a page of spaces: only the spaces and facts it knows; the rest are zero. */
export interface SpaceFactSource {
  factsFor(spaceIds: readonly string[]): Promise<ReadonlyMap<string, Partial<SpaceFacts>>>;
}

/** The list of sources (possibly empty), bound at the composition root. */
export const SPACE_FACT_SOURCES = Symbol('SPACE_FACT_SOURCES');

export const NO_FACTS: Readonly<SpaceFacts> = Object.freeze({ comments: 0, changeRequests: 0, changeRequestsOpen: 0, changeRequestsDraft: 0 });

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
