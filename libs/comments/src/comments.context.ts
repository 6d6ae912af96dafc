import type { ContextManifest } from '#runtime/context';
import { COMMENT_CHANGE_REQUESTS, COMMENT_CONTENT, COMMENT_MEMBERS, COMMENT_SPACES, COMMENT_USERS } from './comments.needs';
import { CommentsForChangeRequests, CommentsForSpaces } from './comments.provides';
import { commentAuditCatalog } from './comment.audit';
import { commentProjection } from './comment.projections';
import { commentSchemas } from './comments.schemas';
import { CommentsModule } from './comments.module';

/** Comments and replies on spaces and change requests: threads, resolution, reactions, mentions, counters, commenters. */
export const commentsContext: ContextManifest = {
  name: 'comments',
  module: CommentsModule,
  projections: [commentProjection],
  audit: commentAuditCatalog,
  needs: [COMMENT_SPACES, COMMENT_CHANGE_REQUESTS, COMMENT_CONTENT, COMMENT_USERS, COMMENT_MEMBERS],
  provides: [CommentsForSpaces, CommentsForChangeRequests],
  schemas: commentSchemas,
};
