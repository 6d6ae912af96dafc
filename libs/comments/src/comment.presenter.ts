import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import type { Caller } from '#platform/http/auth';
import { COMMENT_CONTENT, COMMENT_USERS, type CommentContent, type CommentPage, type CommentPeople } from './comments.needs';
import { CommentBodies } from './comment.bodies';
import type { BodyRef, TableCell } from './comment.events';
import type { ResolvedPlace } from './comment.places';
import type { CommentDoc, Reaction, Replier, ReplyDoc } from './comment.projections';

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

/**
 * Comments and replies as the wire shows them, for the reads that answer them (a list, one, a
 * reply, a page of replies). `target.page.outdated` is decided when read: the commented block's
 * content differs (or is gone) in the revision comments sit on now.
 */
@Injectable()
export class CommentPresenter {
  constructor(
    @Inject(COMMENT_CONTENT) private readonly content: CommentContent,
    @Inject(COMMENT_USERS) private readonly users: CommentPeople,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly bodies: CommentBodies,
  ) {}

  async comments(
    place: ResolvedPlace,
    comments: readonly CommentDoc[],
    caller: Caller,
    format: 'markdown' | 'document' = 'markdown',
  ): Promise<CommentObject[]> {
    if (comments.length === 0) return [];
    // Comments on the space (or request) as a whole have no page to look at.
    const onPages = comments.filter((comment) => comment.target.pageId !== null);
    const [current, users, bodies] = await Promise.all([
      this.content.current(
        place.space.id,
        place.revision,
        onPages.map((comment) => ({ pageId: comment.target.pageId!, ...(comment.target.node ? { nodeKey: comment.target.node.id } : {}) })),
      ),
      this.usersOf(
        comments.flatMap((comment) => [
          comment.postedBy,
          ...(comment.resolvedBy ? [comment.resolvedBy] : []),
          ...reactionUsers(comment.reactions),
          ...(comment.repliers ?? []).map((replier) => replier.user),
        ]),
      ),
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
      object.reactions = reactionsOf(comment.reactions, users);
      object.replies = comment.replies;
      object.repliers = repliersOf(comment.repliers ?? [], users);
      object.body = bodies[index];
      const target = {} as CommentObject['target'];
      if (node) target.node = { id: node.id, preview: node.preview };
      if (comment.target.tableCell)
        target.tableCell = { record: comment.target.tableCell.record, definition: comment.target.tableCell.definition };
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
      object.permissions = {
        view: true,
        edit: me === comment.postedBy,
        reply: place.access.comment && !place.space.deleted,
        delete: me === comment.postedBy || place.access.admin,
      };
      object.status = status;
      if (status === 'resolved' && comment.resolvedAt !== undefined) object.resolvedAt = comment.resolvedAt;
      const resolvedBy = status === 'resolved' && comment.resolvedBy !== undefined ? users.get(comment.resolvedBy) : undefined;
      if (resolvedBy) object.resolvedBy = resolvedBy;
      return object;
    });
  }

  async replies(
    place: ResolvedPlace & { comment: CommentDoc },
    replies: readonly ReplyDoc[],
    caller: Caller,
    format: 'markdown' | 'document' = 'markdown',
  ): Promise<ReplyObject[]> {
    const [users, bodies] = await Promise.all([
      this.usersOf(replies.flatMap((reply) => [reply.postedBy, ...reactionUsers(reply.reactions)])),
      this.bodiesOf(replies, format),
    ]);
    const me = caller.kind === 'user' ? caller.userId : null;
    return replies.map((reply, index) => ({
      object: 'comment-reply',
      id: reply._id,
      ...user(users, reply.postedBy, 'postedBy'),
      postedAt: reply.postedAt,
      ...(reply.editedAt !== undefined ? { editedAt: reply.editedAt } : {}),
      reactions: reactionsOf(reply.reactions, users),
      body: bodies[index],
      urls: { location: `${this.base(place.comment)}/comments/${place.comment._id}/replies/${reply._id}` },
      permissions: {
        view: true,
        edit: me === reply.postedBy,
        reply: place.access.comment && !place.space.deleted,
        delete: me === reply.postedBy || place.access.admin,
      },
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
    return stored.map(({ body }) => ({
      markdown: body.markdown ?? this.content.markdown((body as Extract<BodyRef, { document: unknown }>).document),
    }));
  }

  private async usersOf(ids: readonly string[]): Promise<Map<string, User>> {
    const found = await this.users.byIds([...new Set(ids)]);
    return new Map([...found].map(([id, found]) => [id, this.users.present(found)]));
  }
}

function reactionsOf(reactions: readonly Reaction[], users: ReadonlyMap<string, User>): CommentObject['reactions'] {
  return reactions.map((reaction) => ({
    emoji: reaction.emoji,
    count: reaction.users.length,
    users: reaction.users.map((entry) => ({ ...user(users, entry.user, 'user'), reactedAt: entry.reactedAt })),
  }));
}

/** A page summary with `outdated`, member by member (see `CommentPresenter.comments`). */
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
