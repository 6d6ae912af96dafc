import { Module } from '@nestjs/common';
import { changeRequestCommandHandlers } from './changerequest.commands';
import { changeRequestContentCommandHandlers } from './changerequest.content.commands';
import { ChangeRequestContentController } from './changerequest.content.controller';
import { changeRequestContentQueryHandlers } from './changerequest.content.queries';
import { ChangeRequestController, OrganizationChangeRequestController } from './changerequest.controller';
import { ChangeRequestDescriptions } from './changerequest.descriptions';
import { ChangeRequestLines } from './changerequest.lines';
import { ChangeRequestsForComments, ChangeRequestsForContent, ChangeRequestsForSpaces } from './changerequests.provides';
import { ChangeRequestPresenter } from './changerequest.presenter';
import { changeRequestQueryHandlers } from './changerequest.queries';

/**
 * The change-requests context: lifecycle, reviews, merges and updates, and the routes of a
 * request's content (read and written through content's CHANGE_REQUEST_CONTENT port). What it needs
 * of spaces, identity and content comes through its ports; it exports ChangeRequestsForSpaces (the
 * Space object's counters) and ChangeRequestsForContent (the request a merge revision came from).
 */
@Module({
  controllers: [ChangeRequestController, OrganizationChangeRequestController, ChangeRequestContentController],
  providers: [
    ChangeRequestDescriptions,
    ChangeRequestPresenter,
    ChangeRequestLines,
    ...changeRequestCommandHandlers,
    ...changeRequestQueryHandlers,
    ...changeRequestContentCommandHandlers,
    ...changeRequestContentQueryHandlers,
    ChangeRequestsForSpaces,
    ChangeRequestsForContent,
    ChangeRequestsForComments,
  ],
  exports: [ChangeRequestsForSpaces, ChangeRequestsForContent, ChangeRequestsForComments],
})
export class ChangeRequestsModule {}
