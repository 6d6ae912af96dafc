import { Module } from '@nestjs/common';
import { CommentBodies } from './comment.bodies';
import { commentCommandHandlers } from './comment.commands';
import { ChangeRequestCommentController, SpaceCommentController } from './comment.controller';
import { CommentPlaces } from './comment.places';
import { CommentsForChangeRequests, CommentsForSpaces } from './comments.provides';
import { CommentPresenter } from './comment.presenter';
import { commentQueryHandlers } from './comment.queries';

/**
 * The comments context: threads, replies and reactions on a space's content and on change
 * requests. What it needs of spaces, change requests, content, identity and organizations comes
 * through its ports; it exports the counters it gives spaces and change requests.
 */
@Module({
  controllers: [SpaceCommentController, ChangeRequestCommentController],
  providers: [
    CommentPlaces,
    CommentBodies,
    CommentPresenter,
    CommentsForSpaces,
    CommentsForChangeRequests,
    ...commentCommandHandlers,
    ...commentQueryHandlers,
  ],
  exports: [CommentsForSpaces, CommentsForChangeRequests],
})
export class CommentsModule {}
