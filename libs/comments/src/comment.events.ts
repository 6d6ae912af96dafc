import { canonicalEmoji } from './comment.reactions';

/**
 * Comments. One stream per thread, `comment-<commentId>`: the comment, its replies and their
 * reactions, so that the thread's rules (a reply reopens a resolved thread, deleting the comment
 * removes its replies) are decided against one consistent state. A body's document lives in the
 * blob store (docs/architecture.md: large content never in events): events carry its hash and its
 * markdown, rendered once when written (`BodyRef`).
 */
export const COMMENT_STATUSES = ['open', 'resolved'] as const;
export type CommentStatus = (typeof COMMENT_STATUSES)[number];

/** A comment body's document: the JSON document (docs/content.md, Documents). */
export type CommentBody = { object: 'document'; [member: string]: unknown };

/**
 * A body as events and read models carry it. Written now: `blob`, the hash of the body in the blob
 * store (`commentBodyBlob`), and its markdown rendered once when written, which reads answer as
 * is. Events stored before bodies moved to the blob store carry the document itself (`document`),
 * with its markdown when they kept it (`markdown`; the oldest did not): `upcastCommentEvent` reads
 * them into this shape.
 */
export type BodyRef = { blob: string; markdown: string } | { document: CommentBody; markdown?: string };

/** Where a comment sits: a space's content, or a change request's. */
export interface CommentScope {
  spaceId: string;
  organizationId: string;
  /** Null for comments on the space's own content. */
  changeRequestId: string | null;
}

/** A cell of a table block a comment is attached to, as the platform names it (kept and shown, not checked). */
export interface TableCell {
  record: string;
  definition: string;
}

export interface CommentTarget {
  /** Null for a comment on the space (or the change request) as a whole. */
  pageId: string | null;
  /** The commented block: its key, its text when posted, and a fingerprint of its content then. */
  node: { id: string; preview: string; fingerprint: string } | null;
  tableCell?: TableCell;
  /** The revision the comment was posted on. */
  revision: string;
}

interface About {
  commentId: string;
  spaceId: string;
  organizationId: string;
  changeRequestId: string | null;
}

export type CommentEvent =
  | { type: 'CommentPosted'; data: About & { target: CommentTarget; body: BodyRef; postedBy: string; postedAt: string } }
  | { type: 'CommentEdited'; data: About & { body: BodyRef; editedBy: string; editedAt: string } }
  | { type: 'CommentResolved'; data: About & { resolvedBy: string; resolvedAt: string } }
  | { type: 'CommentReopened'; data: About & { reopenedBy: string; reopenedAt: string } }
  | { type: 'CommentDeleted'; data: About & { deletedBy: string; deletedAt: string } }
  | { type: 'CommentReplyPosted'; data: About & { replyId: string; body: BodyRef; postedBy: string; postedAt: string } }
  | { type: 'CommentReplyEdited'; data: About & { replyId: string; body: BodyRef; editedBy: string; editedAt: string } }
  | { type: 'CommentReplyDeleted'; data: About & { replyId: string; deletedBy: string; deletedAt: string } }
  /** A reaction on the comment (`replyId` null) or on one of its replies; one per user per emoji (its canonical form, comment.reactions.ts). */
  | { type: 'CommentReactionAdded'; data: About & { replyId: string | null; emoji: string; user: string; reactedAt: string } }
  | { type: 'CommentReactionRemoved'; data: About & { replyId: string | null; emoji: string; user: string; removedAt: string } };

const BODY_EVENTS: ReadonlySet<string> = new Set(['CommentPosted', 'CommentEdited', 'CommentReplyPosted', 'CommentReplyEdited']);

/**
 * An event of the log in today's shape (docs/architecture.md, Messages and streams: old shapes are
 * upgraded on read, never rewritten). Bodies stored inline (`body` the document, `bodyMarkdown`
 * beside it) become `{ document, markdown? }`; reactions stored before emoji had one canonical
 * form get it, so a reaction added then is the one a removal names now. Events already in today's
 * shape come back as they are.
 */
export function upcastCommentEvent<E extends { type: string; data: unknown }>(event: E): E {
  if (BODY_EVENTS.has(event.type)) {
    const data = event.data as { body: unknown; bodyMarkdown?: unknown };
    const body = data.body as { object?: unknown } | null;
    if (body === null || typeof body !== 'object' || body.object !== 'document') return event;
    const { bodyMarkdown, ...rest } = data;
    const upcast: BodyRef =
      typeof bodyMarkdown === 'string' ? { document: body as CommentBody, markdown: bodyMarkdown } : { document: body as CommentBody };
    return { ...event, data: { ...rest, body: upcast } };
  }
  if (event.type === 'CommentReactionAdded' || event.type === 'CommentReactionRemoved') {
    const data = event.data as { emoji: string };
    const canonical = canonicalEmoji(data.emoji);
    return canonical === null || canonical === data.emoji ? event : { ...event, data: { ...data, emoji: canonical } };
  }
  return event;
}
