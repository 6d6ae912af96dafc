import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import {
  COMMENT_CHANGE_REQUESTS,
  COMMENT_CONTENT,
  COMMENT_SPACES,
  type CommentChangeRequests,
  type CommentContent,
  type CommentSpace,
  type CommentSpaces,
} from './comments.needs';
import type { CommentAccess } from './comment.decider';
import { COMMENTS, type CommentDoc } from './comment.projections';

/** Where a route's comments sit: a space's content, or one of its change requests (by id or number). */
export interface CommentPlace {
  spaceId: string;
  changeRequest?: string;
}

/** The place resolved: the space as the caller sees it, the request's id, the revision comments sit on now. */
export interface ResolvedPlace {
  space: CommentSpace;
  changeRequestId: string | null;
  revision: string;
  access: CommentAccess;
}

/**
 * Where a comment sits, with the caller's access: every comment read and write resolves the place
 * first (404 when the caller may not see the space or the request), so what is invisible is refused
 * in one place whichever route asks.
 */
@Injectable()
export class CommentPlaces {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(COMMENT_SPACES) private readonly spaces: CommentSpaces,
    @Inject(COMMENT_CHANGE_REQUESTS) private readonly changeRequests: CommentChangeRequests,
    @Inject(COMMENT_CONTENT) private readonly content: CommentContent,
  ) {}

  async place(where: CommentPlace, caller: Caller): Promise<ResolvedPlace> {
    const space = await this.spaces.spaceFor(where.spaceId, caller);
    const access: CommentAccess = {
      read: space.permissions.view,
      comment: space.permissions.comment,
      admin: space.permissions.admin,
      spaceDeleted: space.deleted,
    };
    if (where.changeRequest === undefined) return { space, changeRequestId: null, revision: await this.content.head(space.id), access };
    const request = await this.changeRequests.changeRequestIn(space.id, where.changeRequest);
    return { space, changeRequestId: request.id, revision: request.revision, access };
  }

  /** A live thread of the place, or 404. */
  async thread(where: CommentPlace, commentId: string, caller: Caller): Promise<ResolvedPlace & { comment: CommentDoc }> {
    const place = await this.place(where, caller);
    const comment = await this.reads.collection<CommentDoc>(COMMENTS).get(commentId);
    if (!comment || comment.status === 'deleted' || comment.spaceId !== place.space.id || comment.changeRequestId !== place.changeRequestId)
      throw DomainError.notFound(`no comment ${commentId}`);
    return { ...place, comment };
  }
}
