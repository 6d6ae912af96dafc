import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { CLOCK, type Clock } from '../../platform/src/clock';
import { ID_SHAPES } from '../../platform/src/ids';
import { log } from '../../platform/src/logging';
import { READ_STORE, type ReadStore } from '../../read-store/src/read-store.port';
import { siteViewReceivers } from './integration.projections';
import { IntegrationSecrets } from './integration.secrets';
import { siteViewMembers, SiteViewDeliveries, type SiteView } from './integration.site-views';

/** Views whose receivers are being looked up at once; beyond it views are dropped rather than queued without bound. */
const MAX_IN_FLIGHT = 1000;

/**
 * Implements sites' SITE_VIEWS port: a view becomes a `site_view` for each installation that
 * receives it (siteViewReceivers), queued in memory for delivery (SiteViewDeliveries), never
 * appended to the event log. The reader's request never waits for it and never fails because of
 * it: `viewed` hands the view over and returns at once; what goes wrong is logged.
 */
@Injectable()
export class IntegrationsForSites implements OnModuleDestroy {
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
    if (!named(view?.organizationId) || !named(view.siteId) || !named(view.spaceId) || (view.pageId !== null && !named(view.pageId)) || typeof view.url !== 'string') {
      log.warn({ siteId: String(view?.siteId).slice(0, 40) }, 'site view dropped: it does not name a site, a space and a page by their ids');
      return;
    }
    const receivers = await siteViewReceivers(this.reads, view.organizationId, view.siteId);
    if (receivers.length === 0) return;
    const members = siteViewMembers(view, { key: this.secrets.visitorPseudonymKey(), day: this.clock.now().toISOString().slice(0, 10) });
    for (const installation of receivers) this.deliveries.enqueue(installation, members);
  }
}
