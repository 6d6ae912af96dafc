import { Module } from '@nestjs/common';
import { changeRequestCommandHandlers } from './changerequest.commands';
import { ChangeRequestController, OrganizationChangeRequestController } from './changerequest.controller';
import { ChangeRequestDescriptions } from './changerequest.descriptions';
import { ChangeRequestsForComments, ChangeRequestsForContent, ChangeRequestsForSpaces } from './changerequests.provides';
import { ChangeRequestPresenter } from './changerequest.presenter';
import { changeRequestQueryHandlers } from './changerequest.queries';

/**
 * The change-requests context: lifecycle, reviews, merges and updates. What it needs of spaces,
 * identity and content comes through its ports; it exports ChangeRequestsForSpaces (the Space
 * object's counters) and ChangeRequestsForContent (a request's line, for content's reads and writes).
 */
@Module({
  controllers: [ChangeRequestController, OrganizationChangeRequestController],
  providers: [
    ChangeRequestDescriptions,
    ChangeRequestPresenter,
    ...changeRequestCommandHandlers,
    ...changeRequestQueryHandlers,
    ChangeRequestsForSpaces,
    ChangeRequestsForContent,
    ChangeRequestsForComments,
  ],
  exports: [ChangeRequestsForSpaces, ChangeRequestsForContent, ChangeRequestsForComments],
})
export class ChangeRequestsModule {}
