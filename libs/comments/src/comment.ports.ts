import { Inject, Injectable } from '@nestjs/common';
import { READ_STORE, type ReadStore } from '../../read-store/src/read-store.port';
import { changeRequestCountsKey, COMMENT_COUNTS, type CommentCountsDoc } from './comment.projections';
import { byIds } from '../../platform/src/by-ids';

/**
 * Open comments by counts document, one read for a page of spaces or requests. Its own class, with
 * nothing but the read store: change requests read it while comments read change requests, and
 * neither may need the other to be built first.
 */
@Injectable()
export class CommentCounts {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async open(keys: readonly string[]): Promise<Map<string, number>> {
    const counts = await byIds(this.reads.collection<CommentCountsDoc>(COMMENT_COUNTS), keys);
    return new Map(counts.map((counts) => [counts._id, counts.open]));
  }
}

/** Implements spaces' SPACE_FACT_SOURCES port: the Space object's `comments` (open comments on its own content). */
@Injectable()
export class CommentsForSpaces {
  constructor(private readonly counts: CommentCounts) {}

  async factsFor(spaceIds: readonly string[]): Promise<ReadonlyMap<string, { comments: number }>> {
    const counts = await this.counts.open(spaceIds);
    return new Map([...counts].map(([spaceId, open]) => [spaceId, { comments: open }]));
  }
}

/** Implements change requests' CHANGE_REQUEST_COMMENTS port: the Change request object's `comments`. */
@Injectable()
export class CommentsForChangeRequests {
  constructor(private readonly counts: CommentCounts) {}

  async openComments(changeRequestIds: readonly string[]): Promise<ReadonlyMap<string, number>> {
    const counts = await this.counts.open(changeRequestIds.map(changeRequestCountsKey));
    return new Map(changeRequestIds.filter((id) => counts.has(changeRequestCountsKey(id))).map((id) => [id, counts.get(changeRequestCountsKey(id))!]));
  }
}
