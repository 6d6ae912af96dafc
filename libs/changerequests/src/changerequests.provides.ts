import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Caller } from '#platform/http/auth';
import { CountChangeRequests, FindChangeRequest, GetChangeRequest } from './changerequest.queries';

/*
 * What the change-requests context provides to others: one adapter per port another context
 * declares, each dispatching this context's own queries and commands on the buses (bound at the
 * composition root, libs/composition/src/contexts.ts).
 */

/** Implements spaces' SPACE_FACT_SOURCES port: the Space object's `changeRequests`, `changeRequestsOpen`, `changeRequestsDraft`. */
@Injectable()
export class ChangeRequestsForSpaces {
  constructor(private readonly queryBus: QueryBus) {}

  async factsFor(
    spaceIds: readonly string[],
  ): Promise<ReadonlyMap<string, { changeRequests: number; changeRequestsOpen: number; changeRequestsDraft: number }>> {
    const counts = await this.queryBus.execute(new CountChangeRequests(spaceIds));
    return new Map(
      [...counts].map(([spaceId, count]) => [
        spaceId,
        { changeRequests: count.total, changeRequestsOpen: count.open, changeRequestsDraft: count.draft },
      ]),
    );
  }
}

/** Implements comments' COMMENT_CHANGE_REQUESTS port: the request a path names, with its head (where its comments sit). */
@Injectable()
export class ChangeRequestsForComments {
  constructor(private readonly queryBus: QueryBus) {}

  async changeRequestIn(spaceId: string, ref: string): Promise<{ id: string; revision: string }> {
    const request = await this.queryBus.execute(new FindChangeRequest(spaceId, ref));
    return { id: request._id, revision: request.revision };
  }
}

/** Implements content's CONTENT_CHANGE_REQUESTS port: the request a merge revision came from, as reads show it. */
@Injectable()
export class ChangeRequestsForContent {
  constructor(private readonly queryBus: QueryBus) {}

  /** The request as GET /change-requests/{id} answers it: a merge revision's `mergedFrom`. */
  async presented(spaceId: string, changeRequestId: string, caller: Caller): Promise<Record<string, unknown>> {
    return { ...(await this.queryBus.execute(new GetChangeRequest(spaceId, changeRequestId, caller))).object };
  }
}
