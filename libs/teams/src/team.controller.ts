import { Body, Controller, Delete, Get, Headers, HttpCode, Patch, Put, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse } from '@nestjs/swagger';
import { etagHeader, listOf, ref } from '#platform/platform.schemas';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, type Caller } from '#platform/http/auth';
import { etagOf, parseIfMatch } from '#platform/http/etag';
import { PathId } from '#platform/http/id-param';
import { ListQuery } from '#platform/http/list';
import { CreateTeam, DeleteTeam, RemoveTeamMember, RenameTeam, SetTeamMember, UpdateTeamMembers } from './team.commands';
import { CreateTeamBody, MemberTeamsQuery, RenameTeamBody, SetTeamMemberBody, TeamListQuery, UpdateTeamMembersBody } from './team.dto';
import { GetTeam, ListMemberTeams, ListTeamMembers, ListTeams } from './team.queries';
import { Valid } from '#platform/http/validation';

/**
 * Teams: `/v1/orgs/{organizationId}/teams…` and `/v1/orgs/{organizationId}/members/{userId}/teams`.
 * Writes to a team accept `If-Match` with the team's ETag (its stream revision): 412 when stale.
 */
@Controller('v1/orgs/:organizationId')
export class TeamController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get('teams')
  @ApiOkResponse({ description: 'OK', schema: listOf('Team') })
  list(
    @PathId('organizationId', 'organization') organizationId: string,
    @Query(Valid) query: TeamListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(
      new ListTeams(organizationId, caller, { page: query.page, limit: query.limit, owner: query.owner, title: query.title }),
    );
  }

  /** `PUT /teams` creates a team → 201: members with role create and above; the creator becomes its owner. */
  @Put('teams')
  @ApiCreatedResponse({ description: 'created', schema: ref('Team'), headers: etagHeader })
  @HttpCode(201)
  async create(
    @PathId('organizationId', 'organization') organizationId: string,
    @Body(Valid) body: CreateTeamBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const teamId = await this.commandBus.execute(
      new CreateTeam(organizationId, { title: body.title, members: body.members ?? [] }, caller),
    );
    return this.read(organizationId, teamId, caller, reply);
  }

  @Get('teams/:teamId')
  @ApiOkResponse({ description: 'OK', schema: ref('Team'), headers: etagHeader })
  get(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('teamId', 'team') teamId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.read(organizationId, teamId, caller, reply);
  }

  @Patch('teams/:teamId')
  @ApiOkResponse({ description: 'OK', schema: ref('Team'), headers: etagHeader })
  async rename(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('teamId', 'team') teamId: string,
    @Body(Valid) body: RenameTeamBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(new RenameTeam(organizationId, teamId, body.title, caller, parseIfMatch(ifMatch)));
    return this.read(organizationId, teamId, caller, reply);
  }

  @Delete('teams/:teamId')
  @ApiNoContentResponse({ description: 'done' })
  @HttpCode(204)
  async delete(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('teamId', 'team') teamId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new DeleteTeam(organizationId, teamId, caller, parseIfMatch(ifMatch)));
  }

  @Get('teams/:teamId/members')
  @ApiOkResponse({ description: 'OK', schema: listOf('TeamMembership') })
  members(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('teamId', 'team') teamId: string,
    @Query(Valid) query: ListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListTeamMembers(organizationId, teamId, caller, { page: query.page, limit: query.limit }));
  }

  /** Bulk update → 204; a user in both `add` and `remove` is removed. */
  @Put('teams/:teamId/members')
  @ApiNoContentResponse({ description: 'done' })
  @HttpCode(204)
  async updateMembers(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('teamId', 'team') teamId: string,
    @Body(Valid) body: UpdateTeamMembersBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    const update = { add: body.add, remove: body.remove, memberships: body.memberships };
    await this.commandBus.execute(new UpdateTeamMembers(organizationId, teamId, update, caller, parseIfMatch(ifMatch)));
  }

  /** Adds the member (as `member` unless `role` says otherwise) or changes their role → 204. */
  @Put('teams/:teamId/members/:userId')
  @ApiNoContentResponse({ description: 'done' })
  @HttpCode(204)
  async setMember(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('teamId', 'team') teamId: string,
    @PathId('userId', 'member') userId: string,
    @Body(Valid) body: SetTeamMemberBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new SetTeamMember(organizationId, teamId, userId, body.role, caller, parseIfMatch(ifMatch)));
  }

  @Delete('teams/:teamId/members/:userId')
  @ApiNoContentResponse({ description: 'done' })
  @HttpCode(204)
  async removeMember(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('teamId', 'team') teamId: string,
    @PathId('userId', 'member') userId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new RemoveTeamMember(organizationId, teamId, userId, caller, parseIfMatch(ifMatch)));
  }

  @Get('members/:userId/teams')
  @ApiOkResponse({ description: 'OK', schema: listOf('MemberTeam') })
  memberTeams(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('userId', 'member') userId: string,
    @Query(Valid) query: MemberTeamsQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(
      new ListMemberTeams(organizationId, userId, caller, { page: query.page, limit: query.limit, title: query.title }),
    );
  }

  private async read(organizationId: string, teamId: string, caller: Caller, reply: FastifyReply) {
    const { team, revision } = await this.queryBus.execute(new GetTeam(organizationId, teamId, caller));
    void reply.header('etag', etagOf(revision));
    return team;
  }
}
