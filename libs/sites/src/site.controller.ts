import { Body, Controller, Delete, Get, Header, HttpCode, Patch, Post, Put, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiResetContentResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { DomainError } from '../../platform/src/errors';
import { CurrentCaller, OptionalCaller, Public, type Caller } from '../../platform/src/http/auth';
import { etagOf } from '../../platform/src/http/etag';
import { PathId } from '../../platform/src/http/id-param';
import { ListQuery } from '../../platform/src/http/list';
import { Valid } from '../../platform/src/http/validation';
import { etagHeader, listOf, ref } from '../../platform/src/platform.schemas';
import { SiteCommands } from './site.commands';
import type { Position } from './site.decider';
import { CreateShareLinkBody, PublishedSiteQuery, SectionListQuery, UpdateShareLinkBody, VisitorAuthBody, SortStructureBody, AdaptiveSchemaBody, AddSectionBody, AddSectionGroupBody, AddSiteSpaceBody, GroupSectionBody, MoveSectionGroupBody, UpdateSectionGroupBody, CreateSiteBody, MoveSectionBody, MoveSiteSpaceBody, SiteListQuery, SiteSpaceListQuery, UpdateSectionBody, UpdateSiteBody, UpdateSiteSpaceBody } from './site.dto';
import { SiteQueries } from './site.queries';

/** A move's position: before or after a sibling, or (neither given) the end. */
function positionOf(position: { before?: { id: string }; after?: { id: string } }): Position {
  if (position.before && position.after) throw DomainError.invalid('position takes before or after, not both');
  return position.before ? { before: position.before.id } : position.after ? { after: position.after.id } : null;
}

/**
 * Docs sites: `/v1/orgs/{organizationId}/sites…` (the interface's "Docs sites", "Site sections" and
 * "Site spaces" tables), with publishing as an extension.
 */
@Controller('v1/orgs/:organizationId/sites')
export class SiteController {
  constructor(
    private readonly commands: SiteCommands,
    private readonly queries: SiteQueries,
  ) {}

  @Get()
  @ApiOkResponse({ description: 'OK', schema: listOf('Site') })
  list(@PathId('organizationId', 'organization') organizationId: string, @Query(Valid) query: SiteListQuery, @CurrentCaller() caller: Caller) {
    return this.queries.list(organizationId, caller, query);
  }

  @Post()
  @ApiCreatedResponse({ description: 'created', schema: ref('Site') })
  async create(@PathId('organizationId', 'organization') organizationId: string, @Body(Valid) body: CreateSiteBody, @CurrentCaller() caller: Caller) {
    const siteId = await this.commands.create(organizationId, body, caller);
    return this.queries.get(organizationId, siteId, caller);
  }

  @Get(':siteId')
  @ApiOkResponse({ description: 'OK', schema: ref('Site'), headers: etagHeader })
  async get(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @CurrentCaller() caller: Caller, @Res({ passthrough: true }) reply: FastifyReply) {
    const { object, streamRevision } = await this.queries.getWithRevision(organizationId, siteId, caller);
    void reply.header('etag', etagOf(streamRevision));
    return object;
  }

  @Patch(':siteId')
  @ApiOkResponse({ description: 'OK', schema: ref('Site') })
  async update(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @Body(Valid) body: UpdateSiteBody, @CurrentCaller() caller: Caller) {
    const { defaultSiteSpace, defaultSiteSection, ...members } = body;
    const changes = Object.fromEntries(Object.entries(members).filter(([, value]) => value !== undefined));
    await this.commands.update(organizationId, siteId, changes, { ...(defaultSiteSpace !== undefined ? { defaultSiteSpace } : {}), ...(defaultSiteSection !== undefined ? { defaultSiteSection } : {}) }, caller);
    return this.queries.get(organizationId, siteId, caller);
  }

  @Delete(':siteId')
  @HttpCode(205)
  @ApiResetContentResponse({ description: 'deleted' })
  async delete(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @CurrentCaller() caller: Caller) {
    await this.commands.delete(organizationId, siteId, caller);
  }

  /** Publishing (extension): the site becomes reachable by the audience its visibility defines. */
  @Post(':siteId/publish')
  @HttpCode(200)
  @ApiOkResponse({ description: 'published', schema: ref('Site') })
  async publish(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @CurrentCaller() caller: Caller) {
    await this.commands.publish(organizationId, siteId, true, caller);
    return this.queries.get(organizationId, siteId, caller);
  }

  @Post(':siteId/unpublish')
  @HttpCode(200)
  @ApiOkResponse({ description: 'unpublished', schema: ref('Site') })
  async unpublish(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @CurrentCaller() caller: Caller) {
    await this.commands.publish(organizationId, siteId, false, caller);
    return this.queries.get(organizationId, siteId, caller);
  }

  /** The published site and its structure, as its reader sees it (members of the organization see every visibility). */
  @Get(':siteId/published')
  @Public()
  // The answer depends on the reader (their token, share key or visitor token): no shared cache keeps it.
  @Header('Cache-Control', 'private, no-store')
  @Header('Vary', 'Authorization')
  @ApiOkResponse({ description: 'OK', schema: ref('PublishedContentSite') })
  published(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @Query(Valid) query: PublishedSiteQuery, @OptionalCaller() caller: Caller | undefined) {
    return this.queries.published(organizationId, siteId, { shareKey: query.shareKey, visitorToken: query.jwt_token }, caller);
  }

  // ---- share links (extension, at the platform's paths) --------------------------------------------

  @Get(':siteId/share-links')
  @ApiOkResponse({ description: 'OK', schema: listOf('SiteShareLink') })
  shareLinks(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @Query(Valid) query: ListQuery, @CurrentCaller() caller: Caller) {
    return this.queries.shareLinks(organizationId, siteId, caller, query);
  }

  /** → 201 with the share link; its `key` is the `shareKey` readers of a share-link site present. */
  @Post(':siteId/share-links')
  @ApiCreatedResponse({ description: 'created', schema: ref('SiteShareLink') })
  async createShareLink(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @Body(Valid) body: CreateShareLinkBody, @CurrentCaller() caller: Caller) {
    const shareLinkId = await this.commands.createShareLink(organizationId, siteId, body.name, caller);
    return this.queries.shareLink(organizationId, siteId, shareLinkId, caller);
  }

  @Patch(':siteId/share-links/:shareLinkId')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteShareLink') })
  async updateShareLink(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @PathId('shareLinkId', 'shareLink') shareLinkId: string, @Body(Valid) body: UpdateShareLinkBody, @CurrentCaller() caller: Caller) {
    await this.commands.updateShareLink(organizationId, siteId, shareLinkId, { ...(body.name !== undefined ? { name: body.name } : {}), ...(body.active !== undefined ? { active: body.active } : {}) }, caller);
    return this.queries.shareLink(organizationId, siteId, shareLinkId, caller);
  }

  @Delete(':siteId/share-links/:shareLinkId')
  @HttpCode(205)
  @ApiResetContentResponse({ description: 'deleted: its key no longer opens the site' })
  async deleteShareLink(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @PathId('shareLinkId', 'shareLink') shareLinkId: string, @CurrentCaller() caller: Caller) {
    await this.commands.deleteShareLink(organizationId, siteId, shareLinkId, caller);
  }

  // ---- visitor authentication (extension) -----------------------------------------------------------

  /** The site's HS256 key for visitor tokens and its JWKS URL (administrators only). */
  @Get(':siteId/visitor-auth')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteVisitorAuth') })
  visitorAuth(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @CurrentCaller() caller: Caller) {
    return this.queries.visitorAuth(organizationId, siteId, caller);
  }

  @Put(':siteId/visitor-auth')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteVisitorAuth') })
  async configureVisitorAuth(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @Body(Valid) body: VisitorAuthBody, @CurrentCaller() caller: Caller) {
    await this.commands.configureVisitorAuth(organizationId, siteId, { jwksUrl: body.jwksUrl ?? null, issuer: body.issuer ?? null }, caller);
    return this.queries.visitorAuth(organizationId, siteId, caller);
  }

  /** A new HS256 key: tokens signed with the previous one stop opening the site. */
  @Post(':siteId/visitor-auth/rotate')
  @HttpCode(200)
  @ApiOkResponse({ description: 'the new key', schema: ref('SiteVisitorAuth') })
  async rotateVisitorKey(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @CurrentCaller() caller: Caller) {
    await this.commands.rotateVisitorKey(organizationId, siteId, caller);
    return this.queries.visitorAuth(organizationId, siteId, caller);
  }

  // ---- sections -----------------------------------------------------------------------------------

  @Get(':siteId/sections')
  @ApiOkResponse({ description: 'OK', schema: listOf('SiteSection') })
  sections(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @Query(Valid) query: SectionListQuery, @CurrentCaller() caller: Caller) {
    return this.queries.sections(organizationId, siteId, caller, query);
  }

  @Post(':siteId/sections')
  @HttpCode(200)
  @ApiOkResponse({ description: 'the new section, with the space as its first site space', schema: ref('SiteSection') })
  async addSection(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @Body(Valid) body: AddSectionBody, @CurrentCaller() caller: Caller) {
    const sectionId = await this.commands.addSection(organizationId, siteId, body, caller);
    return this.queries.section(organizationId, siteId, sectionId, caller);
  }

  @Patch(':siteId/sections/:siteSectionId')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteSection') })
  async updateSection(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @PathId('siteSectionId', 'section') sectionId: string, @Body(Valid) body: UpdateSectionBody, @CurrentCaller() caller: Caller) {
    const { defaultSiteSpace, ...members } = body;
    const changes = Object.fromEntries(Object.entries(members).filter(([, value]) => value !== undefined));
    await this.commands.updateSection(organizationId, siteId, sectionId, changes, defaultSiteSpace, caller);
    return this.queries.section(organizationId, siteId, sectionId, caller);
  }

  @Delete(':siteId/sections/:siteSectionId')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'removed, with its site spaces' })
  async removeSection(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @PathId('siteSectionId', 'section') sectionId: string, @CurrentCaller() caller: Caller) {
    await this.commands.removeSection(organizationId, siteId, sectionId, caller);
  }

  @Post(':siteId/sections/:siteSectionId/move')
  @HttpCode(200)
  @ApiOkResponse({ description: 'OK', schema: ref('SiteSection') })
  async moveSection(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @PathId('siteSectionId', 'section') sectionId: string, @Body(Valid) body: MoveSectionBody, @CurrentCaller() caller: Caller) {
    const { before, after } = body.position;
    await this.commands.moveSection(organizationId, siteId, sectionId, positionOf({ ...(before ? { before: { id: before.siteSection } } : {}), ...(after ? { after: { id: after.siteSection } } : {}) }), caller);
    return this.queries.section(organizationId, siteId, sectionId, caller);
  }

  // ---- section groups -----------------------------------------------------------------------------

  @Get(':siteId/section-groups')
  @ApiOkResponse({ description: 'OK', schema: listOf('SiteSectionGroup') })
  sectionGroups(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @Query(Valid) query: ListQuery, @CurrentCaller() caller: Caller) {
    return this.queries.sectionGroups(organizationId, siteId, caller, query);
  }

  @Post(':siteId/section-groups')
  @ApiCreatedResponse({ description: 'created', schema: ref('SiteSectionGroup') })
  async addSectionGroup(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @Body(Valid) body: AddSectionGroupBody, @CurrentCaller() caller: Caller) {
    const groupId = await this.commands.addSectionGroup(organizationId, siteId, body, caller);
    return this.queries.sectionGroup(organizationId, siteId, groupId, caller);
  }

  @Patch(':siteId/section-groups/:siteSectionGroupId')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteSectionGroup') })
  async updateSectionGroup(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @PathId('siteSectionGroupId', 'section group') groupId: string, @Body(Valid) body: UpdateSectionGroupBody, @CurrentCaller() caller: Caller) {
    await this.commands.updateSectionGroup(organizationId, siteId, groupId, Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined)), caller);
    return this.queries.sectionGroup(organizationId, siteId, groupId, caller);
  }

  @Delete(':siteId/section-groups/:siteSectionGroupId')
  @HttpCode(205)
  @ApiResetContentResponse({ description: 'deleted; its sections stay, ungrouped' })
  async removeSectionGroup(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @PathId('siteSectionGroupId', 'section group') groupId: string, @CurrentCaller() caller: Caller) {
    await this.commands.removeSectionGroup(organizationId, siteId, groupId, caller);
  }

  @Post(':siteId/section-groups/:siteSectionGroupId/sections')
  @ApiCreatedResponse({ description: 'the group with the section', schema: ref('SiteSectionGroup') })
  async groupSection(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @PathId('siteSectionGroupId', 'section group') groupId: string, @Body(Valid) body: GroupSectionBody, @CurrentCaller() caller: Caller) {
    await this.commands.groupSection(organizationId, siteId, groupId, body.sectionId, caller);
    return this.queries.sectionGroup(organizationId, siteId, groupId, caller);
  }

  @Delete(':siteId/section-groups/:siteSectionGroupId/sections/:siteSectionId')
  @HttpCode(205)
  @ApiResetContentResponse({ description: 'the section left the group' })
  async ungroupSection(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @PathId('siteSectionGroupId', 'section group') groupId: string, @PathId('siteSectionId', 'section') sectionId: string, @CurrentCaller() caller: Caller) {
    await this.commands.ungroupSection(organizationId, siteId, groupId, sectionId, caller);
  }

  /** Deprecated in the interface in favour of sorting the whole structure: the group's sections move as one block. */
  @Post(':siteId/section-groups/:siteSectionGroupId/move')
  @HttpCode(200)
  @ApiOkResponse({ description: 'OK', schema: ref('SiteSectionGroup') })
  async moveSectionGroup(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @PathId('siteSectionGroupId', 'section group') groupId: string, @Body(Valid) body: MoveSectionGroupBody, @CurrentCaller() caller: Caller) {
    const { before, after } = body.position;
    await this.commands.moveSectionGroup(organizationId, siteId, groupId, positionOf({ ...(before ? { before: { id: before.id } } : {}), ...(after ? { after: { id: after.id } } : {}) }), caller);
    return this.queries.sectionGroup(organizationId, siteId, groupId, caller);
  }

  // ---- structure (extension, at the platform's path) -------------------------------------------------

  @Get(':siteId/structure')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteStructure') })
  structure(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @CurrentCaller() caller: Caller) {
    return this.queries.structure(organizationId, siteId, caller);
  }

  /** `sortSiteStructure`: the order of groups, sections and site spaces in one call; the deprecated moves do the same, one item at a time. */
  @Patch(':siteId/structure/sort')
  @ApiOkResponse({ description: 'the structure in its new order', schema: ref('SiteStructure') })
  async sortStructure(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @Body(Valid) body: SortStructureBody, @CurrentCaller() caller: Caller) {
    const sections: Array<{ id: string; group: string | null }> = [];
    const siteSpaces: Record<string, string[]> = {};
    for (const entry of body.structure ?? []) {
      const members = entry.type === 'group' ? (entry.sections ?? []).map((section) => ({ ...section, group: entry.id })) : [{ ...entry, group: null }];
      for (const section of members) {
        sections.push({ id: section.id, group: section.group });
        if (section.siteSpaces !== undefined) siteSpaces[section.id] = section.siteSpaces;
      }
    }
    if (body.siteSpaces !== undefined) siteSpaces[''] = body.siteSpaces;
    await this.commands.sortStructure(organizationId, siteId, { sections, siteSpaces }, caller);
    return this.queries.structure(organizationId, siteId, caller);
  }

  // ---- adaptive content ---------------------------------------------------------------------------

  @Get(':siteId/adaptive-schema')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteAdaptiveSchema') })
  adaptiveSchema(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @CurrentCaller() caller: Caller) {
    return this.queries.adaptiveSchema(organizationId, siteId, caller);
  }

  @Put(':siteId/adaptive-schema')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteAdaptiveSchema') })
  async setAdaptiveSchema(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @Body(Valid) body: AdaptiveSchemaBody, @CurrentCaller() caller: Caller) {
    await this.commands.setAdaptiveSchema(organizationId, siteId, body.jsonSchema, caller);
    return this.queries.adaptiveSchema(organizationId, siteId, caller);
  }

  @Get(':siteId/adaptive-schema/template-conditions')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteTemplateConditions') })
  templateConditions(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @CurrentCaller() caller: Caller) {
    return this.queries.templateConditions(organizationId, siteId, caller);
  }

  // ---- site spaces --------------------------------------------------------------------------------

  @Get(':siteId/site-spaces')
  @ApiOkResponse({ description: 'OK', schema: listOf('SiteSpace') })
  siteSpaces(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @Query(Valid) query: SiteSpaceListQuery, @CurrentCaller() caller: Caller) {
    return this.queries.siteSpaces(organizationId, siteId, caller, query);
  }

  @Post(':siteId/site-spaces')
  @ApiCreatedResponse({ description: 'created', schema: ref('SiteSpace') })
  async addSiteSpace(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @Body(Valid) body: AddSiteSpaceBody, @CurrentCaller() caller: Caller) {
    const siteSpaceId = await this.commands.addSiteSpace(organizationId, siteId, body, caller);
    return this.queries.siteSpace(organizationId, siteId, siteSpaceId, caller);
  }

  @Patch(':siteId/site-spaces/:siteSpaceId')
  @ApiOkResponse({ description: 'OK', schema: ref('SiteSpace') })
  async updateSiteSpace(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @PathId('siteSpaceId', 'site space') siteSpaceId: string, @Body(Valid) body: UpdateSiteSpaceBody, @CurrentCaller() caller: Caller) {
    const changes = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
    await this.commands.updateSiteSpace(organizationId, siteId, siteSpaceId, changes, caller);
    return this.queries.siteSpace(organizationId, siteId, siteSpaceId, caller);
  }

  @Delete(':siteId/site-spaces/:siteSpaceId')
  @HttpCode(205)
  @ApiResetContentResponse({ description: 'removed' })
  async removeSiteSpace(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @PathId('siteSpaceId', 'site space') siteSpaceId: string, @CurrentCaller() caller: Caller) {
    await this.commands.removeSiteSpace(organizationId, siteId, siteSpaceId, caller);
  }

  /** Deprecated in the interface in favour of sorting the whole structure; kept as the interface has it. */
  @Post(':siteId/site-spaces/:siteSpaceId/move')
  @HttpCode(200)
  @ApiOkResponse({ description: 'OK', schema: ref('SiteSpace') })
  async moveSiteSpace(@PathId('organizationId', 'organization') organizationId: string, @PathId('siteId', 'site') siteId: string, @PathId('siteSpaceId', 'site space') siteSpaceId: string, @Body(Valid) body: MoveSiteSpaceBody, @CurrentCaller() caller: Caller) {
    const { before, after } = body.position;
    await this.commands.moveSiteSpace(organizationId, siteId, siteSpaceId, positionOf({ ...(before ? { before: { id: before.siteSpace } } : {}), ...(after ? { after: { id: after.siteSpace } } : {}) }), caller);
    return this.queries.siteSpace(organizationId, siteId, siteSpaceId, caller);
  }
}

