import { Command, CommandHandler } from '@nestjs/cqrs';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { newId } from '#platform/ids';
import { DecidingHandler } from '#runtime/command-handler';
import { SiteAccess } from './site.access';
import { parseCondition } from './site.conditions';
import { siteDecider, siteStream, type Position, type SiteCommand } from './site.decider';
import type { SiteSpaceChanges } from './site.events';
import { pathOf } from './site.paths';

/*
 * The writes of a site's site spaces, for its administrators (SiteAccess); a space shown must be a
 * live space of the site's organization. And the system command that takes a space that is no
 * longer live off a site.
 *
 * Every part of a site (sections, groups, site spaces, share links, settings) is versioned by the
 * site's stream: `ifMatch` is its revision, the site's ETag. Whoever may not change the site is
 * refused (404, 403) whatever the revision: the command processor decides before it compares it.
 */

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
    if (body.spaceId === null && pageId !== undefined)
      throw DomainError.invalid('pageId names a page of an existing space: it cannot come with spaceId null');
    const space = await this.access.siteSpaceContent(organizationId, siteId, body.spaceId, body.title ?? 'Untitled', acting, caller);
    if (pageId !== undefined) await this.access.requirePage(organizationId, siteId, acting, space.id, pageId);
    const siteSpaceId = newId();
    const { sectionId, draft, title } = body;
    await this.decide(
      siteStream(siteId),
      siteDecider,
      {
        kind: 'AddSiteSpace',
        siteId,
        organizationId,
        siteSpaceId,
        spaceId: space.id,
        sectionId,
        path: pathOf(title ?? space.title),
        ...(draft ? { draft } : {}),
        ...(title !== undefined ? { title } : {}),
        ...(pageId !== undefined ? { pageId } : {}),
        ...acting,
        now: this.now(),
      },
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
    const command: SiteCommand = {
      kind: 'RemoveSiteSpace',
      siteId,
      organizationId,
      siteSpaceId,
      ...(await this.access.acting(organizationId, caller)),
      now: this.now(),
    };
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
    const command: SiteCommand = {
      kind: 'MoveSiteSpace',
      siteId,
      organizationId,
      siteSpaceId,
      position,
      ...(await this.access.acting(organizationId, caller)),
      now: this.now(),
    };
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

// ---- a space that is no longer live ------------------------------------------------------------------

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
    await this.decide(
      siteStream(siteId),
      siteDecider,
      { kind: 'RemoveSpaceFromSite', siteId, organizationId, spaceId, allowed: true, now: this.now() },
      { caller },
    );
  }
}

export const siteSpaceCommandHandlers = [
  AddSiteSpaceHandler,
  UpdateSiteSpaceHandler,
  RemoveSiteSpaceHandler,
  MoveSiteSpaceHandler,
  RemoveSpaceFromSiteHandler,
];
