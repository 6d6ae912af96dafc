import { Command, CommandHandler } from '@nestjs/cqrs';
import type { Caller } from '#platform/http/auth';
import { newId } from '#platform/ids';
import { DecidingHandler } from '#runtime/command-handler';
import { SiteAccess } from './site.access';
import { siteDecider, siteStream, type SiteCommand } from './site.decider';
import type { SiteShareLinkChanges } from './site.events';

/*
 * The writes of a site's share links, for its administrators (SiteAccess).
 *
 * Every part of a site (sections, groups, site spaces, share links, settings) is versioned by the
 * site's stream: `ifMatch` is its revision, the site's ETag. Whoever may not change the site is
 * refused (404, 403) whatever the revision: the command processor decides before it compares it.
 */

// ---- share links -------------------------------------------------------------------------------------

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
      {
        kind: 'CreateShareLink',
        siteId,
        organizationId,
        shareLinkId,
        key: newId(32),
        name: name ?? '',
        by: (caller as { userId: string }).userId,
        ...(await this.access.acting(organizationId, caller)),
        now: this.now(),
      },
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
    const command: SiteCommand = {
      kind: 'UpdateShareLink',
      siteId,
      organizationId,
      shareLinkId,
      changes,
      ...(await this.access.acting(organizationId, caller)),
      now: this.now(),
    };
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
    const command: SiteCommand = {
      kind: 'DeleteShareLink',
      siteId,
      organizationId,
      shareLinkId,
      ...(await this.access.acting(organizationId, caller)),
      now: this.now(),
    };
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

export const siteShareLinkCommandHandlers = [CreateSiteShareLinkHandler, UpdateSiteShareLinkHandler, DeleteSiteShareLinkHandler];
