import { Inject, Injectable } from '@nestjs/common';

/**
 * Counts a space shows that other contexts own: open comments (comments) and change requests by
 * status (change requests). Spaces neither stores nor computes them: it would have to know those
 * contexts' events. Instead it owns this port, and each context that keeps per-space counts provides
 * a source, bound at the composition root. A context without one contributes nothing (zero).
 */
export interface SpaceCounts {
  comments: number;
  changeRequests: number;
  changeRequestsOpen: number;
  changeRequestsDraft: number;
}

/** One context's counts for a page of spaces: only the spaces and counters it knows; the rest are zero. */
export interface SpaceCountSource {
  countsFor(spaceIds: readonly string[]): Promise<ReadonlyMap<string, Partial<SpaceCounts>>>;
}

/** The list of sources (possibly empty), bound at the composition root. */
export const SPACE_COUNT_SOURCES = Symbol('SPACE_COUNT_SOURCES');

export const NO_COUNTS: Readonly<SpaceCounts> = Object.freeze({ comments: 0, changeRequests: 0, changeRequestsOpen: 0, changeRequestsDraft: 0 });

/** Every source's counts for the spaces of one answer, one call per source whatever the page size. */
@Injectable()
export class SpaceCounters {
  constructor(@Inject(SPACE_COUNT_SOURCES) private readonly sources: readonly SpaceCountSource[]) {}

  async forSpaces(spaceIds: readonly string[]): Promise<ReadonlyMap<string, SpaceCounts>> {
    const counts = new Map<string, SpaceCounts>();
    if (this.sources.length === 0 || spaceIds.length === 0) return counts;
    const answers = await Promise.all(this.sources.map((source) => source.countsFor(spaceIds)));
    for (const answer of answers) {
      for (const [spaceId, partial] of answer) counts.set(spaceId, { ...(counts.get(spaceId) ?? NO_COUNTS), ...partial });
    }
    return counts;
  }
}
