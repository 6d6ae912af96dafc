/**
 * What the integrations context provides to other contexts: its implementations of ports they
 * declare (sites), matched structurally so that the consumer does not import this context; the
 * composition root binds them. Each injects only the buses and dispatches the context's own
 * queries and commands.
 */
import { Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { log } from '#platform/logging';
import { HandOverSiteView, SiteViewsSettled, type SiteView } from './integration.site-views';

/**
 * Implements sites' SITE_VIEWS port: a view becomes a `site_view` for each installation that
 * receives it, queued in memory for delivery, never appended to the event log (HandOverSiteView).
 * The reader's request never waits for it and never fails because of it: `viewed` returns once the
 * view is handed over, and does not reject; what goes wrong is logged.
 */
@Injectable()
export class IntegrationsForSites {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  viewed(view: SiteView): Promise<void> {
    return this.commandBus
      .execute(new HandOverSiteView(view))
      .catch((error: unknown) => log.warn({ err: error, siteId: view?.siteId }, 'handing a site view over failed'));
  }

  /** Resolves once every view handed over so far is delivered, failed or dropped (tests, and the end of the process). */
  settled(): Promise<void> {
    return this.queryBus.execute(new SiteViewsSettled());
  }
}
