import { Module } from '@nestjs/common';
import { CollectionCommands } from './collection.commands';
import { CollectionController } from './collection.controller';
import { SpaceAccess, SpacePresenter } from './space.access';
import { SpaceCommands } from './space.commands';
import { SpaceController } from './space.controller';
import { SpacePurgeJob, SpacePurgeScheduler } from './space.purge';
import { SpaceQueries } from './space.queries';
import { MemberSpaces } from './member-spaces';
import { SpaceFactsReader } from './space-facts';
import { SpacesForChangeRequests, SpacesForComments, SpacesForContent, SpacesForIntegrations, SpacesForSites } from './space.ports';

/**
 * The spaces and collections context. What it needs of organizations (membership) and teams
 * (memberships and live teams, for the roles spaces grant to teams) comes through its own ports,
 * SPACE_ORGANIZATIONS and SPACE_TEAMS, bound at the composition root, so it imports no other
 * context's module. It exports MemberSpaces, which implements the organizations' MEMBER_SPACES port, and
 * SpacesForContent, SpacesForChangeRequests and SpacesForComments, which implement content's
 * CONTENT_SPACES, change requests' CHANGE_REQUEST_SPACES and comments' COMMENT_SPACES ports.
 */
@Module({
  controllers: [SpaceController, CollectionController],
  providers: [SpaceAccess, SpacePresenter, SpaceFactsReader, SpaceCommands, CollectionCommands, SpaceQueries, SpacePurgeJob, SpacePurgeScheduler, MemberSpaces, SpacesForContent, SpacesForChangeRequests, SpacesForComments, SpacesForIntegrations, SpacesForSites],
  exports: [MemberSpaces, SpacesForContent, SpacesForChangeRequests, SpacesForComments, SpacesForIntegrations, SpacesForSites],
})
export class SpacesModule {}
