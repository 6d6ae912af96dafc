/**
 * Comments. One stream per thread, `comment-<commentId>`: the comment, its replies and their
 * reactions, so that the thread's rules (a reply reopens a resolved thread, deleting the comment
 * removes its replies) are decided against one consistent state. Bodies are documents (content's
 * converter), bounded by the body limit, so they travel in the events.
 */
export const COMMENT_STATUSES = ['open', 'resolved'] as const;
export type CommentStatus = (typeof COMMENT_STATUSES)[number];

/** A comment body as stored: the JSON document (docs/content.md, Documents). */
export type CommentBody = { object: 'document'; [member: string]: unknown };

/**
 * The body's markdown, rendered from `body` once when written (reads answer it as is). Optional:
 * events stored before it was kept lack it, and their bodies are rendered when read.
 */
type BodyMarkdown = { bodyMarkdown?: string };

/** Where a comment sits: a space's content, or a change request's. */
export interface CommentScope {
  spaceId: string;
  organizationId: string;
  /** Null for comments on the space's own content. */
  changeRequestId: string | null;
}

export interface CommentTarget {
  pageId: string;
  /** The commented block: its key, its text when posted, and a fingerprint of its content then. */
  node: { id: string; preview: string; fingerprint: string } | null;
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
  | { type: 'CommentPosted'; data: About & { target: CommentTarget; body: CommentBody; postedBy: string; postedAt: string } & BodyMarkdown }
  | { type: 'CommentEdited'; data: About & { body: CommentBody; editedBy: string; editedAt: string } & BodyMarkdown }
  | { type: 'CommentResolved'; data: About & { resolvedBy: string; resolvedAt: string } }
  | { type: 'CommentReopened'; data: About & { reopenedBy: string; reopenedAt: string } }
  | { type: 'CommentDeleted'; data: About & { deletedBy: string; deletedAt: string } }
  | { type: 'CommentReplyPosted'; data: About & { replyId: string; body: CommentBody; postedBy: string; postedAt: string } & BodyMarkdown }
  | { type: 'CommentReplyEdited'; data: About & { replyId: string; body: CommentBody; editedBy: string; editedAt: string } & BodyMarkdown }
  | { type: 'CommentReplyDeleted'; data: About & { replyId: string; deletedBy: string; deletedAt: string } }
  /** A reaction on the comment (`replyId` null) or on one of its replies; one per user per emoji. */
  | { type: 'CommentReactionAdded'; data: About & { replyId: string | null; emoji: string; user: string; reactedAt: string } }
  | { type: 'CommentReactionRemoved'; data: About & { replyId: string | null; emoji: string; user: string; removedAt: string } };
