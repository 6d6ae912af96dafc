import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../platform/src/config';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import { listEnvelope, type ListEnvelope } from '../../platform/src/http/list';
import { READ_STORE, type Filter, type ReadStore } from '../../read-store/src/read-store.port';
import { COMMENT_CONTENT, type CommentContent, type CommentPage } from './comments-content.port';
import { COMMENT_CHANGE_REQUESTS, COMMENT_MEMBERS, COMMENT_SPACES, COMMENT_USERS, type CommentChangeRequests, type CommentMembers, type CommentPeople, type CommentSpace, type CommentSpaces } from './comments-spaces.port';
import { CommentBodies } from './comment.bodies';
import type { CommentAccess } from './comment.decider';
import type { BodyRef, TableCell } from './comment.events';
import { COMMENT_REPLIES, COMMENTERS, COMMENTS, type CommenterDoc, type CommentDoc, type Reaction, type Replier, type ReplyDoc } from './comment.projections';
import type { Versioned } from '../../platform/src/http/etag';

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

type User = { object: 'user'; id: string };
type Body = { markdown: string } | { document: unknown };

export interface CommentObject {
  object: 'comment';
  id: string;
  postedBy?: User;
  postedAt: string;
  editedAt?: string;
  reactions: Array<{ emoji: string; count: number; users: Array<{ user?: User; reactedAt: string }> }>;
  replies: number;
  /** The platform's UserContributor: who replied, how often, and when they last did. */
  repliers: Array<{ user: User; count: number; updatedAt: string }>;
  body: Body;
  target: {
    node?: { id: string; preview: string };
    tableCell?: TableCell;
    changeRequest?: string;
    page?: (CommentPage & { outdated: boolean }) | { id: string; outdated: boolean };
    space: string;
    revision: string;
  };
  urls: { location: string };
  permissions: { view: boolean; edit: boolean; reply: boolean; delete: boolean };
  status: 'open' | 'resolved';
  resolvedAt?: string;
  resolvedBy?: User;
}

export interface ReplyObject {
  object: 'comment-reply';
  id: string;
  postedBy?: User;
  postedAt: string;
  editedAt?: string;
  reactions: CommentObject['reactions'];
  body: Body;
  urls: { location: string };
  permissions: { view: boolean; edit: boolean; reply: boolean; delete: boolean };
}

export interface CommentListQuery {
  order?: 'asc' | 'desc';
  format?: 'markdown' | 'document';
  status?: 'all' | 'open' | 'resolved';
  targetPage?: string;
  authors?: string[];
  page?: string;
  limit?: number;
}

/**
 * The comment reads: every read resolves the place first (404 when the caller may not see the
 * space or the request), then answers from the read models. `target.page.outdated` is decided when
 * read: the commented block's content differs (or is gone) in the revision comments sit on now.
 */
@Injectable()
export class CommentQueries {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(COMMENT_SPACES) private readonly spaces: CommentSpaces,
    @Inject(COMMENT_CHANGE_REQUESTS) private readonly changeRequests: CommentChangeRequests,
    @Inject(COMMENT_CONTENT) private readonly content: CommentContent,
    @Inject(COMMENT_USERS) private readonly users: CommentPeople,
    @Inject(COMMENT_MEMBERS) private readonly members: CommentMembers,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly bodies: CommentBodies,
  ) {}

  async place(where: CommentPlace, caller: Caller): Promise<ResolvedPlace> {
    const space = await this.spaces.spaceFor(where.spaceId, caller);
    const access: CommentAccess = { read: space.permissions.view, comment: space.permissions.comment, admin: space.permissions.admin, spaceDeleted: space.deleted };
    if (where.changeRequest === undefined) return { space, changeRequestId: null, revision: await this.content.head(space.id), access };
    const request = await this.changeRequests.changeRequestIn(space.id, where.changeRequest);
    return { space, changeRequestId: request.id, revision: request.revision, access };
  }

  /** A live thread of the place, or 404. */
  async thread(where: CommentPlace, commentId: string, caller: Caller): Promise<ResolvedPlace & { comment: CommentDoc }> {
    const place = await this.place(where, caller);
    const comment = await this.reads.collection<CommentDoc>(COMMENTS).get(commentId);
    if (!comment || comment.status === 'deleted' || comment.spaceId !== place.space.id || comment.changeRequestId !== place.changeRequestId) throw DomainError.notFound(`no comment ${commentId}`);
    return { ...place, comment };
  }

  async list(where: CommentPlace, caller: Caller, query: CommentListQuery): Promise<ListEnvelope<CommentObject>> {
    const place = await this.place(where, caller);
    const status = query.status ?? 'all';
    const filter: Filter = {
      spaceId: place.space.id,
      changeRequestId: place.changeRequestId,
      status: status === 'all' ? { $in: ['open', 'resolved'] } : status,
      ...(query.targetPage !== undefined ? { 'target.pageId': query.targetPage } : {}),
      ...(query.authors !== undefined ? { postedBy: { $in: query.authors } } : {}),
    };
    const page = await this.reads.collection<CommentDoc>(COMMENTS).find(filter, { sort: { postedAt: query.order === 'asc' ? 1 : -1 }, limit: query.limit, after: query.page });
    return listEnvelope({ items: await this.present(place, page.items, caller, query.format), count: page.count, next: page.next });
  }

  /** The comment and its ETag, both from the one document read: the revision of its stream, which its replies share, and what a write of any of them names in If-Match. */
  async get(where: CommentPlace, commentId: string, caller: Caller, format?: 'markdown' | 'document'): Promise<Versioned<CommentObject>> {
    const place = await this.thread(where, commentId, caller);
    return { object: (await this.present(place, [place.comment], caller, format))[0], streamRevision: place.comment.streamRevision };
  }

  async replies(where: CommentPlace, commentId: string, caller: Caller, query: { format?: 'markdown' | 'document'; page?: string; limit?: number }): Promise<ListEnvelope<ReplyObject>> {
    const place = await this.thread(where, commentId, caller);
    const page = await this.reads.collection<ReplyDoc>(COMMENT_REPLIES).find({ commentId }, { sort: { postedAt: 1 }, limit: query.limit, after: query.page });
    return listEnvelope({ items: await this.presentReplies(place, page.items, caller, query.format), count: page.count, next: page.next });
  }

  /**
   * The reply and its ETag: the revision of its comment's stream. The comment is read before the
   * reply, so the reply is never older than the revision answered: a write the reply has since
   * seen makes that ETag stale (412), it never lets a write through against a reply not read.
   */
  async reply(where: CommentPlace, commentId: string, replyId: string, caller: Caller, format?: 'markdown' | 'document'): Promise<Versioned<ReplyObject>> {
    const place = await this.thread(where, commentId, caller);
    const reply = await this.reads.collection<ReplyDoc>(COMMENT_REPLIES).get(replyId);
    if (!reply || reply.commentId !== commentId) throw DomainError.notFound(`no reply ${replyId} to comment ${commentId}`);
    return { object: (await this.presentReplies(place, [reply], caller, format))[0], streamRevision: place.comment.streamRevision };
  }

  /** `GET …/commenters`: the members who commented or replied there, as Member objects, in the order they first did. */
  async commenters(where: CommentPlace, caller: Caller, paging: { page?: string; limit?: number }): Promise<ListEnvelope<{ object: 'member'; id: string }>> {
    const place = await this.place(where, caller);
    const page = await this.reads.collection<CommenterDoc>(COMMENTERS).find({ spaceId: place.space.id, changeRequestId: place.changeRequestId }, { sort: { firstAt: 1 }, limit: paging.limit, after: paging.page });
    const members = await this.members.presentMembers(place.space.organizationId, page.items.map((commenter) => commenter.userId));
    const items = page.items.flatMap((commenter) => (members.has(commenter.userId) ? [members.get(commenter.userId)!] : []));
    return listEnvelope({ items, count: page.count, next: page.next });
  }

  // ---- presenting ---------------------------------------------------------------------------------

  private async present(place: ResolvedPlace, comments: readonly CommentDoc[], caller: Caller, format: 'markdown' | 'document' = 'markdown'): Promise<CommentObject[]> {
    if (comments.length === 0) return [];
    // Comments on the space (or request) as a whole have no page to look at.
    const onPages = comments.filter((comment) => comment.target.pageId !== null);
    const [current, users, bodies] = await Promise.all([
      this.content.current(place.space.id, place.revision, onPages.map((comment) => ({ pageId: comment.target.pageId!, ...(comment.target.node ? { nodeKey: comment.target.node.id } : {}) }))),
      this.usersOf(comments.flatMap((comment) => [comment.postedBy, ...(comment.resolvedBy ? [comment.resolvedBy] : []), ...reactionUsers(comment.reactions), ...(comment.repliers ?? []).map((replier) => replier.user)])),
      this.bodiesOf(comments, format),
    ]);
    const now = new Map(onPages.map((comment, index) => [comment, current[index]]));
    const me = caller.kind === 'user' ? caller.userId : null;
    return comments.map((comment, index) => {
      const node = comment.target.node;
      const status = comment.status === 'resolved' ? 'resolved' : 'open';
      // Built member by member: on Node 20, a literal with spreads followed by more members (`{ ...page, outdated }`,
      // `...(x ? { y } : {})`) takes V8's slow path, about a microsecond each, and a list presents fifty comments.
      const object: CommentObject = { object: 'comment', id: comment._id } as CommentObject;
      const postedBy = users.get(comment.postedBy);
      if (postedBy) object.postedBy = postedBy;
      object.postedAt = comment.postedAt;
      if (comment.editedAt !== undefined) object.editedAt = comment.editedAt;
      object.reactions = this.reactions(comment.reactions, users);
      object.replies = comment.replies;
      object.repliers = repliersOf(comment.repliers ?? [], users);
      object.body = bodies[index];
      const target = {} as CommentObject['target'];
      if (node) target.node = { id: node.id, preview: node.preview };
      if (comment.target.tableCell) target.tableCell = { record: comment.target.tableCell.record, definition: comment.target.tableCell.definition };
      if (comment.changeRequestId !== null) target.changeRequest = comment.changeRequestId;
      const page = now.get(comment);
      if (page && comment.target.pageId !== null) {
        const outdated = page.page === null || (node !== null && page.fingerprint !== node.fingerprint);
        target.page = page.page ? pageWithOutdated(page.page, outdated) : { id: comment.target.pageId, outdated };
      }
      target.space = comment.spaceId;
      target.revision = comment.target.revision;
      object.target = target;
      object.urls = { location: `${this.base(comment)}/comments/${comment._id}` };
      object.permissions = { view: true, edit: me === comment.postedBy, reply: place.access.comment && !place.space.deleted, delete: me === comment.postedBy || place.access.admin };
      object.status = status;
      if (status === 'resolved' && comment.resolvedAt !== undefined) object.resolvedAt = comment.resolvedAt;
      const resolvedBy = status === 'resolved' && comment.resolvedBy !== undefined ? users.get(comment.resolvedBy) : undefined;
      if (resolvedBy) object.resolvedBy = resolvedBy;
      return object;
    });
  }

  private async presentReplies(place: ResolvedPlace & { comment: CommentDoc }, replies: readonly ReplyDoc[], caller: Caller, format: 'markdown' | 'document' = 'markdown'): Promise<ReplyObject[]> {
    const [users, bodies] = await Promise.all([this.usersOf(replies.flatMap((reply) => [reply.postedBy, ...reactionUsers(reply.reactions)])), this.bodiesOf(replies, format)]);
    const me = caller.kind === 'user' ? caller.userId : null;
    return replies.map((reply, index) => ({
      object: 'comment-reply',
      id: reply._id,
      ...user(users, reply.postedBy, 'postedBy'),
      postedAt: reply.postedAt,
      ...(reply.editedAt !== undefined ? { editedAt: reply.editedAt } : {}),
      reactions: this.reactions(reply.reactions, users),
      body: bodies[index],
      urls: { location: `${this.base(place.comment)}/comments/${place.comment._id}/replies/${reply._id}` },
      permissions: { view: true, edit: me === reply.postedBy, reply: place.access.comment && !place.space.deleted, delete: me === reply.postedBy || place.access.admin },
    }));
  }

  private base(comment: Pick<CommentDoc, 'spaceId' | 'changeRequestId'>): string {
    const space = `${this.config.publicUrl}/v1/spaces/${comment.spaceId}`;
    return comment.changeRequestId === null ? space : `${space}/change-requests/${comment.changeRequestId}`;
  }

  /**
   * The markdown as rendered when the body was written (rendered now only for the oldest bodies,
   * stored before it was kept), or the document, read from the blob store.
   */
  private async bodiesOf(stored: ReadonlyArray<{ body: BodyRef }>, format: 'markdown' | 'document'): Promise<Body[]> {
    if (format === 'document') return Promise.all(stored.map(async ({ body }) => ({ document: await this.bodies.document(body) })));
    return stored.map(({ body }) => ({ markdown: body.markdown ?? this.content.markdown((body as Extract<BodyRef, { document: unknown }>).document) }));
  }

  private reactions(reactions: readonly Reaction[], users: ReadonlyMap<string, User>): CommentObject['reactions'] {
    return reactions.map((reaction) => ({ emoji: reaction.emoji, count: reaction.users.length, users: reaction.users.map((entry) => ({ ...user(users, entry.user, 'user'), reactedAt: entry.reactedAt })) }));
  }

  private async usersOf(ids: readonly string[]): Promise<Map<string, User>> {
    const found = await this.users.byIds([...new Set(ids)]);
    return new Map([...found].map(([id, found]) => [id, this.users.present(found)]));
  }
}

/** A page summary with `outdated`, member by member (see `present`). */
function pageWithOutdated(page: CommentPage, outdated: boolean): CommentPage & { outdated: boolean } {
  const out: CommentPage & { outdated: boolean } = { id: page.id, title: page.title } as CommentPage & { outdated: boolean };
  if (page.emoji !== undefined) out.emoji = page.emoji;
  if (page.icon !== undefined) out.icon = page.icon;
  out.createdAt = page.createdAt;
  out.updatedAt = page.updatedAt;
  out.path = page.path;
  out.outdated = outdated;
  return out;
}

const reactionUsers = (reactions: readonly Reaction[]) => reactions.flatMap((reaction) => reaction.users.map((entry) => entry.user));

/** The repliers identity knows, each as the platform's UserContributor `{ user, count, updatedAt }`. */
function repliersOf(repliers: readonly Replier[], users: ReadonlyMap<string, User>): CommentObject['repliers'] {
  return repliers.flatMap((replier) => {
    const found = users.get(replier.user);
    return found ? [{ user: found, count: replier.count, updatedAt: replier.updatedAt }] : [];
  });
}

/** `{ [member]: user }` when identity knows the user (a deleted account is left out). */
function user<K extends string>(users: ReadonlyMap<string, User>, id: string, member: K): Partial<Record<K, User>> {
  const found = users.get(id);
  return found ? ({ [member]: found } as Record<K, User>) : {};
}

