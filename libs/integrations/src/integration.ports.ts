import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Caller } from '../../platform/src/http/auth';
import { log } from '../../platform/src/logging';
import { IntegrationCommands } from './integration.commands';

/** A reader's view of a published site's page, as sites report it (their SITE_VIEWS port, matched structurally). */
interface SiteView {
  organizationId: string;
  siteId: string;
  spaceId: string;
  pageId: string | null;
  url: string;
  visitor: { claims: Record<string, unknown> };
}

/** Who records views, in the events' metadata. */
const READER: Caller = { kind: 'system', id: 'site-reader', label: 'reader of a published site' };
/** Views being recorded at once; beyond it views are dropped (logged) rather than queued without bound. */
const MAX_IN_FLIGHT = 1000;

/**
 * Implements sites' SITE_VIEWS port: a view becomes a `site_view` integration event for the
 * installations that receive it (IntegrationCommands.recordSiteView). The reader's request never
 * waits for it and never fails because of it: `viewed` hands the view over and returns at once;
 * what goes wrong is logged.
 */
@Injectable()
export class IntegrationsForSites implements OnModuleDestroy {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly commands: IntegrationCommands) {}

  viewed(view: SiteView): Promise<void> {
    if (this.inFlight.size >= MAX_IN_FLIGHT) {
      log.warn({ siteId: view?.siteId }, 'site view dropped: too many views being recorded');
      return Promise.resolve();
    }
    const recording: Promise<void> = Promise.resolve()
      .then(() => this.commands.recordSiteView(view, READER))
      .then(
        () => undefined,
        (error: unknown) => log.warn({ err: error, siteId: view?.siteId }, 'recording a site view failed'),
      )
      .finally(() => this.inFlight.delete(recording));
    this.inFlight.add(recording);
    return Promise.resolve();
  }

  /** Resolves once every view handed over so far is recorded or given up (tests, and the end of the process). */
  async settled(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  onModuleDestroy(): Promise<void> {
    return this.settled();
  }
}
