import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import { CurrentCaller, type Caller } from '../../platform/src/http/auth';
import { PathId } from '../../platform/src/http/id-param';
import { listOf } from '../../platform/src/platform.schemas';
import { Valid } from '../../platform/src/http/validation';
import { SearchQuery } from './content.dto';
import { ContentQueries } from './content.queries';

/** Organization search: pages of the spaces the caller may read, grouped by space. */
@Controller('v1/orgs/:organizationId/search')
export class OrganizationSearchController {
  constructor(private readonly queries: ContentQueries) {}

  @Get()
  @ApiOkResponse({ description: 'OK', schema: listOf('SearchSpaceResult') })
  search(@PathId('organizationId', 'organization') organizationId: string, @Query(Valid) query: SearchQuery, @CurrentCaller() caller: Caller) {
    return this.queries.searchOrganization(organizationId, query.query, caller, query);
  }
}
