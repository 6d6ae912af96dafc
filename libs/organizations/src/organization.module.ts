import { Module } from '@nestjs/common';
import { IdentityModule } from '../../identity/src/identity.module';
import { CreateOrganizationHandler, UpdateOrganizationHandler } from './organization.commands';
import { OrganizationController } from './organization.controller';
import {
  GetOrganizationHandler,
  GetUserProfileHandler,
  ListOrganizationsHandler,
  OrganizationMembership,
  OrganizationPresenter,
  OrganizationsByEmailDomainHandler,
} from './organization.queries';

@Module({
  imports: [IdentityModule],
  controllers: [OrganizationController],
  providers: [
    CreateOrganizationHandler,
    UpdateOrganizationHandler,
    GetOrganizationHandler,
    ListOrganizationsHandler,
    OrganizationsByEmailDomainHandler,
    GetUserProfileHandler,
    OrganizationMembership,
    OrganizationPresenter,
  ],
  exports: [OrganizationMembership, OrganizationPresenter],
})
export class OrganizationModule {}
