import { auditCatalog } from '#platform/audit-catalog';
import type { CommentEvent } from './comment.events';

const target = (data: { commentId: string }) => ({ type: 'comment', id: data.commentId });
const where = (data: { spaceId: string; changeRequestId: string | null }) => ({
  space: data.spaceId,
  ...(data.changeRequestId !== null ? { changeRequest: data.changeRequestId } : {}),
});

/** Every comment event is one audit entry on the thread, in the space's organization. */
export const commentAuditCatalog = auditCatalog<CommentEvent>({
  CommentPosted: (data) => ({
    action: 'comment.posted',
    organizationId: data.organizationId,
    target: target(data),
    details: { ...where(data), ...(data.target.pageId !== null ? { page: data.target.pageId } : {}) },
  }),
  CommentEdited: (data) => ({ action: 'comment.edited', organizationId: data.organizationId, target: target(data), details: where(data) }),
  CommentResolved: (data) => ({
    action: 'comment.resolved',
    organizationId: data.organizationId,
    target: target(data),
    details: where(data),
  }),
  CommentReopened: (data) => ({
    action: 'comment.reopened',
    organizationId: data.organizationId,
    target: target(data),
    details: where(data),
  }),
  CommentDeleted: (data) => ({
    action: 'comment.deleted',
    organizationId: data.organizationId,
    target: target(data),
    details: where(data),
  }),
  CommentReplyPosted: (data) => ({
    action: 'comment.reply_posted',
    organizationId: data.organizationId,
    target: target(data),
    details: { ...where(data), reply: data.replyId },
  }),
  CommentReplyEdited: (data) => ({
    action: 'comment.reply_edited',
    organizationId: data.organizationId,
    target: target(data),
    details: { ...where(data), reply: data.replyId },
  }),
  CommentReplyDeleted: (data) => ({
    action: 'comment.reply_deleted',
    organizationId: data.organizationId,
    target: target(data),
    details: { ...where(data), reply: data.replyId },
  }),
  CommentReactionAdded: (data) => ({
    action: 'comment.reaction_added',
    organizationId: data.organizationId,
    target: target(data),
    details: { ...where(data), emoji: data.emoji, ...(data.replyId !== null ? { reply: data.replyId } : {}) },
  }),
  CommentReactionRemoved: (data) => ({
    action: 'comment.reaction_removed',
    organizationId: data.organizationId,
    target: target(data),
    details: { ...where(data), emoji: data.emoji, ...(data.replyId !== null ? { reply: data.replyId } : {}) },
  }),
});
