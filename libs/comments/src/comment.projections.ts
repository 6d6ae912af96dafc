import { multiDocumentProjection, type ProjectedDoc, type ProjectionCollection, type Recorded } from '../../read-store/src/projections/projection';
import type { SpaceEvent } from '../../spaces/src';
import type { CommentBody, CommentEvent, CommentTarget } from './comment.events';

export const COMMENTS = 'comments';
export const COMMENT_REPLIES = 'comment_replies';
export const COMMENT_COUNTS = 'comment_counts';
export const COMMENTERS = 'comment_commenters';

export interface Reaction {
  emoji: string;
  users: Array<{ user: string; reactedAt: string }>;
}

export interface CommentDoc extends ProjectedDoc {
  spaceId: string;
  organizationId: string;
  changeRequestId: string | null;
  target: CommentTarget;
  body: CommentBody;
  /** The body's markdown as rendered when written; absent for bodies written before it was kept. */
  bodyMarkdown?: string;
  postedBy: string;
  postedAt: string;
  editedAt?: string;
  /** `deleted` is a tombstone: an old event replayed cannot bring the comment back. */
  status: 'open' | 'resolved' | 'deleted';
  resolvedAt?: string;
  resolvedBy?: string;
  reactions: Reaction[];
  replies: number;
}

export interface ReplyDoc extends ProjectedDoc {
  commentId: string;
  spaceId: string;
  changeRequestId: string | null;
  body: CommentBody;
  /** As CommentDoc's. */
  bodyMarkdown?: string;
  postedBy: string;
  postedAt: string;
  editedAt?: string;
  reactions: Reaction[];
  deleted?: true;
}

/** Open comments of a space's own content (`_id` the space id) or of a change request (`cr:<id>`). */
export interface CommentCountsDoc extends ProjectedDoc {
  open: number;
}

/** Someone who commented or replied, per space or change request (`<scope>:<userId>`). */
export interface CommenterDoc extends ProjectedDoc {
  spaceId: string;
  changeRequestId: string | null;
  organizationId: string;
  userId: string;
  firstAt: string;
}

/** The counts document of a change request's comments. */
export const changeRequestCountsKey = (changeRequestId: string) => `cr:${changeRequestId}`;
export const countsKey = (spaceId: string, changeRequestId: string | null) => (changeRequestId === null ? spaceId : changeRequestCountsKey(changeRequestId));

function react(reactions: readonly Reaction[], emoji: string, user: string, at: string | null): Reaction[] {
  const next = reactions.map((reaction) => ({ emoji: reaction.emoji, users: reaction.users.filter((entry) => entry.user !== user || reaction.emoji !== emoji) }));
  if (at !== null) {
    const existing = next.find((reaction) => reaction.emoji === emoji);
    if (existing) existing.users.push({ user, reactedAt: at });
    else next.push({ emoji, users: [{ user, reactedAt: at }] });
  }
  return next.filter((reaction) => reaction.users.length > 0);
}

/** The event's rendered markdown, when it has one (events stored before it was kept have none). */
const bodyMarkdownOf = (data: { bodyMarkdown?: string }): { bodyMarkdown?: string } => (data.bodyMarkdown !== undefined ? { bodyMarkdown: data.bodyMarkdown } : {});
/** An edit without markdown drops the old body's: it no longer matches the body. */
const unsetBodyMarkdown = (data: { bodyMarkdown?: string }): { $unset?: { bodyMarkdown: '' } } => (data.bodyMarkdown === undefined ? { $unset: { bodyMarkdown: '' } } : {});

async function recount(comments: ProjectionCollection<CommentDoc>, counts: ProjectionCollection<CommentCountsDoc>, spaceId: string, changeRequestId: string | null): Promise<void> {
  const open = await comments.count({ spaceId, changeRequestId, status: 'open' });
  await counts.put({ _id: countsKey(spaceId, changeRequestId), open });
}

/**
 * The comment read models: one document per thread (guarded: the stream's document), its
 * replies, open counts per space and per change request (recounted whenever a thread opens,
 * resolves or goes), and who commented where.
 */
export const commentProjection = multiDocumentProjection<CommentEvent | SpaceEvent>({
  name: 'comments',
  collections: [COMMENTS, COMMENT_REPLIES, COMMENT_COUNTS, COMMENTERS],
  indexes: [
    { collection: COMMENTS, fields: { spaceId: 1, changeRequestId: 1, status: 1, postedAt: -1 } },
    { collection: COMMENTS, fields: { spaceId: 1, changeRequestId: 1, postedAt: -1 } },
    { collection: COMMENT_REPLIES, fields: { commentId: 1, postedAt: 1 } },
    { collection: COMMENTERS, fields: { spaceId: 1, changeRequestId: 1, firstAt: 1 } },
  ],
  handles: [
    'CommentPosted',
    'CommentEdited',
    'CommentResolved',
    'CommentReopened',
    'CommentDeleted',
    'CommentReplyPosted',
    'CommentReplyEdited',
    'CommentReplyDeleted',
    'CommentReactionAdded',
    'CommentReactionRemoved',
    'SpacePurged',
    'SpaceTransferred',
  ],
  guard: (event) => (event.type.startsWith('Comment') ? { collection: COMMENTS, id: (event.data as { commentId: string }).commentId } : null),
  async apply(event: Recorded<CommentEvent | SpaceEvent>, documents) {
    const comments = documents.collection<CommentDoc>(COMMENTS);
    const replies = documents.collection<ReplyDoc>(COMMENT_REPLIES);
    const counts = documents.collection<CommentCountsDoc>(COMMENT_COUNTS);
    const commenters = documents.collection<CommenterDoc>(COMMENTERS);
    if (event.type === 'SpacePurged') {
      await comments.updateMany({ spaceId: event.data.spaceId }, { $set: { status: 'deleted' } });
      await replies.deleteMany({ spaceId: event.data.spaceId });
      await commenters.deleteMany({ spaceId: event.data.spaceId });
      await counts.delete(event.data.spaceId);
      return;
    }
    if (event.type === 'SpaceTransferred') {
      await comments.updateMany({ spaceId: event.data.spaceId }, { $set: { organizationId: event.data.organizationId } });
      await commenters.updateMany({ spaceId: event.data.spaceId }, { $set: { organizationId: event.data.organizationId } });
      return;
    }
    const noteCommenter = async (data: { spaceId: string; organizationId: string; changeRequestId: string | null }, userId: string, at: string) => {
      const id = `${countsKey(data.spaceId, data.changeRequestId)}:${userId}`;
      if (!(await commenters.get(id))) await commenters.put({ _id: id, spaceId: data.spaceId, changeRequestId: data.changeRequestId, organizationId: data.organizationId, userId, firstAt: at });
    };
    if (event.type === 'CommentPosted') {
      const data = event.data;
      await comments.put({
        _id: data.commentId,
        spaceId: data.spaceId,
        organizationId: data.organizationId,
        changeRequestId: data.changeRequestId,
        target: data.target,
        body: data.body,
        ...bodyMarkdownOf(data),
        postedBy: data.postedBy,
        postedAt: data.postedAt,
        status: 'open',
        reactions: [],
        replies: 0,
      });
      await noteCommenter(data, data.postedBy, data.postedAt);
      await recount(comments, counts, data.spaceId, data.changeRequestId);
      return;
    }
    const data = event.data as Extract<CommentEvent, { type: 'CommentEdited' }>['data'];
    const comment = await comments.get(data.commentId);
    if (!comment || comment.status === 'deleted') return;
    switch (event.type) {
      case 'CommentEdited':
        await comments.update(comment._id, { $set: { body: event.data.body, ...bodyMarkdownOf(event.data), editedAt: event.data.editedAt }, ...unsetBodyMarkdown(event.data) });
        return;
      case 'CommentResolved':
        await comments.update(comment._id, { $set: { status: 'resolved', resolvedAt: event.data.resolvedAt, resolvedBy: event.data.resolvedBy } });
        await recount(comments, counts, comment.spaceId, comment.changeRequestId);
        return;
      case 'CommentReopened':
        await comments.update(comment._id, { $set: { status: 'open' }, $unset: { resolvedAt: '', resolvedBy: '' } });
        await recount(comments, counts, comment.spaceId, comment.changeRequestId);
        return;
      case 'CommentDeleted':
        await comments.update(comment._id, { $set: { status: 'deleted' } });
        await replies.deleteMany({ commentId: comment._id });
        await recount(comments, counts, comment.spaceId, comment.changeRequestId);
        return;
      case 'CommentReplyPosted':
        await replies.put({ _id: event.data.replyId, commentId: comment._id, spaceId: comment.spaceId, changeRequestId: comment.changeRequestId, body: event.data.body, ...bodyMarkdownOf(event.data), postedBy: event.data.postedBy, postedAt: event.data.postedAt, reactions: [] });
        await comments.update(comment._id, { $set: { replies: comment.replies + 1 } });
        await noteCommenter(comment, event.data.postedBy, event.data.postedAt);
        return;
      case 'CommentReplyEdited':
        await replies.update(event.data.replyId, { $set: { body: event.data.body, ...bodyMarkdownOf(event.data), editedAt: event.data.editedAt }, ...unsetBodyMarkdown(event.data) });
        await comments.update(comment._id, { $set: {} });
        return;
      case 'CommentReplyDeleted':
        await replies.delete(event.data.replyId);
        await comments.update(comment._id, { $set: { replies: Math.max(0, comment.replies - 1) } });
        return;
      case 'CommentReactionAdded':
      case 'CommentReactionRemoved': {
        const { replyId, emoji, user } = event.data;
        const at = event.type === 'CommentReactionAdded' ? event.data.reactedAt : null;
        if (replyId === null) {
          await comments.update(comment._id, { $set: { reactions: react(comment.reactions, emoji, user, at) } });
          return;
        }
        const reply = await replies.get(replyId);
        if (reply) await replies.update(replyId, { $set: { reactions: react(reply.reactions, emoji, user, at) } });
        await comments.update(comment._id, { $set: {} });
        return;
      }
    }
  },
});
