import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Body, Controller, Delete, Get, Header, Headers, HttpCode, Patch, Post, Put, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiResetContentResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { DomainError } from '#platform/errors';
import { CurrentCaller, OptionalCaller, Public, type Caller } from '#platform/http/auth';
import { parseIfMatch, tagged } from '#platform/http/etag';
import { PathId } from '#platform/http/id-param';
import { ListQuery } from '#platform/http/list';
import { Valid } from '#platform/http/validation';
import { etagHeader, listOf, ref } from '#platform/platform.schemas';
import {
  ConfigureVisitorAuth,
  CreateSite,
  DeleteSite,
  PublishSite,
  RotateVisitorKey,
  SetAdaptiveSchema,
  UpdateSite,
} from './site.commands';
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
import { CreateSiteShareLink, DeleteSiteShareLink, UpdateSiteShareLink } from './site-share-links.commands';
import { AddSiteSpace, MoveSiteSpace, RemoveSiteSpace, UpdateSiteSpace } from './site-spaces.commands';
import type { Position } from './site.decider';
import {
  CreateShareLinkBody,
  PublishedSiteQuery,
  SectionListQuery,
  UpdateShareLinkBody,
  VisitorAuthBody,
  SortStructureBody,
  AdaptiveSchemaBody,
  AddSectionBody,
  AddSectionGroupBody,
  AddSiteSpaceBody,
  GroupSectionBody,
  MoveSectionGroupBody,
  UpdateSectionGroupBody,
  CreateSiteBody,
  MoveSectionBody,
  MoveSiteSpaceBody,
  SiteListQuery,
  SiteSpaceListQuery,
  UpdateSectionBody,
  UpdateSiteBody,
  UpdateSiteSpaceBody,
} from './site.dto';
import {
  GetPublishedSite,
  GetSite,
  GetSiteAdaptiveSchema,
  GetSiteVisitorAuth,
  ListSites,
  ListSiteTemplateConditions,
} from './site.queries';
import { GetSiteSection, GetSiteSectionGroup, GetSiteStructure, ListSiteSectionGroups, ListSiteSections } from './site-sections.queries';
import { GetSiteShareLink, ListSiteShareLinks } from './site-share-links.queries';
import { GetSiteSpace, ListSiteSpaces } from './site-spaces.queries';

/** A move's position: before or after a sibling, or (neither given, or no position at all) the end. */
function positionOf<T>(position: { before?: T; after?: T } | undefined): { before: T } | { after: T } | null {
  if (position?.before && position.after) throw DomainError.invalid('position takes before or after, not both');
  return position?.before ? { before: position.before } : position?.after ? { after: position.after } : null;
}

/** A position naming sections or site spaces as the decider reads it: their ids. */
function idPosition<T>(position: { before?: T; after?: T } | undefined, idOf: (anchor: T) => string): Position {
  const placed = positionOf(position);
  return placed === null ? null : 'before' in placed ? { before: idOf(placed.before) } : { after: idOf(placed.after) };
}

/**
 * Docs sites: `/v1/orgs/{organizationId}/sites…` (the interface's "Docs sites", "Site sections" and
 * "Site spaces" tables), with publishing as an extension.
 * Every part of a site is versioned by the site's stream: single objects answer its `ETag`, and
 * every write but a creation accepts it as `If-Match` (412 when stale).
 */
@Controller('v1/orgs/:organizationId/sites')
export class SiteController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get()
  @ApiOkResponse({ description: 'OK', schema: listOf('Site') })
  list(
    @PathId('organizationId', 'organization') organizationId: string,
    @Query(Valid) query: SiteListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListSites(organizationId, caller, query));
  }

  @Post()
  @ApiCreatedResponse({ description: 'created', schema: ref('Site'), headers: etagHeader })
  async create(
    @PathId('organizationId', 'organization') organizationId: string,
    @Body(Valid) body: CreateSiteBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const siteId = await this.commandBus.execute(new CreateSite(organizationId, body, caller));
    return tagged(reply, await this.queryBus.execute(new GetSite(organizationId, siteId, caller)));
  }

  @Get(':siteId')
  @ApiOkResponse({ description: 'OK', schema: ref('Site'), headers: etagHeader })
  async get(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return tagged(reply, await this.queryBus.execute(new GetSite(organizationId, siteId, caller)));
  }

  @Patch(':siteId')
  @ApiOkResponse({ description: 'OK', schema: ref('Site'), headers: etagHeader })
  async update(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Body(Valid) body: UpdateSiteBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { defaultSiteSpace, defaultSiteSection, ...members } = body;
    const changes = Object.fromEntries(Object.entries(members).filter(([, value]) => value !== undefined));
    await this.commandBus.execute(
      new UpdateSite(
        organizationId,
        siteId,
        changes,
        {
          ...(defaultSiteSpace !== undefined ? { defaultSiteSpace } : {}),
          ...(defaultSiteSection !== undefined ? { defaultSiteSection } : {}),
        },
        caller,
        parseIfMatch(ifMatch),
      ),
    );
    return tagged(reply, await this.queryBus.execute(new GetSite(organizationId, siteId, caller)));
  }

  @Delete(':siteId')
  @HttpCode(205)
  @ApiResetContentResponse({ description: 'deleted' })
  async delete(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new DeleteSite(organizationId, siteId, caller, parseIfMatch(ifMatch)));
  }

  /** Publishing (extension): the site becomes reachable by the audience its visibility defines. */
  @Post(':siteId/publish')
  @HttpCode(200)
  @ApiOkResponse({ description: 'published', schema: ref('Site'), headers: etagHeader })
  async publish(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(new PublishSite(organizationId, siteId, true, caller, parseIfMatch(ifMatch)));
    return tagged(reply, await this.queryBus.execute(new GetSite(organizationId, siteId, caller)));
  }

  @Post(':siteId/unpublish')
  @HttpCode(200)
  @ApiOkResponse({ description: 'unpublished', schema: ref('Site'), headers: etagHeader })
  async unpublish(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(new PublishSite(organizationId, siteId, false, caller, parseIfMatch(ifMatch)));
    return tagged(reply, await this.queryBus.execute(new GetSite(organizationId, siteId, caller)));
  }

  /** The published site and its structure, as its reader sees it (members of the organization see every visibility). */
  @Get(':siteId/published')
  @Public()
  // The answer depends on the reader (their token, share key or visitor token): no shared cache keeps it.
  @Header('Cache-Control', 'private, no-store')
  @Header('Vary', 'Authorization')
  @ApiOkResponse({ description: 'OK', schema: ref('PublishedContentSite') })
  published(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Query(Valid) query: PublishedSiteQuery,
    @OptionalCaller() caller: Caller | undefined,
  ) {
    return this.queryBus.execute(
      new GetPublishedSite(organizationId, siteId, { shareKey: query.shareKey, visitorToken: query.jwt_token }, caller),
    );
  }

  // ---- share links (extension, at the platform's paths) --------------------------------------------

  @Get(':siteId/share-links')
  @ApiOkResponse({ description: 'OK', schema: listOf('SiteShareLink') })
  shareLinks(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Query(Valid) query: ListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListSiteShareLinks(organizationId, siteId, caller, query));
  }

  /** → 201 with the share link; its `key` is the `shareKey` readers of a share-link site present. */
  @Post(':siteId/share-links')
  @ApiCreatedResponse({ description: 'created', schema: ref('SiteShareLink'), headers: etagHeader })
  async createShareLink(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Body(Valid) body: CreateShareLinkBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const shareLinkId = await this.commandBus.execute(new CreateSiteShareLink(organizationId, siteId, body.name, caller));
    return tagged(reply, await this.queryBus.execute(new GetSiteShareLink(organizationId, siteId, shareLinkId, caller)));
  }

  @Patch(':siteId/share-links/:shareLinkId')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteShareLink'), headers: etagHeader })
  async updateShareLink(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @PathId('shareLinkId', 'shareLink') shareLinkId: string,
    @Body(Valid) body: UpdateShareLinkBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(
      new UpdateSiteShareLink(
        organizationId,
        siteId,
        shareLinkId,
        { ...(body.name !== undefined ? { name: body.name } : {}), ...(body.active !== undefined ? { active: body.active } : {}) },
        caller,
        parseIfMatch(ifMatch),
      ),
    );
    return tagged(reply, await this.queryBus.execute(new GetSiteShareLink(organizationId, siteId, shareLinkId, caller)));
  }

  @Delete(':siteId/share-links/:shareLinkId')
  @HttpCode(205)
  @ApiResetContentResponse({ description: 'deleted: its key no longer opens the site' })
  async deleteShareLink(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @PathId('shareLinkId', 'shareLink') shareLinkId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new DeleteSiteShareLink(organizationId, siteId, shareLinkId, caller, parseIfMatch(ifMatch)));
  }

  // ---- visitor authentication (extension) -----------------------------------------------------------

  /** The site's HS256 key for visitor tokens and its JWKS URL (administrators only). */
  @Get(':siteId/visitor-auth')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteVisitorAuth'), headers: etagHeader })
  async visitorAuth(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return tagged(reply, await this.queryBus.execute(new GetSiteVisitorAuth(organizationId, siteId, caller)));
  }

  @Put(':siteId/visitor-auth')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteVisitorAuth'), headers: etagHeader })
  async configureVisitorAuth(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Body(Valid) body: VisitorAuthBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(
      new ConfigureVisitorAuth(
        organizationId,
        siteId,
        { jwksUrl: body.jwksUrl ?? null, issuer: body.issuer ?? null },
        caller,
        parseIfMatch(ifMatch),
      ),
    );
    return tagged(reply, await this.queryBus.execute(new GetSiteVisitorAuth(organizationId, siteId, caller)));
  }

  /** A new HS256 key: tokens signed with the previous one stop opening the site. */
  @Post(':siteId/visitor-auth/rotate')
  @HttpCode(200)
  @ApiOkResponse({ description: 'the new key', schema: ref('SiteVisitorAuth'), headers: etagHeader })
  async rotateVisitorKey(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(new RotateVisitorKey(organizationId, siteId, caller, parseIfMatch(ifMatch)));
    return tagged(reply, await this.queryBus.execute(new GetSiteVisitorAuth(organizationId, siteId, caller)));
  }

  // ---- sections -----------------------------------------------------------------------------------

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

  // ---- adaptive content ---------------------------------------------------------------------------

  @Get(':siteId/adaptive-schema')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteAdaptiveSchema'), headers: etagHeader })
  async adaptiveSchema(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return tagged(reply, await this.queryBus.execute(new GetSiteAdaptiveSchema(organizationId, siteId, caller)));
  }

  @Put(':siteId/adaptive-schema')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteAdaptiveSchema'), headers: etagHeader })
  async setAdaptiveSchema(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Body(Valid) body: AdaptiveSchemaBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(new SetAdaptiveSchema(organizationId, siteId, body.jsonSchema, caller, parseIfMatch(ifMatch)));
    return tagged(reply, await this.queryBus.execute(new GetSiteAdaptiveSchema(organizationId, siteId, caller)));
  }

  @Get(':siteId/adaptive-schema/template-conditions')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteTemplateConditions') })
  templateConditions(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListSiteTemplateConditions(organizationId, siteId, caller));
  }

  // ---- site spaces --------------------------------------------------------------------------------

  @Get(':siteId/site-spaces')
  @ApiOkResponse({ description: 'OK', schema: listOf('SiteSpace') })
  siteSpaces(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Query(Valid) query: SiteSpaceListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListSiteSpaces(organizationId, siteId, caller, query));
  }

  @Post(':siteId/site-spaces')
  @ApiCreatedResponse({ description: 'created', schema: ref('SiteSpace'), headers: etagHeader })
  async addSiteSpace(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @Body(Valid) body: AddSiteSpaceBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const siteSpaceId = await this.commandBus.execute(new AddSiteSpace(organizationId, siteId, body, caller));
    return tagged(reply, await this.queryBus.execute(new GetSiteSpace(organizationId, siteId, siteSpaceId, caller)));
  }

  @Patch(':siteId/site-spaces/:siteSpaceId')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteSpace'), headers: etagHeader })
  async updateSiteSpace(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @PathId('siteSpaceId', 'site space') siteSpaceId: string,
    @Body(Valid) body: UpdateSiteSpaceBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const changes = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
    await this.commandBus.execute(new UpdateSiteSpace(organizationId, siteId, siteSpaceId, changes, caller, parseIfMatch(ifMatch)));
    return tagged(reply, await this.queryBus.execute(new GetSiteSpace(organizationId, siteId, siteSpaceId, caller)));
  }

  @Delete(':siteId/site-spaces/:siteSpaceId')
  @HttpCode(205)
  @ApiResetContentResponse({ description: 'removed' })
  async removeSiteSpace(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @PathId('siteSpaceId', 'site space') siteSpaceId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new RemoveSiteSpace(organizationId, siteId, siteSpaceId, caller, parseIfMatch(ifMatch)));
  }

  /** Deprecated in the interface in favour of sorting the whole structure; kept as the interface has it. */
  @Post(':siteId/site-spaces/:siteSpaceId/move')
  @HttpCode(200)
  @ApiOkResponse({ description: 'OK', schema: ref('SiteSpace'), headers: etagHeader })
  async moveSiteSpace(
    @PathId('organizationId', 'organization') organizationId: string,
    @PathId('siteId', 'site') siteId: string,
    @PathId('siteSpaceId', 'site space') siteSpaceId: string,
    @Body(Valid) body: MoveSiteSpaceBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(
      new MoveSiteSpace(
        organizationId,
        siteId,
        siteSpaceId,
        idPosition(body.position, (anchor) => anchor.siteSpace),
        caller,
        parseIfMatch(ifMatch),
      ),
    );
    return tagged(reply, await this.queryBus.execute(new GetSiteSpace(organizationId, siteId, siteSpaceId, caller)));
  }
}
