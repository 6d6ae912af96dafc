import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { byIds } from '#platform/by-ids';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import type { Versioned } from '#platform/http/etag';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import { READ_STORE, type Filter, type ReadStore } from '#read-store/read-store.port';
import { COMMENT_MEMBERS, type CommentMembers } from './comments.needs';
import { CommentPlaces, type CommentPlace } from './comment.places';
import { CommentPresenter, type CommentObject, type ReplyObject } from './comment.presenter';
import {
  COMMENT_COUNTS,
  COMMENT_REPLIES,
  COMMENTERS,
  COMMENTS,
  type CommentCountsDoc,
  type CommenterDoc,
  type CommentDoc,
  type ReplyDoc,
} from './comment.projections';

/*
 * The comment reads: every read resolves the place first (CommentPlaces: 404 when the caller may
 * not see the space or the request), then answers from the read models (CommentPresenter).
 */

export type { CommentObject, ReplyObject };

export interface CommentListQuery {
  order?: 'asc' | 'desc';
  format?: 'markdown' | 'document';
  status?: 'all' | 'open' | 'resolved';
  targetPage?: string;
  authors?: string[];
  page?: string;
  limit?: number;
}

/** `GET …/comments`: the place's live comments, newest first unless `order=asc`. */
export class ListComments extends Query<ListEnvelope<CommentObject>> {
  constructor(
    readonly place: CommentPlace,
    readonly caller: Caller,
    readonly query: CommentListQuery,
  ) {
    super();
  }
}

@QueryHandler(ListComments)
export class ListCommentsHandler implements IQueryHandler<ListComments> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly places: CommentPlaces,
    private readonly presenter: CommentPresenter,
  ) {}

  async execute({ place: where, caller, query }: ListComments): Promise<ListEnvelope<CommentObject>> {
    const place = await this.places.place(where, caller);
    const status = query.status ?? 'all';
    const filter: Filter = {
      spaceId: place.space.id,
      changeRequestId: place.changeRequestId,
      status: status === 'all' ? { $in: ['open', 'resolved'] } : status,
      ...(query.targetPage !== undefined ? { 'target.pageId': query.targetPage } : {}),
      ...(query.authors !== undefined ? { postedBy: { $in: query.authors } } : {}),
    };
    const page = await this.reads
      .collection<CommentDoc>(COMMENTS)
      .find(filter, { sort: { postedAt: query.order === 'asc' ? 1 : -1 }, limit: query.limit, after: query.page });
    return listEnvelope({
      items: await this.presenter.comments(place, page.items, caller, query.format),
      count: page.count,
      next: page.next,
    });
  }
}

/**
 * `GET …/comments/{commentId}`: the comment and its ETag, both from the one document read: the
 * revision of its stream, which its replies share, and what a write of any of them names in If-Match.
 */
export class GetComment extends Query<Versioned<CommentObject>> {
  constructor(
    readonly place: CommentPlace,
    readonly commentId: string,
    readonly caller: Caller,
    readonly format?: 'markdown' | 'document',
  ) {
    super();
  }
}

@QueryHandler(GetComment)
export class GetCommentHandler implements IQueryHandler<GetComment> {
  constructor(
    private readonly places: CommentPlaces,
    private readonly presenter: CommentPresenter,
  ) {}

  async execute({ place: where, commentId, caller, format }: GetComment): Promise<Versioned<CommentObject>> {
    const place = await this.places.thread(where, commentId, caller);
    return {
      object: (await this.presenter.comments(place, [place.comment], caller, format))[0],
      streamRevision: place.comment.streamRevision,
    };
  }
}

/** `GET …/comments/{commentId}/replies`: the thread's replies, oldest first. */
export class ListReplies extends Query<ListEnvelope<ReplyObject>> {
  constructor(
    readonly place: CommentPlace,
    readonly commentId: string,
    readonly caller: Caller,
    readonly query: { format?: 'markdown' | 'document'; page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListReplies)
export class ListRepliesHandler implements IQueryHandler<ListReplies> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly places: CommentPlaces,
    private readonly presenter: CommentPresenter,
  ) {}

  async execute({ place: where, commentId, caller, query }: ListReplies): Promise<ListEnvelope<ReplyObject>> {
    const place = await this.places.thread(where, commentId, caller);
    const page = await this.reads
      .collection<ReplyDoc>(COMMENT_REPLIES)
      .find({ commentId }, { sort: { postedAt: 1 }, limit: query.limit, after: query.page });
    return listEnvelope({
      items: await this.presenter.replies(place, page.items, caller, query.format),
      count: page.count,
      next: page.next,
    });
  }
}

/**
 * `GET …/comments/{commentId}/replies/{commentReplyId}`: the reply and its ETag, the revision of
 * its comment's stream. The comment is read before the reply, so the reply is never older than the
 * revision answered: a write the reply has since seen makes that ETag stale (412), it never lets a
 * write through against a reply not read.
 */
export class GetReply extends Query<Versioned<ReplyObject>> {
  constructor(
    readonly place: CommentPlace,
    readonly commentId: string,
    readonly replyId: string,
    readonly caller: Caller,
    readonly format?: 'markdown' | 'document',
  ) {
    super();
  }
}

@QueryHandler(GetReply)
export class GetReplyHandler implements IQueryHandler<GetReply> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly places: CommentPlaces,
    private readonly presenter: CommentPresenter,
  ) {}

  async execute({ place: where, commentId, replyId, caller, format }: GetReply): Promise<Versioned<ReplyObject>> {
    const place = await this.places.thread(where, commentId, caller);
    const reply = await this.reads.collection<ReplyDoc>(COMMENT_REPLIES).get(replyId);
    if (!reply || reply.commentId !== commentId) throw DomainError.notFound(`no reply ${replyId} to comment ${commentId}`);
    return { object: (await this.presenter.replies(place, [reply], caller, format))[0], streamRevision: place.comment.streamRevision };
  }
}

/** `GET …/commenters`: the members who commented or replied there, as Member objects, in the order they first did. */
export class ListCommenters extends Query<ListEnvelope<{ object: 'member'; id: string }>> {
  constructor(
    readonly place: CommentPlace,
    readonly caller: Caller,
    readonly paging: { page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListCommenters)
export class ListCommentersHandler implements IQueryHandler<ListCommenters> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(COMMENT_MEMBERS) private readonly members: CommentMembers,
    private readonly places: CommentPlaces,
  ) {}

  async execute({ place: where, caller, paging }: ListCommenters): Promise<ListEnvelope<{ object: 'member'; id: string }>> {
    const place = await this.places.place(where, caller);
    const page = await this.reads
      .collection<CommenterDoc>(COMMENTERS)
      .find(
        { spaceId: place.space.id, changeRequestId: place.changeRequestId },
        { sort: { firstAt: 1 }, limit: paging.limit, after: paging.page },
      );
    const members = await this.members.presentMembers(
      place.space.organizationId,
      page.items.map((commenter) => commenter.userId),
    );
    const items = page.items.flatMap((commenter) => (members.has(commenter.userId) ? [members.get(commenter.userId)!] : []));
    return listEnvelope({ items, count: page.count, next: page.next });
  }
}

/**
 * Open comments by counts document (a space's id, or `changeRequestCountsKey` of a request), one
 * read for a page of spaces or requests: what the port adapters give spaces and change requests.
 * Nothing but the read store: change requests read it while comments read change requests, and
 * neither may need the other to be built first.
 */
export class CountOpenComments extends Query<Map<string, number>> {
  constructor(readonly keys: readonly string[]) {
    super();
  }
}

@QueryHandler(CountOpenComments)
export class CountOpenCommentsHandler implements IQueryHandler<CountOpenComments> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async execute({ keys }: CountOpenComments): Promise<Map<string, number>> {
    const counts = await byIds(this.reads.collection<CommentCountsDoc>(COMMENT_COUNTS), keys);
    return new Map(counts.map((counts) => [counts._id, counts.open]));
  }
}

export const commentQueryHandlers = [
  ListCommentsHandler,
  GetCommentHandler,
  ListRepliesHandler,
  GetReplyHandler,
  ListCommentersHandler,
  CountOpenCommentsHandler,
];
