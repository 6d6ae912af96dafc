import { Module } from '@nestjs/common';
import { collectionCommandHandlers } from './collection.commands';
import { CollectionController } from './collection.controller';
import { CountMemberSpacesHandler, ListMemberSpacesHandler } from './member-spaces';
import { RenumberSiblingsHandler } from './siblings';
import { SpaceAccess, SpacePresenter } from './space.access';
import { spaceCommandHandlers } from './space.commands';
import { SpaceController } from './space.controller';
import { PurgeSpaceHandler, SpacePurgeJob, SpacePurgeScheduler } from './space.purge';
import { spaceQueryHandlers } from './space.queries';
import { SpaceFactsReader } from './space-facts';
import {
  MemberSpaces,
  SpacesForChangeRequests,
  SpacesForComments,
  SpacesForContent,
  SpacesForIntegrations,
  SpacesForSites,
} from './spaces.provides';

/**
 * The spaces and collections context. What it needs of organizations (membership) and teams
 * (memberships and live teams, for the roles spaces grant to teams) comes through its own ports
 * (spaces.needs.ts), SPACE_ORGANIZATIONS and SPACE_TEAMS, bound at the composition root, so it imports no other
 * context's module. It exports MemberSpaces, which implements the organizations' MEMBER_SPACES port, and
 * SpacesForContent, SpacesForChangeRequests and SpacesForComments, which implement content's
 * CONTENT_SPACES, change requests' CHANGE_REQUEST_SPACES and comments' COMMENT_SPACES ports, and
 * SpacesForIntegrations and SpacesForSites (all in spaces.provides.ts).
 */
@Module({
  controllers: [SpaceController, CollectionController],
  providers: [
    SpaceAccess,
    SpacePresenter,
    SpaceFactsReader,
    ...spaceCommandHandlers,
    ...collectionCommandHandlers,
    RenumberSiblingsHandler,
    ...spaceQueryHandlers,
    CountMemberSpacesHandler,
    ListMemberSpacesHandler,
    PurgeSpaceHandler,
    SpacePurgeJob,
    SpacePurgeScheduler,
    MemberSpaces,
    SpacesForContent,
    SpacesForChangeRequests,
    SpacesForComments,
    SpacesForIntegrations,
    SpacesForSites,
  ],
  exports: [MemberSpaces, SpacesForContent, SpacesForChangeRequests, SpacesForComments, SpacesForIntegrations, SpacesForSites],
})
export class SpacesModule {}
