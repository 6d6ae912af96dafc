import { Command, CommandHandler } from '@nestjs/cqrs';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { newId } from '#platform/ids';
import { DecidingHandler } from '#runtime/command-handler';
import { SiteAccess } from './site.access';
import { parseCondition } from './site.conditions';
import { siteDecider, siteStream, type GroupPosition, type Position, type SiteCommand } from './site.decider';
import type { SiteSectionChanges } from './site.events';
import { pathOf } from './site.paths';

/*
 * The writes of a site's sections, section groups and structure (their order), for its
 * administrators (SiteAccess).
 *
 * Every part of a site (sections, groups, site spaces, share links, settings) is versioned by the
 * site's stream: `ifMatch` is its revision, the site's ETag. Whoever may not change the site is
 * refused (404, 403) whatever the revision: the command processor decides before it compares it.
 */

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
    readonly body: {
      spaceId: string | null;
      title?: string | null;
      icon?: string | null;
      draft?: boolean;
      pageId?: string;
      siteSectionGroupId?: string;
    },
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
    if (body.spaceId === null && body.pageId !== undefined)
      throw DomainError.invalid('pageId names a page of an existing space: it cannot come with spaceId null');
    const space = await this.access.siteSpaceContent(
      organizationId,
      siteId,
      body.spaceId,
      body.title ?? 'Untitled section',
      acting,
      caller,
    );
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
        siteSpace: {
          siteSpaceId: newId(),
          spaceId: space.id,
          path: pathOf(space.title),
          ...(body.pageId !== undefined ? { pageId: body.pageId } : {}),
        },
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
    const command: SiteCommand = {
      kind: 'UpdateSection',
      siteId,
      organizationId,
      sectionId,
      changes,
      ...options,
      ...(await this.access.acting(organizationId, caller)),
      now: this.now(),
    };
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
    const command: SiteCommand = {
      kind: 'RemoveSection',
      siteId,
      organizationId,
      sectionId,
      ...(await this.access.acting(organizationId, caller)),
      now: this.now(),
    };
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
    const command: SiteCommand = {
      kind: 'MoveSection',
      siteId,
      organizationId,
      sectionId,
      position,
      ...(await this.access.acting(organizationId, caller)),
      now: this.now(),
    };
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
      {
        kind: 'AddSectionGroup',
        siteId,
        organizationId,
        groupId,
        title: body.title,
        icon: body.icon ?? null,
        sections: body.sections ?? [],
        ...(draft ? { draft } : {}),
        ...(parent !== undefined ? { parent } : {}),
        ...(await this.access.acting(organizationId, caller)),
        now: this.now(),
      },
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
    const command: SiteCommand = {
      kind: 'UpdateSectionGroup',
      siteId,
      organizationId,
      groupId,
      changes,
      ...(parent !== undefined ? { parent } : {}),
      ...(await this.access.acting(organizationId, caller)),
      now: this.now(),
    };
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
    const command: SiteCommand = {
      kind: 'RemoveSectionGroup',
      siteId,
      organizationId,
      groupId,
      ...(await this.access.acting(organizationId, caller)),
      now: this.now(),
    };
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
    const command: SiteCommand = {
      kind: 'GroupSection',
      siteId,
      organizationId,
      groupId,
      sectionId,
      ...(await this.access.acting(organizationId, caller)),
      now: this.now(),
    };
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
    const command: SiteCommand = {
      kind: 'UngroupSection',
      siteId,
      organizationId,
      groupId,
      sectionId,
      ...(await this.access.acting(organizationId, caller)),
      now: this.now(),
    };
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
    const command: SiteCommand = {
      kind: 'MoveSectionGroup',
      siteId,
      organizationId,
      groupId,
      position,
      ...(await this.access.acting(organizationId, caller)),
      now: this.now(),
    };
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

// ---- structure ---------------------------------------------------------------------------------------

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
    const command: SiteCommand = {
      kind: 'SortStructure',
      siteId,
      organizationId,
      ...sort,
      ...(await this.access.acting(organizationId, caller)),
      now: this.now(),
    };
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

export const siteSectionCommandHandlers = [
  AddSectionHandler,
  UpdateSectionHandler,
  RemoveSectionHandler,
  MoveSectionHandler,
  AddSectionGroupHandler,
  UpdateSectionGroupHandler,
  RemoveSectionGroupHandler,
  GroupSectionHandler,
  UngroupSectionHandler,
  MoveSectionGroupHandler,
  SortSiteStructureHandler,
];
