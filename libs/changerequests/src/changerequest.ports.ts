import { Injectable } from '@nestjs/common';
import type { Caller } from '../../platform/src/http/auth';
import type { RevisionSource, TouchedPages } from '../../content/src';
import { ChangeRequestCommands, type ChangeRequestLine } from './changerequest.commands';
import { ChangeRequestQueries } from './changerequest.queries';

/** Implements spaces' SPACE_FACT_SOURCES port: the Space object's `changeRequests`, `changeRequestsOpen`, `changeRequestsDraft`. */
@Injectable()
export class ChangeRequestsForSpaces {
  constructor(private readonly queries: ChangeRequestQueries) {}

  async factsFor(spaceIds: readonly string[]): Promise<ReadonlyMap<string, { changeRequests: number; changeRequestsOpen: number; changeRequestsDraft: number }>> {
    const counts = await this.queries.counts(spaceIds);
    return new Map([...counts].map(([spaceId, count]) => [spaceId, { changeRequests: count.total, changeRequestsOpen: count.open, changeRequestsDraft: count.draft }]));
  }
}

/** Implements comments' COMMENT_CHANGE_REQUESTS port: the request a path names, with its head (where its comments sit). */
@Injectable()
export class ChangeRequestsForComments {
  constructor(private readonly queries: ChangeRequestQueries) {}

  async changeRequestIn(spaceId: string, ref: string): Promise<{ id: string; revision: string }> {
    const request = await this.queries.find(spaceId, ref);
    return { id: request._id, revision: request.revision };
  }
}

/** Implements content's CONTENT_CHANGE_REQUESTS port: a request's line, one new revision on it, and the request as reads show it. */
@Injectable()
export class ChangeRequestsForContent {
  constructor(
    private readonly commands: ChangeRequestCommands,
    private readonly queries: ChangeRequestQueries,
  ) {}

  line(spaceId: string, ref: string, caller: Caller): Promise<ChangeRequestLine> {
    return this.commands.line(spaceId, ref, caller);
  }

  /** The request as GET /change-requests/{id} answers it: a merge revision's `mergedFrom`. */
  async presented(spaceId: string, changeRequestId: string, caller: Caller): Promise<Record<string, unknown>> {
    return { ...(await this.queries.get(spaceId, changeRequestId, caller)) };
  }

  commitRevision(spaceId: string, changeRequestId: string, commit: { base: string; ifMatch?: string; revisionId: string; tree: string; pages: TouchedPages; source: RevisionSource }, caller: Caller) {
    return this.commands.commitRevision(spaceId, changeRequestId, commit, caller);
  }
}
