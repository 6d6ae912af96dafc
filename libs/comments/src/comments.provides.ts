import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { changeRequestCountsKey } from './comment.projections';
import { CountOpenComments } from './comment.queries';

/*
 * What the comments context provides to others: one adapter per port another context declares,
 * each dispatching this context's own queries on the bus (bound at the composition root,
 * libs/composition/src/contexts.ts).
 */

/** Implements spaces' SPACE_FACT_SOURCES port: the Space object's `comments` (open comments on its own content). */
@Injectable()
export class CommentsForSpaces {
  constructor(private readonly queryBus: QueryBus) {}

  async factsFor(spaceIds: readonly string[]): Promise<ReadonlyMap<string, { comments: number }>> {
    const counts = await this.queryBus.execute(new CountOpenComments(spaceIds));
    return new Map([...counts].map(([spaceId, open]) => [spaceId, { comments: open }]));
  }
}

/** Implements change requests' CHANGE_REQUEST_COMMENTS port: the Change request object's `comments`. */
@Injectable()
export class CommentsForChangeRequests {
  constructor(private readonly queryBus: QueryBus) {}

  async openComments(changeRequestIds: readonly string[]): Promise<ReadonlyMap<string, number>> {
    const counts = await this.queryBus.execute(new CountOpenComments(changeRequestIds.map(changeRequestCountsKey)));
    return new Map(
      changeRequestIds.filter((id) => counts.has(changeRequestCountsKey(id))).map((id) => [id, counts.get(changeRequestCountsKey(id))!]),
    );
  }
}
