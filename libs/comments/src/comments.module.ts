import { Module } from '@nestjs/common';
import { CommentBodies } from './comment.bodies';
import { CommentCommands } from './comment.commands';
import { ChangeRequestCommentController, SpaceCommentController } from './comment.controller';
import { CommentCounts, CommentsForChangeRequests, CommentsForSpaces } from './comment.ports';
import { CommentQueries } from './comment.queries';

/**
 * The comments context: threads, replies and reactions on a space's content and on change
 * requests. What it needs of spaces, change requests, content, identity and organizations comes
 * through its ports; it exports the counters it gives spaces and change requests.
 */
@Module({
  controllers: [SpaceCommentController, ChangeRequestCommentController],
  providers: [CommentQueries, CommentCommands, CommentBodies, CommentCounts, CommentsForSpaces, CommentsForChangeRequests],
  exports: [CommentsForSpaces, CommentsForChangeRequests],
})
export class CommentsModule {}
