import { Module } from '@nestjs/common';
import { OrganizationModule } from '../../organizations/src';
import { CollectionCommands } from './collection.commands';
import { CollectionController } from './collection.controller';
import { SpaceAccess, SpacePresenter } from './space.access';
import { SpaceCommands } from './space.commands';
import { SpaceController } from './space.controller';
import { SpacePurgeJob, SpacePurgeScheduler } from './space.purge';
import { SpaceQueries } from './space.queries';
import { MemberSpaces } from './member-spaces';
import { SpaceCounters } from './space-counters';
import { TeamModule } from '../../teams/src';

/**
 * The spaces and collections context: needs OrganizationMembership (organizations) and TeamDirectory
 * (teams: memberships and live teams, for team access), which the app provides globally.
 */
@Module({
  imports: [OrganizationModule, TeamModule],
  controllers: [SpaceController, CollectionController],
  providers: [SpaceAccess, SpacePresenter, SpaceCounters, SpaceCommands, CollectionCommands, SpaceQueries, SpacePurgeJob, SpacePurgeScheduler, MemberSpaces],
  exports: [SpaceAccess, SpaceQueries, SpacePurgeJob, MemberSpaces],
})
export class SpacesModule {}
