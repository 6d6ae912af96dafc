import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Optional, type OnModuleDestroy } from '@nestjs/common';
import { CLOCK, type Clock } from '../../platform/src/clock';
import { log } from '../../platform/src/logging';
import type { InstallationDoc, IntegrationEventDoc } from './integration.projections';
import { IntegrationRuntime } from './integration.runtime';

/** A reader's view of a published site's page, as it reaches an installation (`site_view`'s members). */
export interface SiteViewMembers {
  siteId: string;
  spaceId: string;
  pageId: string | null;
  url: string;
  visitor: { claims: Record<string, unknown> };
}

/**
 * Bounds of what views hold and of the queue: a view carries a URL cut at `maxUrlLength` characters
 * and claims whose JSON is at most `maxClaimsBytes` (larger ones are left out); the queue holds at
 * most `maxViews` views in all, `maxViewsPerInstallation` for one installation and `maxBytes` of
 * them, each for `ttlMs` (then it is dropped undelivered); `concurrentInstallations` are delivered
 * to at a time, each one view after the other.
 */
export const SITE_VIEW_LIMITS = {
  maxUrlLength: 2048,
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

/** What a view keeps of the reader's URL and claims (SITE_VIEW_LIMITS). */
export function boundedView(view: SiteViewMembers, limits: Pick<SiteViewLimits, 'maxUrlLength' | 'maxClaimsBytes'> = SITE_VIEW_LIMITS): SiteViewMembers {
  const claims = JSON.stringify(view.visitor?.claims ?? {});
  return {
    siteId: view.siteId,
    spaceId: view.spaceId,
    pageId: view.pageId,
    url: String(view.url).slice(0, limits.maxUrlLength),
    visitor: { claims: Buffer.byteLength(claims) <= limits.maxClaimsBytes ? (JSON.parse(claims) as Record<string, unknown>) : {} },
  };
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
    if (this.views >= this.limits.maxViews || this.bytes + bytes > this.limits.maxBytes || queue.length >= this.limits.maxViewsPerInstallation) {
      if (!this.full) log.warn({ views: this.views, bytes: this.bytes, installationId: installation._id }, 'site views dropped: the delivery queue is full');
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
        if (outcome.status === 'failed') log.warn({ installationId, eventId: next.event._id, logs: outcome.logs.slice(-3) }, 'a site_view delivery failed');
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
