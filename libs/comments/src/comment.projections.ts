import {
  multiDocumentProjection,
  type ProjectedDoc,
  type Projection,
  type ProjectionCollection,
  type Recorded,
} from '#read-store/projections/projection';
import type { SpaceEvent } from '#spaces';
import { upcastCommentEvent, type BodyRef, type CommentEvent, type CommentTarget } from './comment.events';

export const COMMENTS = 'comments';
export const COMMENT_REPLIES = 'comment_replies';
export const COMMENT_COUNTS = 'comment_counts';
export const COMMENTERS = 'comment_commenters';

export interface Reaction {
  emoji: string;
  users: Array<{ user: string; reactedAt: string }>;
}

/** Someone who replied to a thread: how many of their replies it holds, and when they last replied or edited one. */
export interface Replier {
  user: string;
  count: number;
  updatedAt: string;
}

export interface CommentDoc extends ProjectedDoc {
  spaceId: string;
  organizationId: string;
  changeRequestId: string | null;
  target: CommentTarget;
  /** The body's blob and markdown (small); only events stored before bodies moved to the blob store put a document here. */
  body: BodyRef;
  postedBy: string;
  postedAt: string;
  editedAt?: string;
  /** `deleted` is a tombstone: an old event replayed cannot bring the comment back. */
  status: 'open' | 'resolved' | 'deleted';
  resolvedAt?: string;
  resolvedBy?: string;
  reactions: Reaction[];
  replies: number;
  /** In the order they first replied. */
  repliers: Replier[];
  /**
   * Revision of the thread's stream after its last event: the ETag of the comment and of its
   * replies, which live in that stream. Every event of the stream writes this document to keep it.
   */
  streamRevision: number;
}

export interface ReplyDoc extends ProjectedDoc {
  commentId: string;
  spaceId: string;
  changeRequestId: string | null;
  /** As CommentDoc's. */
  body: BodyRef;
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
export const countsKey = (spaceId: string, changeRequestId: string | null) =>
  changeRequestId === null ? spaceId : changeRequestCountsKey(changeRequestId);

function react(reactions: readonly Reaction[], emoji: string, user: string, at: string | null): Reaction[] {
  const next = reactions.map((reaction) => ({
    emoji: reaction.emoji,
    users: reaction.users.filter((entry) => entry.user !== user || reaction.emoji !== emoji),
  }));
  if (at !== null) {
    const existing = next.find((reaction) => reaction.emoji === emoji);
    if (existing) existing.users.push({ user, reactedAt: at });
    else next.push({ emoji, users: [{ user, reactedAt: at }] });
  }
  return next.filter((reaction) => reaction.users.length > 0);
}

/** The repliers after one of `user`'s replies was posted (`+1`), edited (`0`) or deleted (`-1`) at `at`. */
export function withReplier(repliers: readonly Replier[], user: string, change: 1 | 0 | -1, at: string): Replier[] {
  const found = repliers.find((replier) => replier.user === user);
  if (!found) return change === 1 ? [...repliers, { user, count: 1, updatedAt: at }] : [...repliers];
  const count = found.count + change;
  return repliers.flatMap((replier) =>
    replier !== found
      ? [replier]
      : count > 0
        ? [{ user, count, updatedAt: change === -1 || at < replier.updatedAt ? replier.updatedAt : at }]
        : [],
  );
}

async function recount(
  comments: ProjectionCollection<CommentDoc>,
  counts: ProjectionCollection<CommentCountsDoc>,
  spaceId: string,
  changeRequestId: string | null,
): Promise<void> {
  const open = await comments.count({ spaceId, changeRequestId, status: 'open' });
  await counts.put({ _id: countsKey(spaceId, changeRequestId), open });
}

/**
 * The comment read models: one document per thread (guarded: the stream's document), its
 * replies, open counts per space and per change request (recounted whenever a thread opens,
 * resolves or goes), and who commented where.
 */
const projection = multiDocumentProjection<CommentEvent | SpaceEvent>({
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
  guard: (event) =>
    event.type.startsWith('Comment') ? { collection: COMMENTS, id: (event.data as { commentId: string }).commentId } : null,
  async apply(recorded: Recorded<CommentEvent | SpaceEvent>, documents) {
    // Events of the log in today's shape (bodies stored inline, reactions before emoji had one form).
    const event = upcastCommentEvent(recorded);
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
    const noteCommenter = async (
      data: { spaceId: string; organizationId: string; changeRequestId: string | null },
      userId: string,
      at: string,
    ) => {
      const id = `${countsKey(data.spaceId, data.changeRequestId)}:${userId}`;
      if (!(await commenters.get(id)))
        await commenters.put({
          _id: id,
          spaceId: data.spaceId,
          changeRequestId: data.changeRequestId,
          organizationId: data.organizationId,
          userId,
          firstAt: at,
        });
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
        postedBy: data.postedBy,
        postedAt: data.postedAt,
        status: 'open',
        reactions: [],
        replies: 0,
        repliers: [],
        streamRevision: event.revision,
      });
      await noteCommenter(data, data.postedBy, data.postedAt);
      await recount(comments, counts, data.spaceId, data.changeRequestId);
      return;
    }
    const data = event.data as Extract<CommentEvent, { type: 'CommentEdited' }>['data'];
    const comment = await comments.get(data.commentId);
    if (!comment || comment.status === 'deleted') return;
    const streamRevision = event.revision;
    switch (event.type) {
      case 'CommentEdited':
        await comments.update(comment._id, { $set: { body: event.data.body, editedAt: event.data.editedAt, streamRevision } });
        return;
      case 'CommentResolved':
        await comments.update(comment._id, {
          $set: { status: 'resolved', resolvedAt: event.data.resolvedAt, resolvedBy: event.data.resolvedBy, streamRevision },
        });
        await recount(comments, counts, comment.spaceId, comment.changeRequestId);
        return;
      case 'CommentReopened':
        await comments.update(comment._id, { $set: { status: 'open', streamRevision }, $unset: { resolvedAt: '', resolvedBy: '' } });
        await recount(comments, counts, comment.spaceId, comment.changeRequestId);
        return;
      case 'CommentDeleted':
        await comments.update(comment._id, { $set: { status: 'deleted', streamRevision } });
        await replies.deleteMany({ commentId: comment._id });
        await recount(comments, counts, comment.spaceId, comment.changeRequestId);
        return;
      case 'CommentReplyPosted':
        await replies.put({
          _id: event.data.replyId,
          commentId: comment._id,
          spaceId: comment.spaceId,
          changeRequestId: comment.changeRequestId,
          body: event.data.body,
          postedBy: event.data.postedBy,
          postedAt: event.data.postedAt,
          reactions: [],
        });
        await comments.update(comment._id, {
          $set: {
            replies: comment.replies + 1,
            repliers: withReplier(comment.repliers ?? [], event.data.postedBy, 1, event.data.postedAt),
            streamRevision,
          },
        });
        await noteCommenter(comment, event.data.postedBy, event.data.postedAt);
        return;
      case 'CommentReplyEdited': {
        const reply = await replies.get(event.data.replyId);
        await replies.update(event.data.replyId, { $set: { body: event.data.body, editedAt: event.data.editedAt } });
        await comments.update(comment._id, {
          $set: {
            ...(reply ? { repliers: withReplier(comment.repliers ?? [], reply.postedBy, 0, event.data.editedAt) } : {}),
            streamRevision,
          },
        });
        return;
      }
      case 'CommentReplyDeleted': {
        const reply = await replies.get(event.data.replyId);
        await replies.delete(event.data.replyId);
        await comments.update(comment._id, {
          $set: {
            replies: Math.max(0, comment.replies - 1),
            ...(reply ? { repliers: withReplier(comment.repliers ?? [], reply.postedBy, -1, event.data.deletedAt) } : {}),
            streamRevision,
          },
        });
        return;
      }
      case 'CommentReactionAdded':
      case 'CommentReactionRemoved': {
        const { replyId, emoji, user } = event.data;
        const at = event.type === 'CommentReactionAdded' ? event.data.reactedAt : null;
        if (replyId === null) {
          await comments.update(comment._id, { $set: { reactions: react(comment.reactions, emoji, user, at), streamRevision } });
          return;
        }
        const reply = await replies.get(replyId);
        if (reply) await replies.update(replyId, { $set: { reactions: react(reply.reactions, emoji, user, at) } });
        await comments.update(comment._id, { $set: { streamRevision } });
        return;
      }
    }
  },
});

/** Version 1: bodies as `BodyRef` (blob and markdown), `repliers`, targets without a page. Version 2: `streamRevision`. */
export const commentProjection: Projection = { ...projection, version: 2 };
