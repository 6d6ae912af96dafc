import type { Decider } from '#event-store/decider';
import { DomainError } from '#platform/errors';
import {
  upcastCommentEvent,
  type BodyRef,
  type CommentEvent,
  type CommentScope,
  type CommentStatus,
  type CommentTarget,
} from './comment.events';
import { canonicalEmoji } from './comment.reactions';

export const commentStream = (commentId: string) => `comment-${commentId}`;

/** Reactions of a comment or a reply: the users of each emoji. */
type Reactions = ReadonlyMap<string, ReadonlySet<string>>;

export interface ReplyState {
  author: string;
  deleted: boolean;
  reactions: Reactions;
}

export interface CommentState {
  posted: null | (CommentScope & { author: string });
  deleted: boolean;
  status: CommentStatus;
  reactions: Reactions;
  replies: ReadonlyMap<string, ReplyState>;
}

/** What the caller may do in the comment's space, read by the command handler when the command is made. */
export interface CommentAccess {
  /** May read the space (and so react). */
  read: boolean;
  /** May comment: the `comment` role and above. */
  comment: boolean;
  /** Space admin: deletes anyone's comment. */
  admin: boolean;
  /** The space is deleted: nothing is written under it. */
  spaceDeleted: boolean;
}

interface Acting {
  commentId: string;
  by: string;
  access: CommentAccess;
  now: string;
}

/** Changes of one PUT: the body, the thread's status and reactions (as sent: the decider reads them in their stored form), each optional. */
export interface CommentChanges {
  body?: BodyRef;
  resolved?: boolean;
  addedReactions?: string[];
  removedReactions?: string[];
}

export type CommentCommand =
  | (Acting & { kind: 'PostComment'; scope: CommentScope; target: CommentTarget; body: BodyRef })
  | (Acting & { kind: 'UpdateComment'; changes: CommentChanges })
  | (Acting & { kind: 'DeleteComment' })
  | (Acting & { kind: 'PostReply'; replyId: string; body: BodyRef })
  /** `resolved` on a reply resolves or reopens the thread: change requests' replies only (`mayResolve`). */
  | (Acting & { kind: 'UpdateReply'; replyId: string; changes: CommentChanges; mayResolve: boolean })
  | (Acting & { kind: 'DeleteReply'; replyId: string });

const withUser = (reactions: Reactions, emoji: string, user: string, present: boolean): Reactions => {
  const next = new Map(reactions);
  const users = new Set(next.get(emoji) ?? []);
  if (present) users.add(user);
  else users.delete(user);
  if (users.size === 0) next.delete(emoji);
  else next.set(emoji, users);
  return next;
};

const refuseWrite = (id: string, access: CommentAccess): DomainError | null =>
  access.spaceDeleted
    ? DomainError.conflict(`the space of comment ${id} is deleted: restore it first`)
    : !access.read
      ? DomainError.notFound(`no comment ${id}`)
      : null;

/** Reaction and status events of one PUT on the comment or one of its replies. */
function reactionsAndStatus(
  state: CommentState,
  about: About,
  command: Acting,
  changes: CommentChanges,
  replyId: string | null,
  current: Reactions,
  mayResolve: boolean,
): CommentEvent[] | DomainError {
  const events: CommentEvent[] = [];
  if (changes.resolved !== undefined) {
    if (!mayResolve) return DomainError.invalid('resolved can be set on the comment (or on a change request comment’s replies) only');
    if (!command.access.comment)
      return DomainError.forbidden(`you may not resolve or reopen comment ${command.commentId}: it needs the comment role`);
    if (changes.resolved && state.status === 'open')
      events.push({ type: 'CommentResolved', data: { ...about, resolvedBy: command.by, resolvedAt: command.now } });
    if (!changes.resolved && state.status === 'resolved')
      events.push({ type: 'CommentReopened', data: { ...about, reopenedBy: command.by, reopenedAt: command.now } });
  }
  const added = storedEmoji(changes.addedReactions, 'addedReactions');
  if (added instanceof DomainError) return added;
  const removed = storedEmoji(changes.removedReactions, 'removedReactions');
  if (removed instanceof DomainError) return removed;
  let reactions = current;
  for (const emoji of added) {
    if (reactions.get(emoji)?.has(command.by)) continue;
    reactions = withUser(reactions, emoji, command.by, true);
    events.push({ type: 'CommentReactionAdded', data: { ...about, replyId, emoji, user: command.by, reactedAt: command.now } });
  }
  for (const emoji of removed) {
    if (!reactions.get(emoji)?.has(command.by)) continue;
    reactions = withUser(reactions, emoji, command.by, false);
    events.push({ type: 'CommentReactionRemoved', data: { ...about, replyId, emoji, user: command.by, removedAt: command.now } });
  }
  return events;
}

type About = { commentId: string; spaceId: string; organizationId: string; changeRequestId: string | null };

/** The reactions as sent, in their stored form (comment.reactions.ts), each once; 400 naming the first that is no emoji. */
function storedEmoji(sent: readonly string[] | undefined, field: string): Set<string> | DomainError {
  const stored = new Set<string>();
  for (const emoji of sent ?? []) {
    const canonical = canonicalEmoji(emoji);
    if (canonical === null)
      return DomainError.invalid(
        `each of ${field} must be one emoji, as its character (👍) or its Unicode codepoints (1f44d), or a :shortcode:; ${JSON.stringify(String(emoji).slice(0, 60))} is not`,
      );
    stored.add(canonical);
  }
  return stored;
}

export const commentDecider: Decider<CommentCommand, CommentEvent, CommentState> = {
  initialState: () => ({ posted: null, deleted: false, status: 'open', reactions: new Map(), replies: new Map() }),
  evolve: (state, recorded) => {
    // Events of the log in today's shape: reactions stored before emoji had one form get it.
    const event = upcastCommentEvent(recorded);
    switch (event.type) {
      case 'CommentPosted': {
        const { spaceId, organizationId, changeRequestId, postedBy } = event.data;
        return { ...state, posted: { spaceId, organizationId, changeRequestId, author: postedBy } };
      }
      case 'CommentEdited':
        return state;
      case 'CommentResolved':
        return { ...state, status: 'resolved' };
      case 'CommentReopened':
        return { ...state, status: 'open' };
      case 'CommentDeleted':
        return { ...state, deleted: true };
      case 'CommentReplyPosted':
        return {
          ...state,
          replies: new Map(state.replies).set(event.data.replyId, { author: event.data.postedBy, deleted: false, reactions: new Map() }),
        };
      case 'CommentReplyEdited':
        return state;
      case 'CommentReplyDeleted': {
        const reply = state.replies.get(event.data.replyId);
        return reply ? { ...state, replies: new Map(state.replies).set(event.data.replyId, { ...reply, deleted: true }) } : state;
      }
      case 'CommentReactionAdded':
      case 'CommentReactionRemoved': {
        const present = event.type === 'CommentReactionAdded';
        const { replyId, emoji, user } = event.data;
        if (replyId === null) return { ...state, reactions: withUser(state.reactions, emoji, user, present) };
        const reply = state.replies.get(replyId);
        return reply
          ? {
              ...state,
              replies: new Map(state.replies).set(replyId, { ...reply, reactions: withUser(reply.reactions, emoji, user, present) }),
            }
          : state;
      }
    }
  },
  decide: (command, state) => {
    const id = command.commentId;
    if (command.kind === 'PostComment') {
      if (state.posted) return [];
      if (command.access.spaceDeleted) return DomainError.conflict(`space ${command.scope.spaceId} is deleted: restore it first`);
      if (!command.access.comment)
        return DomainError.forbidden(`you may not comment in space ${command.scope.spaceId}: it needs the comment role`);
      return [
        {
          type: 'CommentPosted',
          data: {
            commentId: id,
            ...command.scope,
            target: command.target,
            body: command.body,
            postedBy: command.by,
            postedAt: command.now,
          },
        },
      ];
    }
    if (!state.posted || state.deleted) return DomainError.notFound(`no comment ${id}`);
    const refused = refuseWrite(id, command.access);
    if (refused) return refused;
    const about: About = {
      commentId: id,
      spaceId: state.posted.spaceId,
      organizationId: state.posted.organizationId,
      changeRequestId: state.posted.changeRequestId,
    };
    switch (command.kind) {
      case 'UpdateComment': {
        const events: CommentEvent[] = [];
        if (command.changes.body !== undefined) {
          if (command.by !== state.posted.author) return DomainError.forbidden(`only the author edits comment ${id}`);
          events.push({
            type: 'CommentEdited',
            data: { ...about, body: command.changes.body, editedBy: command.by, editedAt: command.now },
          });
        }
        const rest = reactionsAndStatus(state, about, command, command.changes, null, state.reactions, true);
        return rest instanceof DomainError ? rest : [...events, ...rest];
      }
      case 'DeleteComment':
        if (command.by !== state.posted.author && !command.access.admin)
          return DomainError.forbidden(`only the author or a space admin deletes comment ${id}`);
        return [{ type: 'CommentDeleted', data: { ...about, deletedBy: command.by, deletedAt: command.now } }];
      case 'PostReply': {
        if (state.replies.has(command.replyId)) return [];
        if (!command.access.comment) return DomainError.forbidden(`you may not reply to comment ${id}: it needs the comment role`);
        const posted: CommentEvent = {
          type: 'CommentReplyPosted',
          data: { ...about, replyId: command.replyId, body: command.body, postedBy: command.by, postedAt: command.now },
        };
        // A reply to a resolved thread reopens it.
        return state.status === 'resolved'
          ? [posted, { type: 'CommentReopened', data: { ...about, reopenedBy: command.by, reopenedAt: command.now } }]
          : [posted];
      }
      case 'UpdateReply': {
        const reply = state.replies.get(command.replyId);
        if (!reply || reply.deleted) return DomainError.notFound(`no reply ${command.replyId} to comment ${id}`);
        const events: CommentEvent[] = [];
        if (command.changes.body !== undefined) {
          if (command.by !== reply.author) return DomainError.forbidden(`only the author edits reply ${command.replyId}`);
          events.push({
            type: 'CommentReplyEdited',
            data: { ...about, replyId: command.replyId, body: command.changes.body, editedBy: command.by, editedAt: command.now },
          });
        }
        const rest = reactionsAndStatus(state, about, command, command.changes, command.replyId, reply.reactions, command.mayResolve);
        return rest instanceof DomainError ? rest : [...events, ...rest];
      }
      case 'DeleteReply': {
        const reply = state.replies.get(command.replyId);
        if (!reply || reply.deleted) return DomainError.notFound(`no reply ${command.replyId} to comment ${id}`);
        if (command.by !== reply.author && !command.access.admin)
          return DomainError.forbidden(`only the author or a space admin deletes reply ${command.replyId}`);
        return [
          { type: 'CommentReplyDeleted', data: { ...about, replyId: command.replyId, deletedBy: command.by, deletedAt: command.now } },
        ];
      }
    }
  },
};
