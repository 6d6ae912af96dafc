import { Inject } from '@nestjs/common';
import { Command, CommandHandler } from '@nestjs/cqrs';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { newId } from '#platform/ids';
import { KeyedMutex } from '#platform/keyed-mutex';
import { atLeast } from '#platform/permissions';
import { DecidingHandler } from '#runtime/command-handler';
import { SITE_DOMAINS, SITE_SPACES, type SiteDomains, type SiteSpaces } from './sites.needs';
import { SiteAccess } from './site.access';
import { validateAdaptiveSchema } from './site.adaptive';
import { changeableSite, siteDecider, siteHostnameDecider, siteHostnameStream, siteStream, type SiteCommand } from './site.decider';
import { NEW_SPACE, type SiteChanges, type SiteType, type SiteVisibility } from './site.events';
import { pathOf } from './site.paths';

/*
 * The site writes. Creating a site needs the `create` role in the organization; changing one needs
 * `admin` (SiteAccess). Spaces added to a site must be live spaces of its organization. The site's
 * parts are written in site-sections.commands.ts (sections, section groups, the structure),
 * site-spaces.commands.ts and site-share-links.commands.ts.
 *
 * Every part of a site (sections, groups, site spaces, share links, settings) is versioned by the
 * site's stream: `ifMatch` is its revision, the site's ETag. Whoever may not change the site is
 * refused (404, 403) whatever the revision: the command processor decides before it compares it.
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
    const spaceIds =
      body.spaces === NEW_SPACE ? [await this.spaces.createSpace(organizationId, body.title ?? 'Docs', caller)] : (body.spaces ?? []);
    for (const spaceId of spaceIds)
      siteSpaces.push({ siteSpaceId: newId(), spaceId, path: pathOf((await this.access.space(organizationId, spaceId)).title) });
    await this.decide(
      siteStream(siteId),
      siteDecider,
      {
        kind: 'CreateSite',
        siteId,
        organizationId,
        type: body.type ?? 'basic',
        title: body.title ?? 'Docs',
        visibility: body.visibility ?? 'public',
        siteSpaces,
        by: (caller as { userId: string }).userId,
        allowed: atLeast(role, 'create'),
        now: this.now(),
      },
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
      await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
    };
    // A style guide is a space of the site's organization (only its administrators learn which ids are not).
    if (typeof changes.styleguide === 'string' && (await this.access.administers(organizationId, siteId, acting)))
      await this.access.space(organizationId, changes.styleguide);
    if (changes.hostname === undefined) return apply();
    await this.hostnameChanges.run(siteId, async () => {
      const { state, revision } = await this.load(siteStream(siteId), siteDecider);
      // No site of this organization, a caller who may not change it, or a stale If-Match: refused before any hostname is claimed.
      const site = changeableSite(command, state);
      if (site instanceof DomainError) throw site;
      if (ifMatch !== undefined && ifMatch !== revision)
        throw DomainError.preconditionFailed(
          `the resource has changed: If-Match names revision ${ifMatch} but it is at ${revision ?? 'none'}`,
        );
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
    await this.decide(
      siteHostnameStream(hostname),
      siteHostnameDecider,
      { kind: 'ClaimSiteHostname', hostname, siteId, organizationId, verifiedDomains },
      { caller, wait: false },
    );
  }

  private async release(hostname: string, siteId: string, caller: Caller): Promise<void> {
    await this.decide(
      siteHostnameStream(hostname),
      siteHostnameDecider,
      { kind: 'ReleaseSiteHostname', hostname, siteId },
      { caller, wait: false },
    );
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
    const command: SiteCommand = {
      kind: 'PublishSite',
      siteId,
      organizationId,
      published,
      ...(await this.access.acting(organizationId, caller)),
      now: this.now(),
    };
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
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
    if (hostname !== null)
      await this.decide(
        siteHostnameStream(hostname),
        siteHostnameDecider,
        { kind: 'ReleaseSiteHostname', hostname, siteId },
        { caller, wait: false },
      );
  }
}

// ---- visitor authentication -------------------------------------------------------------------------

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
    const command: SiteCommand = {
      kind: 'ConfigureVisitorAuth',
      siteId,
      organizationId,
      ...settings,
      ...(await this.access.acting(organizationId, caller)),
      now: this.now(),
    };
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
    const command: SiteCommand = {
      kind: 'RotateVisitorKey',
      siteId,
      organizationId,
      ...(await this.access.acting(organizationId, caller)),
      now: this.now(),
    };
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

// ---- adaptive content ---------------------------------------------------------------------------------

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
    await this.decide(siteStream(siteId), siteDecider, command, { caller, ifMatch });
  }
}

export const siteCommandHandlers = [
  CreateSiteHandler,
  UpdateSiteHandler,
  PublishSiteHandler,
  DeleteSiteHandler,
  ConfigureVisitorAuthHandler,
  RotateVisitorKeyHandler,
  SetAdaptiveSchemaHandler,
];
