import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse } from '@nestjs/swagger';
import { CurrentCaller, type Caller } from '#platform/http/auth';
import { PathId } from '#platform/http/id-param';
import { listOf } from '#platform/platform.schemas';
import { Valid } from '#platform/http/validation';
import { SearchQuery } from './content.dto';
import { SearchOrganization } from './search.queries';

/** Organization search: pages of the spaces the caller may read, grouped by space. */
@Controller('v1/orgs/:organizationId/search')
export class OrganizationSearchController {
  constructor(private readonly queryBus: QueryBus) {}

  @Get()
  @ApiOkResponse({ description: 'OK', schema: listOf('SearchSpaceResult') })
  search(
    @PathId('organizationId', 'organization') organizationId: string,
    @Query(Valid) query: SearchQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new SearchOrganization(organizationId, query.query, caller, query));
  }
}
