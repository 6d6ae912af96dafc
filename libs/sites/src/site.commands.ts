import { Inject } from '@nestjs/common';
import { Command, CommandHandler } from '@nestjs/cqrs';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import { newId } from '../../platform/src/ids';
import { KeyedMutex } from '../../platform/src/keyed-mutex';
import { atLeast } from '../../platform/src/permissions';
import { DecidingHandler } from '../../runtime/src/command-handler';
import { SITE_DOMAINS, SITE_SPACES, type SiteDomains, type SiteSpaces } from './sites-ports.port';
import { SiteAccess } from './site.access';
import { validateAdaptiveSchema } from './site.adaptive';
import { parseCondition } from './site.conditions';
import { changeableSite, siteDecider, siteHostnameDecider, siteHostnameStream, siteStream, type GroupPosition, type Position, type SiteCommand } from './site.decider';
import { NEW_SPACE, type SiteChanges, type SiteSectionChanges, type SiteShareLinkChanges, type SiteSpaceChanges, type SiteType, type SiteVisibility } from './site.events';
import { pathOf } from './site.paths';

/*
 * The site writes. Creating a site needs the `create` role in the organization; changing one needs
 * `admin` (SiteAccess). Spaces added to a site must be live spaces of its organization.
 *
 * Every part of a site (sections, groups, site spaces, share links, settings) is versioned by the
 * site's stream: `ifMatch` is its revision, the site's ETag. Whoever may not change the site is
 * refused (404, 403) before the revision is compared (`SiteAccess.refuseBeforeIfMatch`).
 */

// ---- the site ---------------------------------------------------------------------------------------

/** `POST /orgs/{organizationId}/sites`: answers the new site's id. */
export class CreateSite extends Command<string> {
  constructor(
    readonly organizationId: string,
    readonly body: { type?: SiteType; title?: string; visibility?: SiteVisibility; spaces?: string[] | typeof NEW_SPACE },
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(CreateSite)
export class CreateSiteHandler extends DecidingHandler {
  constructor(
    private readonly access: SiteAccess,
    @Inject(SITE_SPACES) private readonly spaces: SiteSpaces,
  ) {
    super();
  }

  async execute({ organizationId, body, caller }: CreateSite): Promise<string> {
    const role = await this.access.role(organizationId, caller);
    if (!atLeast(role, 'create')) throw DomainError.forbidden('creating a site needs the create role in the organization');
    const siteId = newId();
    const siteSpaces = [];
    // A new space takes the site's title; it is created first, so a site never names a missing space.
    const spaceIds = body.spaces === NEW_SPACE ? [await this.spaces.createSpace(organizationId, body.title ?? 'Docs', caller)] : (body.spaces ?? []);
    for (const spaceId of spaceIds) siteSpaces.push({ siteSpaceId: newId(), spaceId, path: pathOf((await this.access.space(organizationId, spaceId)).title) });
    await this.decide(
      siteStream(siteId),
      siteDecider,
      { kind: 'CreateSite', siteId, organizationId, type: body.type ?? 'basic', title: body.title ?? 'Docs', visibility: body.visibility ?? 'public', siteSpaces, by: (caller as { userId: string }).userId, allowed: atLeast(role, 'create'), now: this.now() },
      { caller },
    );
    return siteId;
  }
}

/**
 * `PATCH /orgs/{organizationId}/sites/{siteId}`. A new hostname is claimed before the site changes
 * (a taken one fails with 409, one outside the organization's verified domains with 403, and
 * nothing changes), released again if the change is refused, and the one it replaces released
 * after; as organizations do with theirs. Hostname changes of one site run one at a time.
 */
export class UpdateSite extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly changes: SiteChanges,
    readonly defaults: { defaultSiteSpace?: string; defaultSiteSection?: string },
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(UpdateSite)
export class UpdateSiteHandler extends DecidingHandler {
  private readonly hostnameChanges = new KeyedMutex();

  constructor(
    private readonly access: SiteAccess,
    @Inject(SITE_DOMAINS) private readonly domains: SiteDomains,
  ) {
    super();
  }

  async execute({ organizationId, siteId, changes, defaults, caller, ifMatch }: UpdateSite): Promise<void> {
    const acting = await this.access.acting(organizationId, caller);
    const command: SiteCommand = { kind: 'UpdateSite', siteId, organizationId, changes, ...defaults, ...acting, now: this.now() };
    const apply = async () => {
      await this.access.refuseBeforeIfMatch(command, ifMatch);
      await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
    };
    // A style guide is a space of the site's organization (only its administrators learn which ids are not).
    if (typeof changes.styleguide === 'string' && (await this.access.administers(organizationId, siteId, acting))) await this.access.space(organizationId, changes.styleguide);
    if (changes.hostname === undefined) return apply();
    await this.hostnameChanges.run(siteId, async () => {
      const { state, revision } = await this.load(siteStream(siteId), siteDecider);
      // No site of this organization, a caller who may not change it, or a stale If-Match: refused before any hostname is claimed.
      const site = changeableSite(command, state);
      if (site instanceof DomainError) throw site;
      if (ifMatch !== undefined && ifMatch !== revision) throw DomainError.preconditionFailed(`the resource has changed: If-Match names revision ${ifMatch} but it is at ${revision ?? 'none'}`);
      const previous = site.hostname;
      const next = changes.hostname;
      const claiming = typeof next === 'string' && next !== previous;
      if (claiming) await this.claim(next, siteId, organizationId, caller);
      try {
        await apply();
      } catch (error) {
        if (claiming) await this.release(next, siteId, caller);
        throw error;
      }
      if (previous !== null && next !== previous) await this.release(previous, siteId, caller);
    });
  }

  private async claim(hostname: string, siteId: string, organizationId: string, caller: Caller): Promise<void> {
    const verifiedDomains = await this.domains.verifiedDomains(organizationId);
    await this.decide(siteHostnameStream(hostname), siteHostnameDecider, { kind: 'ClaimSiteHostname', hostname, siteId, organizationId, verifiedDomains }, { caller, wait: false });
  }

  private async release(hostname: string, siteId: string, caller: Caller): Promise<void> {
    await this.decide(siteHostnameStream(hostname), siteHostnameDecider, { kind: 'ReleaseSiteHostname', hostname, siteId }, { caller, wait: false });
  }
}

/** `POST /orgs/{organizationId}/sites/{siteId}/publish` (`published` true) and `…/unpublish` (false). */
export class PublishSite extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly published: boolean,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(PublishSite)
export class PublishSiteHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, published, caller, ifMatch }: PublishSite): Promise<void> {
    const command: SiteCommand = { kind: 'PublishSite', siteId, organizationId, published, ...(await this.access.acting(organizationId, caller)), now: this.now() };
    await this.access.refuseBeforeIfMatch(command, ifMatch);
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

/** `DELETE /orgs/{organizationId}/sites/{siteId}`: a deleted site lets its hostname go. */
export class DeleteSite extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(DeleteSite)
export class DeleteSiteHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, caller, ifMatch }: DeleteSite): Promise<void> {
    const acting = await this.access.acting(organizationId, caller);
    const hostname = (await this.load(siteStream(siteId), siteDecider)).state.site?.hostname ?? null;
    const command: SiteCommand = { kind: 'DeleteSite', siteId, organizationId, ...acting, now: this.now() };
    await this.access.refuseBeforeIfMatch(command, ifMatch);
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
    if (hostname !== null) await this.decide(siteHostnameStream(hostname), siteHostnameDecider, { kind: 'ReleaseSiteHostname', hostname, siteId }, { caller, wait: false });
  }
}

// ---- share links and visitor authentication -------------------------------------------------------

/** `POST /orgs/{organizationId}/sites/{siteId}/share-links`: answers the new share link's id. */
export class CreateSiteShareLink extends Command<string> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly name: string | undefined,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(CreateSiteShareLink)
export class CreateSiteShareLinkHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, name, caller }: CreateSiteShareLink): Promise<string> {
    const shareLinkId = newId();
    await this.decide(
      siteStream(siteId),
      siteDecider,
      { kind: 'CreateShareLink', siteId, organizationId, shareLinkId, key: newId(32), name: name ?? '', by: (caller as { userId: string }).userId, ...(await this.access.acting(organizationId, caller)), now: this.now() },
      { caller },
    );
    return shareLinkId;
  }
}

/** `PATCH /orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}` */
export class UpdateSiteShareLink extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly shareLinkId: string,
    readonly changes: SiteShareLinkChanges,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(UpdateSiteShareLink)
export class UpdateSiteShareLinkHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, shareLinkId, changes, caller, ifMatch }: UpdateSiteShareLink): Promise<void> {
    const command: SiteCommand = { kind: 'UpdateShareLink', siteId, organizationId, shareLinkId, changes, ...(await this.access.acting(organizationId, caller)), now: this.now() };
    await this.access.refuseBeforeIfMatch(command, ifMatch);
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

/** `DELETE /orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}` */
export class DeleteSiteShareLink extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly shareLinkId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(DeleteSiteShareLink)
export class DeleteSiteShareLinkHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, shareLinkId, caller, ifMatch }: DeleteSiteShareLink): Promise<void> {
    const command: SiteCommand = { kind: 'DeleteShareLink', siteId, organizationId, shareLinkId, ...(await this.access.acting(organizationId, caller)), now: this.now() };
    await this.access.refuseBeforeIfMatch(command, ifMatch);
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

/** `PUT /orgs/{organizationId}/sites/{siteId}/visitor-auth` */
export class ConfigureVisitorAuth extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly settings: { jwksUrl: string | null; issuer: string | null },
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(ConfigureVisitorAuth)
export class ConfigureVisitorAuthHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, settings, caller, ifMatch }: ConfigureVisitorAuth): Promise<void> {
    const command: SiteCommand = { kind: 'ConfigureVisitorAuth', siteId, organizationId, ...settings, ...(await this.access.acting(organizationId, caller)), now: this.now() };
    await this.access.refuseBeforeIfMatch(command, ifMatch);
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

/** `POST /orgs/{organizationId}/sites/{siteId}/visitor-auth/rotate`: a new HS256 key, tokens signed with the old one stop working. */
export class RotateVisitorKey extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(RotateVisitorKey)
export class RotateVisitorKeyHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, caller, ifMatch }: RotateVisitorKey): Promise<void> {
    const command: SiteCommand = { kind: 'RotateVisitorKey', siteId, organizationId, ...(await this.access.acting(organizationId, caller)), now: this.now() };
    await this.access.refuseBeforeIfMatch(command, ifMatch);
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

/**
 * A system command (the site-spaces reactors, no permission check): the site spaces of a space
 * that is no longer live go. Not found when the site is gone.
 */
export class RemoveSpaceFromSite extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly spaceId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(RemoveSpaceFromSite)
export class RemoveSpaceFromSiteHandler extends DecidingHandler {
  async execute({ organizationId, siteId, spaceId, caller }: RemoveSpaceFromSite): Promise<void> {
    await this.decide(siteStream(siteId), siteDecider, { kind: 'RemoveSpaceFromSite', siteId, organizationId, spaceId, allowed: true, now: this.now() }, { caller });
  }
}

// ---- sections -----------------------------------------------------------------------------------------

/**
 * `POST /orgs/{organizationId}/sites/{siteId}/sections`: a section showing a space (`spaceId` null:
 * a new space named after the section); answers the new section's id. The body's `template` is not
 * applied: the service has no space templates.
 */
export class AddSection extends Command<string> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly body: { spaceId: string | null; title?: string | null; icon?: string | null; draft?: boolean; pageId?: string; siteSectionGroupId?: string },
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(AddSection)
export class AddSectionHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, body, caller }: AddSection): Promise<string> {
    const acting = await this.access.acting(organizationId, caller);
    if (body.spaceId === null && body.pageId !== undefined) throw DomainError.invalid('pageId names a page of an existing space: it cannot come with spaceId null');
    const space = await this.access.siteSpaceContent(organizationId, siteId, body.spaceId, body.title ?? 'Untitled section', acting, caller);
    if (body.pageId !== undefined) await this.access.requirePage(organizationId, siteId, acting, space.id, body.pageId);
    const sectionId = newId();
    const title = body.title ?? space.title;
    await this.decide(
      siteStream(siteId),
      siteDecider,
      {
        kind: 'AddSection',
        siteId,
        organizationId,
        sectionId,
        title,
        icon: body.icon ?? null,
        path: pathOf(title),
        draft: body.draft === true,
        ...(body.siteSectionGroupId !== undefined ? { groupId: body.siteSectionGroupId } : {}),
        rootSectionId: newId(),
        siteSpace: { siteSpaceId: newId(), spaceId: space.id, path: pathOf(space.title), ...(body.pageId !== undefined ? { pageId: body.pageId } : {}) },
        ...acting,
        now: this.now(),
      },
      { caller },
    );
    return sectionId;
  }
}

/**
 * `PATCH /orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}`. `group`: the section group
 * to move the section into (`siteSectionGroupId`), null to take it out of its group.
 */
export class UpdateSection extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly sectionId: string,
    readonly changes: SiteSectionChanges,
    readonly options: { defaultSiteSpace?: string; group?: string | null },
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(UpdateSection)
export class UpdateSectionHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, sectionId, changes, options, caller, ifMatch }: UpdateSection): Promise<void> {
    if (typeof changes.condition === 'string') parseCondition(changes.condition);
    const command: SiteCommand = { kind: 'UpdateSection', siteId, organizationId, sectionId, changes, ...options, ...(await this.access.acting(organizationId, caller)), now: this.now() };
    await this.access.refuseBeforeIfMatch(command, ifMatch);
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

/** `DELETE /orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}`: with its site spaces. */
export class RemoveSection extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly sectionId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(RemoveSection)
export class RemoveSectionHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, sectionId, caller, ifMatch }: RemoveSection): Promise<void> {
    const command: SiteCommand = { kind: 'RemoveSection', siteId, organizationId, sectionId, ...(await this.access.acting(organizationId, caller)), now: this.now() };
    await this.access.refuseBeforeIfMatch(command, ifMatch);
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

/** `POST /orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move` */
export class MoveSection extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly sectionId: string,
    readonly position: Position,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(MoveSection)
export class MoveSectionHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, sectionId, position, caller, ifMatch }: MoveSection): Promise<void> {
    const command: SiteCommand = { kind: 'MoveSection', siteId, organizationId, sectionId, position, ...(await this.access.acting(organizationId, caller)), now: this.now() };
    await this.access.refuseBeforeIfMatch(command, ifMatch);
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

// ---- site spaces --------------------------------------------------------------------------------------

/**
 * `POST /orgs/{organizationId}/sites/{siteId}/site-spaces`: a site space showing a space (`spaceId`
 * null: a new space named after `title`); answers the new site space's id. `template` is not applied.
 */
export class AddSiteSpace extends Command<string> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly body: { spaceId: string | null; sectionId?: string; draft?: boolean; pageId?: string | null; title?: string },
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(AddSiteSpace)
export class AddSiteSpaceHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, body, caller }: AddSiteSpace): Promise<string> {
    const acting = await this.access.acting(organizationId, caller);
    const pageId = body.pageId ?? undefined;
    if (body.spaceId === null && pageId !== undefined) throw DomainError.invalid('pageId names a page of an existing space: it cannot come with spaceId null');
    const space = await this.access.siteSpaceContent(organizationId, siteId, body.spaceId, body.title ?? 'Untitled', acting, caller);
    if (pageId !== undefined) await this.access.requirePage(organizationId, siteId, acting, space.id, pageId);
    const siteSpaceId = newId();
    const { sectionId, draft, title } = body;
    await this.decide(
      siteStream(siteId),
      siteDecider,
      { kind: 'AddSiteSpace', siteId, organizationId, siteSpaceId, spaceId: space.id, sectionId, path: pathOf(title ?? space.title), ...(draft ? { draft } : {}), ...(title !== undefined ? { title } : {}), ...(pageId !== undefined ? { pageId } : {}), ...acting, now: this.now() },
      { caller },
    );
    return siteSpaceId;
  }
}

/** `PATCH /orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}` */
export class UpdateSiteSpace extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly siteSpaceId: string,
    readonly changes: SiteSpaceChanges,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(UpdateSiteSpace)
export class UpdateSiteSpaceHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, siteSpaceId, changes, caller, ifMatch }: UpdateSiteSpace): Promise<void> {
    const acting = await this.access.acting(organizationId, caller);
    if (typeof changes.condition === 'string') parseCondition(changes.condition);
    if (changes.spaceId !== undefined) await this.access.space(organizationId, changes.spaceId);
    if (typeof changes.pageId === 'string') {
      const spaceId = changes.spaceId ?? (await this.load(siteStream(siteId), siteDecider)).state.siteSpaces.get(siteSpaceId)?.spaceId;
      // A site space the site does not have: the decider answers 404.
      if (spaceId !== undefined) await this.access.requirePage(organizationId, siteId, acting, spaceId, changes.pageId);
    }
    const command: SiteCommand = { kind: 'UpdateSiteSpace', siteId, organizationId, siteSpaceId, changes, ...acting, now: this.now() };
    await this.access.refuseBeforeIfMatch(command, ifMatch);
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

/** `DELETE /orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}` */
export class RemoveSiteSpace extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly siteSpaceId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(RemoveSiteSpace)
export class RemoveSiteSpaceHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, siteSpaceId, caller, ifMatch }: RemoveSiteSpace): Promise<void> {
    const command: SiteCommand = { kind: 'RemoveSiteSpace', siteId, organizationId, siteSpaceId, ...(await this.access.acting(organizationId, caller)), now: this.now() };
    await this.access.refuseBeforeIfMatch(command, ifMatch);
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

/** `POST /orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/move` */
export class MoveSiteSpace extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly siteSpaceId: string,
    readonly position: Position,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(MoveSiteSpace)
export class MoveSiteSpaceHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, siteSpaceId, position, caller, ifMatch }: MoveSiteSpace): Promise<void> {
    const command: SiteCommand = { kind: 'MoveSiteSpace', siteId, organizationId, siteSpaceId, position, ...(await this.access.acting(organizationId, caller)), now: this.now() };
    await this.access.refuseBeforeIfMatch(command, ifMatch);
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

// ---- section groups -----------------------------------------------------------------------------------

/** `POST /orgs/{organizationId}/sites/{siteId}/section-groups`: answers the new group's id. */
export class AddSectionGroup extends Command<string> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly body: { title: string; icon?: string | null; sections?: string[]; draft?: boolean; parent?: string },
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(AddSectionGroup)
export class AddSectionGroupHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, body, caller }: AddSectionGroup): Promise<string> {
    const groupId = newId();
    const { draft, parent } = body;
    await this.decide(
      siteStream(siteId),
      siteDecider,
      { kind: 'AddSectionGroup', siteId, organizationId, groupId, title: body.title, icon: body.icon ?? null, sections: body.sections ?? [], ...(draft ? { draft } : {}), ...(parent !== undefined ? { parent } : {}), ...(await this.access.acting(organizationId, caller)), now: this.now() },
      { caller },
    );
    return groupId;
  }
}

/**
 * `PATCH /orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}`. `parent`: the
 * body's `parentSectionGroupId` (null: the site's root, where every group is).
 */
export class UpdateSectionGroup extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly groupId: string,
    readonly changes: { title?: string; icon?: string | null; draft?: boolean },
    readonly parent: string | null | undefined,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(UpdateSectionGroup)
export class UpdateSectionGroupHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, groupId, changes, parent, caller, ifMatch }: UpdateSectionGroup): Promise<void> {
    const command: SiteCommand = { kind: 'UpdateSectionGroup', siteId, organizationId, groupId, changes, ...(parent !== undefined ? { parent } : {}), ...(await this.access.acting(organizationId, caller)), now: this.now() };
    await this.access.refuseBeforeIfMatch(command, ifMatch);
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

/** `DELETE /orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}`: its sections stay, ungrouped. */
export class RemoveSectionGroup extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly groupId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(RemoveSectionGroup)
export class RemoveSectionGroupHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, groupId, caller, ifMatch }: RemoveSectionGroup): Promise<void> {
    const command: SiteCommand = { kind: 'RemoveSectionGroup', siteId, organizationId, groupId, ...(await this.access.acting(organizationId, caller)), now: this.now() };
    await this.access.refuseBeforeIfMatch(command, ifMatch);
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

/** `POST /orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections` */
export class GroupSection extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly groupId: string,
    readonly sectionId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(GroupSection)
export class GroupSectionHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, groupId, sectionId, caller, ifMatch }: GroupSection): Promise<void> {
    const command: SiteCommand = { kind: 'GroupSection', siteId, organizationId, groupId, sectionId, ...(await this.access.acting(organizationId, caller)), now: this.now() };
    await this.access.refuseBeforeIfMatch(command, ifMatch);
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

/** `DELETE /orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections/{siteSectionId}` */
export class UngroupSection extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly groupId: string,
    readonly sectionId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(UngroupSection)
export class UngroupSectionHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, groupId, sectionId, caller, ifMatch }: UngroupSection): Promise<void> {
    const command: SiteCommand = { kind: 'UngroupSection', siteId, organizationId, groupId, sectionId, ...(await this.access.acting(organizationId, caller)), now: this.now() };
    await this.access.refuseBeforeIfMatch(command, ifMatch);
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

/** `POST /orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/move`: the group's sections move as one block. */
export class MoveSectionGroup extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly groupId: string,
    readonly position: GroupPosition,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(MoveSectionGroup)
export class MoveSectionGroupHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, groupId, position, caller, ifMatch }: MoveSectionGroup): Promise<void> {
    const command: SiteCommand = { kind: 'MoveSectionGroup', siteId, organizationId, groupId, position, ...(await this.access.acting(organizationId, caller)), now: this.now() };
    await this.access.refuseBeforeIfMatch(command, ifMatch);
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

// ---- structure and adaptive content -------------------------------------------------------------------

/** `PATCH /orgs/{organizationId}/sites/{siteId}/structure/sort`: the order of groups, sections and site spaces in one call. */
export class SortSiteStructure extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly sort: { sections: Array<{ id: string; group: string | null }>; siteSpaces: Record<string, string[]> },
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(SortSiteStructure)
export class SortSiteStructureHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, sort, caller, ifMatch }: SortSiteStructure): Promise<void> {
    const command: SiteCommand = { kind: 'SortStructure', siteId, organizationId, ...sort, ...(await this.access.acting(organizationId, caller)), now: this.now() };
    await this.access.refuseBeforeIfMatch(command, ifMatch);
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

/** `PUT /orgs/{organizationId}/sites/{siteId}/adaptive-schema` */
export class SetAdaptiveSchema extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly siteId: string,
    readonly jsonSchema: Record<string, unknown>,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(SetAdaptiveSchema)
export class SetAdaptiveSchemaHandler extends DecidingHandler {
  constructor(private readonly access: SiteAccess) {
    super();
  }

  async execute({ organizationId, siteId, jsonSchema, caller, ifMatch }: SetAdaptiveSchema): Promise<void> {
    const acting = await this.access.acting(organizationId, caller);
    // Only the site's administrators learn what is wrong with a schema; others get 403 from the decider.
    if (await this.access.administers(organizationId, siteId, acting)) validateAdaptiveSchema(jsonSchema);
    const command: SiteCommand = { kind: 'SetAdaptiveSchema', siteId, organizationId, jsonSchema, ...acting, now: this.now() };
    await this.access.refuseBeforeIfMatch(command, ifMatch);
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

export const siteCommandHandlers = [
  CreateSiteHandler,
  UpdateSiteHandler,
  PublishSiteHandler,
  DeleteSiteHandler,
  CreateSiteShareLinkHandler,
  UpdateSiteShareLinkHandler,
  DeleteSiteShareLinkHandler,
  ConfigureVisitorAuthHandler,
  RotateVisitorKeyHandler,
  RemoveSpaceFromSiteHandler,
  AddSectionHandler,
  UpdateSectionHandler,
  RemoveSectionHandler,
  MoveSectionHandler,
  AddSiteSpaceHandler,
  UpdateSiteSpaceHandler,
  RemoveSiteSpaceHandler,
  MoveSiteSpaceHandler,
  AddSectionGroupHandler,
  UpdateSectionGroupHandler,
  RemoveSectionGroupHandler,
  GroupSectionHandler,
  UngroupSectionHandler,
  MoveSectionGroupHandler,
  SortSiteStructureHandler,
  SetAdaptiveSchemaHandler,
];
