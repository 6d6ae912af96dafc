import { Module } from '@nestjs/common';
import { OrganizationModule } from '../../organizations/src/organization.module';
import { CollectionCommands } from './collection.commands';
import { CollectionController } from './collection.controller';
import { SpaceAccess, SpacePresenter } from './space.access';
import { SpaceCommands } from './space.commands';
import { SpaceController } from './space.controller';
import { SpacePurgeJob, SpacePurgeScheduler } from './space.purge';
import { SpaceQueries } from './space.queries';

/**
 * The spaces and collections context: needs OrganizationMembership (organizations) and TeamDirectory
 * (teams: memberships and live teams, for team access), which the app provides globally.
 */
@Module({
  imports: [OrganizationModule],
  controllers: [SpaceController, CollectionController],
  providers: [SpaceAccess, SpacePresenter, SpaceCommands, CollectionCommands, SpaceQueries, SpacePurgeJob, SpacePurgeScheduler],
  exports: [SpaceAccess, SpaceQueries, SpacePurgeJob],
})
export class SpacesModule {}
