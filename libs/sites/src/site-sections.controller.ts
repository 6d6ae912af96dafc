import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Body, Controller, Delete, Get, Headers, HttpCode, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiResetContentResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, type Caller } from '#platform/http/auth';
import { parseIfMatch, tagged } from '#platform/http/etag';
import { PathId } from '#platform/http/id-param';
import { ListQuery } from '#platform/http/list';
import { Valid } from '#platform/http/validation';
import { etagHeader, listOf, ref } from '#platform/platform.schemas';
import {
  AddSection,
  AddSectionGroup,
  GroupSection,
  MoveSection,
  MoveSectionGroup,
  RemoveSection,
  RemoveSectionGroup,
  SortSiteStructure,
  UngroupSection,
  UpdateSection,
  UpdateSectionGroup,
} from './site-sections.commands';
import {
  AddSectionBody,
  AddSectionGroupBody,
  GroupSectionBody,
  MoveSectionBody,
  MoveSectionGroupBody,
  SectionListQuery,
  SortStructureBody,
  UpdateSectionBody,
  UpdateSectionGroupBody,
} from './site.dto';
import { GetSiteSection, GetSiteSectionGroup, GetSiteStructure, ListSiteSectionGroups, ListSiteSections } from './site-sections.queries';
import { idPosition, positionOf, SiteRoutes } from './site.routes';

/**
 * A site's sections (the interface's "Site sections" table), their groups, and the structure that orders
 * groups, sections and site spaces at once: `/sites/{siteId}/sections…`, `/section-groups…` and
 * `/structure…`, versioned by the site's stream.
 */
@Controller('v1/orgs/:organizationId/sites')
@SiteRoutes()
export class SiteSectionsController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get(':siteId/sections')
  @ApiOkResponse({ description: 'OK', schema: listOf('SiteSection') })
  sections(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Query(Valid) query: SectionListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListSiteSections(organizationId, siteId, caller, query));
  }

  @Post(':siteId/sections')
  @ApiCreatedResponse({
    description: 'the new section, with the space as its first site space',
    schema: ref('SiteSection'),
    headers: etagHeader,
  })
  async addSection(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Body(Valid) body: AddSectionBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const sectionId = await this.commandBus.execute(new AddSection(organizationId, siteId, body, caller));
    return tagged(reply, await this.queryBus.execute(new GetSiteSection(organizationId, siteId, sectionId, caller)));
  }

  @Patch(':siteId/sections/:siteSectionId')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteSection'), headers: etagHeader })
  async updateSection(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @PathId('siteSectionId', 'section') sectionId: string,
    @Body(Valid) body: UpdateSectionBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { defaultSiteSpace, siteSectionGroupId, ...members } = body;
    const changes = Object.fromEntries(Object.entries(members).filter(([, value]) => value !== undefined));
    await this.commandBus.execute(
      new UpdateSection(
        organizationId,
        siteId,
        sectionId,
        changes,
        {
          ...(defaultSiteSpace !== undefined ? { defaultSiteSpace } : {}),
          ...(siteSectionGroupId !== undefined ? { group: siteSectionGroupId } : {}),
        },
        caller,
        parseIfMatch(ifMatch),
      ),
    );
    return tagged(reply, await this.queryBus.execute(new GetSiteSection(organizationId, siteId, sectionId, caller)));
  }

  @Delete(':siteId/sections/:siteSectionId')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'removed, with its site spaces' })
  async removeSection(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @PathId('siteSectionId', 'section') sectionId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new RemoveSection(organizationId, siteId, sectionId, caller, parseIfMatch(ifMatch)));
  }

  @Post(':siteId/sections/:siteSectionId/move')
  @HttpCode(200)
  @ApiOkResponse({ description: 'OK', schema: ref('SiteSection'), headers: etagHeader })
  async moveSection(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @PathId('siteSectionId', 'section') sectionId: string,
    @Body(Valid) body: MoveSectionBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(
      new MoveSection(
        organizationId,
        siteId,
        sectionId,
        idPosition(body.position, (anchor) => anchor.siteSection),
        caller,
        parseIfMatch(ifMatch),
      ),
    );
    return tagged(reply, await this.queryBus.execute(new GetSiteSection(organizationId, siteId, sectionId, caller)));
  }

  // ---- section groups -----------------------------------------------------------------------------

  @Get(':siteId/section-groups')
  @ApiOkResponse({ description: 'OK', schema: listOf('SiteSectionGroup') })
  sectionGroups(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Query(Valid) query: ListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListSiteSectionGroups(organizationId, siteId, caller, query));
  }

  @Post(':siteId/section-groups')
  @ApiCreatedResponse({ description: 'created', schema: ref('SiteSectionGroup'), headers: etagHeader })
  async addSectionGroup(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Body(Valid) body: AddSectionGroupBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const groupId = await this.commandBus.execute(new AddSectionGroup(organizationId, siteId, body, caller));
    return tagged(reply, await this.queryBus.execute(new GetSiteSectionGroup(organizationId, siteId, groupId, caller)));
  }

  @Patch(':siteId/section-groups/:siteSectionGroupId')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteSectionGroup'), headers: etagHeader })
  async updateSectionGroup(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @PathId('siteSectionGroupId', 'section group') groupId: string,
    @Body(Valid) body: UpdateSectionGroupBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { parentSectionGroupId, ...members } = body;
    await this.commandBus.execute(
      new UpdateSectionGroup(
        organizationId,
        siteId,
        groupId,
        Object.fromEntries(Object.entries(members).filter(([, value]) => value !== undefined)),
        parentSectionGroupId,
        caller,
        parseIfMatch(ifMatch),
      ),
    );
    return tagged(reply, await this.queryBus.execute(new GetSiteSectionGroup(organizationId, siteId, groupId, caller)));
  }

  @Delete(':siteId/section-groups/:siteSectionGroupId')
  @HttpCode(205)
  @ApiResetContentResponse({ description: 'deleted; its sections stay, ungrouped' })
  async removeSectionGroup(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @PathId('siteSectionGroupId', 'section group') groupId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new RemoveSectionGroup(organizationId, siteId, groupId, caller, parseIfMatch(ifMatch)));
  }

  @Post(':siteId/section-groups/:siteSectionGroupId/sections')
  @ApiCreatedResponse({ description: 'the group with the section', schema: ref('SiteSectionGroup'), headers: etagHeader })
  async groupSection(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @PathId('siteSectionGroupId', 'section group') groupId: string,
    @Body(Valid) body: GroupSectionBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(new GroupSection(organizationId, siteId, groupId, body.sectionId, caller, parseIfMatch(ifMatch)));
    return tagged(reply, await this.queryBus.execute(new GetSiteSectionGroup(organizationId, siteId, groupId, caller)));
  }

  @Delete(':siteId/section-groups/:siteSectionGroupId/sections/:siteSectionId')
  @HttpCode(205)
  @ApiResetContentResponse({ description: 'the section left the group' })
  async ungroupSection(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @PathId('siteSectionGroupId', 'section group') groupId: string,
    @PathId('siteSectionId', 'section') sectionId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new UngroupSection(organizationId, siteId, groupId, sectionId, caller, parseIfMatch(ifMatch)));
  }

  /** Deprecated in the interface in favour of sorting the whole structure: the group's sections move as one block. */
  @Post(':siteId/section-groups/:siteSectionGroupId/move')
  @HttpCode(200)
  @ApiOkResponse({ description: 'OK', schema: ref('SiteSectionGroup'), headers: etagHeader })
  async moveSectionGroup(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @PathId('siteSectionGroupId', 'section group') groupId: string,
    @Body(Valid) body: MoveSectionGroupBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const position = positionOf(body.position);
    const anchor = (ref: { type: 'site-section' | 'site-section-group'; id: string }) => ({ type: ref.type, id: ref.id });
    await this.commandBus.execute(
      new MoveSectionGroup(
        organizationId,
        siteId,
        groupId,
        position === null ? null : 'before' in position ? { before: anchor(position.before) } : { after: anchor(position.after) },
        caller,
        parseIfMatch(ifMatch),
      ),
    );
    return tagged(reply, await this.queryBus.execute(new GetSiteSectionGroup(organizationId, siteId, groupId, caller)));
  }

  // ---- structure (extension, at the platform's path) -------------------------------------------------

  @Get(':siteId/structure')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteStructure'), headers: etagHeader })
  async structure(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return tagged(reply, await this.queryBus.execute(new GetSiteStructure(organizationId, siteId, caller)));
  }

  /** `sortSiteStructure`: the order of groups, sections and site spaces in one call; the deprecated moves do the same, one item at a time. */
  @Patch(':siteId/structure/sort')
  @ApiOkResponse({ description: 'the structure in its new order', schema: ref('SiteStructure'), headers: etagHeader })
  async sortStructure(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Body(Valid) body: SortStructureBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const sections: Array<{ id: string; group: string | null }> = [];
    const siteSpaces: Record<string, string[]> = {};
    for (const entry of body.structure ?? []) {
      const members =
        entry.type === 'group' ? (entry.sections ?? []).map((section) => ({ ...section, group: entry.id })) : [{ ...entry, group: null }];
      for (const section of members) {
        sections.push({ id: section.id, group: section.group });
        if (section.siteSpaces !== undefined) siteSpaces[section.id] = section.siteSpaces;
      }
    }
    if (body.siteSpaces !== undefined) siteSpaces[''] = body.siteSpaces;
    await this.commandBus.execute(new SortSiteStructure(organizationId, siteId, { sections, siteSpaces }, caller, parseIfMatch(ifMatch)));
    return tagged(reply, await this.queryBus.execute(new GetSiteStructure(organizationId, siteId, caller)));
  }
}
