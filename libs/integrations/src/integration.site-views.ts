import { createHmac, randomUUID } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { Inject, Injectable, Optional, type OnModuleDestroy } from '@nestjs/common';
import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '#platform/clock';
import { ID_SHAPES } from '#platform/ids';
import { log } from '#platform/logging';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { siteViewReceivers, type InstallationDoc, type IntegrationEventDoc } from './integration.projections';
import { IntegrationRuntime } from './integration.runtime';
import { IntegrationSecrets } from './integration.secrets';

/**
 * A reader's view of a published site's page as sites hand it over (their SITE_VIEWS port, matched
 * structurally): the request's facts, before what integrations may see of them is decided
 * (siteViewMembers). `referrer`, `visitor.ip` and `visitor.userAgent` are the request's Referer,
 * client address and User-Agent; absent, nothing is known of them.
 */
export interface SiteView {
  organizationId: string;
  siteId: string;
  spaceId: string;
  pageId: string | null;
  url: string;
  referrer?: string;
  visitor: { claims: Record<string, unknown>; ip?: string; userAgent?: string };
}

/** What the visitor is to integrations: the platform's EventVisitor, with the visitor's verified claims (extension). */
export interface EventVisitor {
  anonymousId: string;
  cookies: Record<string, string>;
  userAgent: string;
  ip: string;
  claims: Record<string, unknown>;
}

/** `site_view`'s members (besides `eventId`, `type`, `installationId`). */
export interface SiteViewMembers {
  siteId: string;
  spaceId: string;
  pageId?: string;
  url: string;
  referrer: string;
  visitor: EventVisitor;
}

/**
 * Bounds of what views hold and of the queue: a view carries a URL and a referrer cut at
 * `maxUrlLength` characters, a user agent cut at `maxUserAgentLength`, and claims whose JSON is at
 * most `maxClaimsBytes` (larger ones are left out); the queue holds at most `maxViews` views in all,
 * `maxViewsPerInstallation` for one installation and `maxBytes` of them, each for `ttlMs` (then it
 * is dropped undelivered); `concurrentInstallations` are delivered to at a time, each one view after
 * the other.
 */
export const SITE_VIEW_LIMITS = {
  maxUrlLength: 2048,
  maxUserAgentLength: 512,
  maxClaimsBytes: 2048,
  maxViews: 10_000,
  maxViewsPerInstallation: 1_000,
  maxBytes: 16 * 1024 * 1024,
  ttlMs: 5 * 60_000,
  concurrentInstallations: 8,
};
export type SiteViewLimits = typeof SITE_VIEW_LIMITS;
/** Other bounds than SITE_VIEW_LIMITS (unit tests). */
export const SITE_VIEW_LIMITS_OVERRIDE = Symbol('SITE_VIEW_LIMITS_OVERRIDE');

/**
 * The reader's address as integrations see it: the network, not the reader (an IPv4 address with
 * its last byte zeroed, a /24; an IPv6 one cut to its /48, IPv4-mapped ones read as IPv4). Sites have
 * no setting that shares readers' whole addresses; anything that is not an address is ''.
 */
export function truncatedAddress(address: string | undefined): string {
  if (typeof address !== 'string' || !ipaddr.isValid(address)) return '';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (parsed.kind() === 'ipv4') return ipaddr.IPv4.networkAddressFromCIDR(`${parsed.toString()}/24`).toString();
  return ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/48`).toString();
}

/**
 * The page that linked to the one viewed: the Referer's origin and path. Its query and fragment
 * (where search terms, tokens and the like travel) and any user name or password are left out;
 * what is not an http(s) URL is ''.
 */
export function referrerOf(referrer: string | undefined, maxLength = SITE_VIEW_LIMITS.maxUrlLength): string {
  if (typeof referrer !== 'string' || referrer.length > 8192) return '';
  let url: URL;
  try {
    url = new URL(referrer);
  } catch {
    return '';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return '';
  return `${url.origin}${url.pathname}`.slice(0, maxLength);
}

/**
 * GitBook's `anonymousId`, here a pseudonym of the reader on one site for one day: an HMAC, under a
 * key of the service's, of the site, the day (UTC), the reader's whole address and user agent. The
 * same reader reads as the same visitor all day on a site, and as another one the next day or on
 * another site; without the key nobody can tell the address back from it.
 */
export function anonymousIdOf(key: Buffer, siteId: string, day: string, address: string, userAgent: string): string {
  return createHmac('sha256', key).update(`${day}\n${siteId}\n${address}\n${userAgent}`).digest('hex').slice(0, 32);
}

/**
 * What an installation receives of a view: the URL (secrets were taken out of it by sites), the
 * referrer's origin and path, and the visitor: a pseudonym (anonymousIdOf), the user agent, the
 * address truncated (truncatedAddress), the verified claims (extension; the installation holds
 * `site:views:read`), and no cookies: the only cookies the service sets for a site's readers hold
 * their share key and visitor token, which are secrets, and any other cookie sent to a site's host
 * (a custom hostname is the customer's own domain) belongs to another application, which readers
 * never agreed to share.
 */
export function siteViewMembers(
  view: SiteView,
  pseudonym: { key: Buffer; day: string },
  limits: Pick<SiteViewLimits, 'maxUrlLength' | 'maxUserAgentLength' | 'maxClaimsBytes'> = SITE_VIEW_LIMITS,
): SiteViewMembers {
  const claims = JSON.stringify(view.visitor?.claims ?? {});
  const address = typeof view.visitor?.ip === 'string' ? view.visitor.ip : '';
  const userAgent = typeof view.visitor?.userAgent === 'string' ? view.visitor.userAgent.slice(0, limits.maxUserAgentLength) : '';
  const visitor: EventVisitor = {
    anonymousId: anonymousIdOf(pseudonym.key, view.siteId, pseudonym.day, address, userAgent),
    cookies: {},
    userAgent,
    ip: truncatedAddress(address),
    claims: Buffer.byteLength(claims) <= limits.maxClaimsBytes ? (JSON.parse(claims) as Record<string, unknown>) : {},
  };
  const members: SiteViewMembers = {
    siteId: view.siteId,
    spaceId: view.spaceId,
    url: String(view.url).slice(0, limits.maxUrlLength),
    referrer: referrerOf(view.referrer, limits.maxUrlLength),
    visitor,
  };
  if (view.pageId !== null) members.pageId = view.pageId;
  return members;
}

interface QueuedView {
  event: IntegrationEventDoc;
  expiresAt: number;
  bytes: number;
}

/**
 * Delivers `site_view` integration events from a bounded, expiring queue in memory. Views are
 * frequent and are no change to anything, so they stay out of the event log: a view is handed to
 * each installation that receives it, delivered like any integration event (development tunnel,
 * else the script's handler: IntegrationRuntime.process), and forgotten. Hence at most once, in the
 * process that served the page (the API replica, in distributed mode too), not in `…/events`, and
 * lost when the queue is full, when a view waits longer than `ttlMs`, or when the process stops.
 */
@Injectable()
export class SiteViewDeliveries implements OnModuleDestroy {
  private readonly queues = new Map<string, QueuedView[]>();
  private readonly delivering = new Map<string, Promise<void>>();
  private views = 0;
  private bytes = 0;
  private full = false;
  private stopped = false;
  private readonly limits: SiteViewLimits;

  constructor(
    private readonly runtime: IntegrationRuntime,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() @Inject(SITE_VIEW_LIMITS_OVERRIDE) limits?: SiteViewLimits,
  ) {
    this.limits = limits ?? SITE_VIEW_LIMITS;
  }

  /** Queues the view for the installation; false when the queue has no room for it (the view is dropped). */
  enqueue(installation: Pick<InstallationDoc, '_id' | 'integrationName' | 'organizationId'>, view: SiteViewMembers): boolean {
    if (this.stopped) return false;
    const eventId = randomUUID();
    const now = this.clock.now();
    const event: IntegrationEventDoc = {
      _id: eventId,
      integrationName: installation.integrationName,
      installationId: installation._id,
      organizationId: installation.organizationId,
      createdAt: now.toISOString(),
      payload: { eventId, type: 'site_view', installationId: installation._id, ...view },
      status: 'pending',
      sequence: '',
      logs: [],
    };
    const bytes = Buffer.byteLength(JSON.stringify(event));
    const queue = this.queues.get(installation._id) ?? [];
    if (
      this.views >= this.limits.maxViews ||
      this.bytes + bytes > this.limits.maxBytes ||
      queue.length >= this.limits.maxViewsPerInstallation
    ) {
      if (!this.full)
        log.warn(
          { views: this.views, bytes: this.bytes, installationId: installation._id },
          'site views dropped: the delivery queue is full',
        );
      this.full = true;
      return false;
    }
    this.full = false;
    queue.push({ event, expiresAt: now.getTime() + this.limits.ttlMs, bytes });
    this.queues.set(installation._id, queue);
    this.views += 1;
    this.bytes += bytes;
    this.pump();
    return true;
  }

  /** Resolves once every view queued so far is delivered, failed or dropped (tests, and the end of the process). */
  async settled(): Promise<void> {
    while (this.delivering.size > 0) await Promise.all([...this.delivering.values()]);
  }

  onModuleDestroy(): void {
    // Views still queued are lost with the process, as documented; the one being delivered finishes.
    this.stopped = true;
    for (const queue of this.queues.values()) for (const entry of queue) this.forget(entry);
    this.queues.clear();
  }

  /** Starts delivering to installations with views waiting, up to `concurrentInstallations` at a time. */
  private pump(): void {
    for (const installationId of this.queues.keys()) {
      if (this.delivering.size >= this.limits.concurrentInstallations) return;
      if (this.delivering.has(installationId)) continue;
      const run = this.drain(installationId).finally(() => {
        this.delivering.delete(installationId);
        this.pump();
      });
      this.delivering.set(installationId, run);
    }
  }

  /** Delivers one installation's views in order, one at a time, until its queue is empty. */
  private async drain(installationId: string): Promise<void> {
    while (!this.stopped) {
      const queue = this.queues.get(installationId);
      const next = queue?.shift();
      if (!queue || !next) {
        this.queues.delete(installationId);
        return;
      }
      if (queue.length === 0) this.queues.delete(installationId);
      this.forget(next);
      if (next.expiresAt <= this.clock.now().getTime()) continue;
      try {
        const outcome = await this.runtime.process(next.event);
        if (outcome.status === 'failed')
          log.warn({ installationId, eventId: next.event._id, logs: outcome.logs.slice(-3) }, 'a site_view delivery failed');
      } catch (error) {
        log.warn({ err: error, installationId, eventId: next.event._id }, 'a site_view delivery failed');
      }
    }
  }

  private forget(entry: QueuedView): void {
    this.views -= 1;
    this.bytes -= entry.bytes;
  }
}

/** Views whose receivers are being looked up at once; beyond it views are dropped rather than queued without bound. */
const MAX_IN_FLIGHT = 1000;

/**
 * Hands readers' views over (sites' SITE_VIEWS port, through IntegrationsForSites and
 * HandOverSiteView): a view becomes a `site_view` for each installation that receives it
 * (siteViewReceivers), queued in memory for delivery (SiteViewDeliveries), never appended to the
 * event log. The reader's request never waits for it and never fails because of it: `viewed` hands
 * the view over and returns at once; what goes wrong is logged.
 */
@Injectable()
export class SiteViewHandOver implements OnModuleDestroy {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly deliveries: SiteViewDeliveries,
    private readonly secrets: IntegrationSecrets,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  viewed(view: SiteView): Promise<void> {
    if (this.inFlight.size >= MAX_IN_FLIGHT) {
      log.warn({ siteId: view?.siteId }, 'site view dropped: too many views being handed over');
      return Promise.resolve();
    }
    const handing: Promise<void> = Promise.resolve()
      .then(() => this.handOver(view))
      .catch((error: unknown) => log.warn({ err: error, siteId: view?.siteId }, 'handing a site view over failed'))
      .finally(() => this.inFlight.delete(handing));
    this.inFlight.add(handing);
    return Promise.resolve();
  }

  /** Resolves once every view handed over so far is delivered, failed or dropped (tests, and the end of the process). */
  async settled(): Promise<void> {
    await Promise.all([...this.inFlight]);
    await this.deliveries.settled();
  }

  onModuleDestroy(): Promise<void> {
    return Promise.all([...this.inFlight]).then(() => undefined);
  }

  private async handOver(view: SiteView): Promise<void> {
    const entity = ID_SHAPES.entity;
    const named = (id: unknown) => typeof id === 'string' && entity.test(id);
    if (
      !named(view?.organizationId) ||
      !named(view.siteId) ||
      !named(view.spaceId) ||
      (view.pageId !== null && !named(view.pageId)) ||
      typeof view.url !== 'string'
    ) {
      log.warn(
        { siteId: String(view?.siteId).slice(0, 40) },
        'site view dropped: it does not name a site, a space and a page by their ids',
      );
      return;
    }
    const receivers = await siteViewReceivers(this.reads, view.organizationId, view.siteId);
    if (receivers.length === 0) return;
    const members = siteViewMembers(view, { key: this.secrets.visitorPseudonymKey(), day: this.clock.now().toISOString().slice(0, 10) });
    for (const installation of receivers) this.deliveries.enqueue(installation, members);
  }
}

/*
 * What IntegrationsForSites dispatches (integrations.provides.ts). They live here rather than in
 * integration.commands.ts / integration.queries.ts: this file imports the runtime, which imports
 * integration.commands.ts, so handlers there depending on SiteViewHandOver would close an import
 * cycle.
 */

/** A reader viewed a page of a published site: hand the view over (SiteViewHandOver.viewed); answers at once, whatever becomes of the view. */
export class HandOverSiteView extends Command<void> {
  constructor(readonly view: SiteView) {
    super();
  }
}

@CommandHandler(HandOverSiteView)
export class HandOverSiteViewHandler implements ICommandHandler<HandOverSiteView> {
  constructor(private readonly handOver: SiteViewHandOver) {}

  execute({ view }: HandOverSiteView): Promise<void> {
    return this.handOver.viewed(view);
  }
}

/** Resolves once every view handed over so far is delivered, failed or dropped (tests, and the end of the process). */
export class SiteViewsSettled extends Query<void> {}

@QueryHandler(SiteViewsSettled)
export class SiteViewsSettledHandler implements IQueryHandler<SiteViewsSettled> {
  constructor(private readonly handOver: SiteViewHandOver) {}

  execute(): Promise<void> {
    return this.handOver.settled();
  }
}

export const siteViewHandlers = [HandOverSiteViewHandler, SiteViewsSettledHandler];
