import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, Optional, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { LRUCache } from 'lru-cache';
import { BLOB_STORE, type BlobStore } from '#blob-store/blob-store.port';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { log } from '#platform/logging';
import { UNTRUSTED_WORK, type UntrustedWork } from '#platform/untrusted-work/untrusted-work';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { COMMAND_RUNNER, type CommandRunner } from '#runtime/command-runner';
import { PROJECTION_RUNNER, type ProjectionsReady } from '#runtime/projections-ready';
import { deliverToTunnel } from './delivery/tunnel-delivery';
import { ClaimDeliveries, RecordProcessed } from './integration-deliveries.commands';
import { policyText } from './integration.content-security-policy';
import { integrationDecider, integrationStream, type IntegrationState } from './integration.decider';
import { IntegrationEventPresenter } from './integration.event-presenter';
import type { TraceLog } from './integration.events';
import {
  INSTALLATIONS,
  INTEGRATION_EVENTS,
  INTEGRATIONS,
  type InstallationDoc,
  type IntegrationDoc,
  type IntegrationEventDoc,
} from './integration.projections';
import { IntegrationSecrets } from './integration.secrets';
import { renderComponentInPool, runEventHandlerInPool } from './sandbox/pooled-sandbox';
import type { ScriptFetchPolicy } from './sandbox/script-fetch';

/** How often an idle worker looks for new integration events when the read store cannot tell it of new ones. */
const IDLE_POLL_MS = 20;
/** When an event could not be processed and nothing else wakes the worker, when it tries again. */
const RETRY_MS = 1000;
/** How long a claim on an installation's deliveries lasts; renewed at half. */
const LEASE_MS = 30_000;
const BATCH = 200;
/** Who records deliveries, in the events' metadata. */
const WORKER: Caller = { kind: 'system', id: 'integrations-worker', label: 'integrations worker' };

// Scripts' fetch is built from plain data by the thread that runs the script (sandbox/script-fetch.ts).
export { connectSources, scriptFetch } from './sandbox/script-fetch';

/**
 * Runs what integrations define: each integration event goes to the integration's development
 * tunnel while one is set (signed, retried; to the owner's installations, or every one with `all`),
 * otherwise to the script's handler in the sandbox; the outcome and its trace are recorded as
 * `IntegrationEventProcessed`. Events of one installation are processed in order, one at a time;
 * an event not yet recorded when the process stops is processed again after a restart (at least
 * once; receivers de-duplicate by `eventId`). It also renders the script's UI components.
 *
 * Embedded mode runs the worker in the service, from the moment the projections have caught up
 * (`PROJECTION_RUNNER`), woken by the read store's commits that write integration events (the
 * projection deriving them from the log, and recording their processing): no timer polls while it
 * is idle, and a pending event is read as soon as it is committed. Distributed mode runs it where
 * INTEGRATIONS_WORKER=true: the `integrations-worker` app, in any number of replicas, each
 * installation's deliveries held by one of them at a time (a lease on its delivery stream).
 */
@Injectable()
export class IntegrationRuntime implements OnApplicationBootstrap, OnModuleDestroy {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Set while the read store tells of every commit of integration events: then no timer polls. */
  private woken = false;
  private unsubscribe: (() => void) | undefined;
  private ticking = false;
  /** A wake-up came while a tick ran, or is queued: one more tick follows. */
  private wakeQueued = false;
  private readonly busy = new Set<string>();
  /** Events processed by this process whose record the read model may not show yet. */
  private readonly processed = new LRUCache<string, true>({ max: 100_000 });
  /**
   * This worker, in claims and records. Embedded mode has one process per data directory, so its
   * worker keeps one name across restarts (a restart after a crash holds what it held); replicas
   * of the distributed worker each have their own, and take over a dead one's installations once
   * its lease has passed.
   */
  private readonly worker: string;
  /** The installations this worker holds, until when. */
  private readonly leases = new Map<string, number>();

  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly commandBus: CommandBus,
    @Inject(COMMAND_RUNNER) private readonly runner: CommandRunner,
    private readonly secrets: IntegrationSecrets,
    @Inject(UNTRUSTED_WORK) private readonly work: UntrustedWork,
    private readonly presenter: IntegrationEventPresenter,
    @Optional() @Inject(PROJECTION_RUNNER) private readonly projections: ProjectionsReady | null = null,
  ) {
    this.worker = config.eventStoreUrl === undefined ? 'embedded' : `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  }

  onApplicationBootstrap(): void {
    const enabled =
      process.env.INTEGRATIONS_WORKER === undefined ? this.config.eventStoreUrl === undefined : process.env.INTEGRATIONS_WORKER === 'true';
    // Not before the read models have caught up: until then an event delivered before this start can
    // still read as pending (its record not replayed yet), and would be delivered again.
    if (enabled) void (this.projections?.whenCaughtUp() ?? Promise.resolve()).then(() => this.start());
  }

  onModuleDestroy(): void {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
  }

  private start(): void {
    if (this.stopped) return;
    if (this.reads.onChange) {
      this.woken = true;
      this.unsubscribe = this.reads.onChange((change) => {
        if (change.has(INTEGRATION_EVENTS)) this.wake();
      });
    }
    this.wake();
  }

  /** A tick as soon as the current one (if any) is done, without a timer: told synchronously within a commit, it runs after it. */
  private wake(): void {
    if (this.stopped || this.wakeQueued) return;
    this.wakeQueued = true;
    if (this.ticking) return;
    queueMicrotask(() => void this.tick());
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.wake();
    }, ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.wakeQueued = false;
    this.ticking = true;
    let found = 0;
    try {
      const pending = await this.reads
        .collection<IntegrationEventDoc>(INTEGRATION_EVENTS)
        .find({ status: 'pending' }, { sort: { sequence: 1 }, limit: BATCH, count: false });
      const byInstallation = new Map<string, IntegrationEventDoc[]>();
      for (const event of pending.items) {
        if (this.processed.has(event._id)) continue;
        found += 1;
        const queue = byInstallation.get(event.installationId) ?? [];
        queue.push(event);
        byInstallation.set(event.installationId, queue);
      }
      for (const [installationId, queue] of byInstallation) {
        if (this.busy.has(installationId)) continue;
        this.busy.add(installationId);
        void this.drain(queue).finally(() => this.busy.delete(installationId));
      }
    } catch (error) {
      log.error({ err: error }, 'integration worker: reading pending events failed');
      if (this.woken) this.schedule(RETRY_MS);
    }
    this.ticking = false;
    if (this.stopped) return;
    // Woken by commits: what a drain records, and every new event, wakes the worker again.
    if (this.wakeQueued) queueMicrotask(() => void this.tick());
    else if (!this.woken) this.schedule(found > 0 ? 0 : IDLE_POLL_MS);
  }

  /** Whether this worker holds the installation's deliveries (claiming or renewing the lease when it must). */
  private async holds(event: IntegrationEventDoc): Promise<boolean> {
    const until = this.leases.get(event.installationId) ?? 0;
    if (until - Date.now() > LEASE_MS / 2) return true;
    const next = Date.now() + LEASE_MS;
    const claimed = await this.commandBus.execute(
      new ClaimDeliveries(
        { installationId: event.installationId, integrationName: event.integrationName, organizationId: event.organizationId },
        this.worker,
        new Date(next),
        WORKER,
      ),
    );
    if (claimed) this.leases.set(event.installationId, next);
    else this.leases.delete(event.installationId);
    return claimed;
  }

  private async drain(queue: readonly IntegrationEventDoc[]): Promise<void> {
    for (const event of queue) {
      if (this.stopped) return;
      try {
        // Another replica holds this installation: its events are that replica's (tried again once its lease may have passed).
        if (!(await this.holds(event))) {
          if (this.woken) this.schedule(LEASE_MS / 2);
          return;
        }
        const { status, logs } = await this.process(event);
        await this.commandBus.execute(
          new RecordProcessed(
            {
              eventId: event._id,
              installationId: event.installationId,
              integrationName: event.integrationName,
              organizationId: event.organizationId,
            },
            this.worker,
            status,
            logs,
            WORKER,
          ),
        );
        this.processed.set(event._id, true);
      } catch (error) {
        // Left pending: the next tick tries again (the order of this installation's events is kept).
        log.error({ err: error, eventId: event._id }, 'integration worker: processing an event failed');
        if (this.woken) this.schedule(RETRY_MS);
        return;
      }
    }
  }

  /** Delivers one event: tunnel, else script, else nothing to run. */
  async process(event: IntegrationEventDoc): Promise<{ status: 'success' | 'failed'; logs: TraceLog[] }> {
    const now = () => new Date().toISOString();
    const integration = await this.reads.collection<IntegrationDoc>(INTEGRATIONS).get(event.integrationName);
    if (!integration || integration.deleted)
      return { status: 'failed', logs: [{ message: `integration ${event.integrationName} is deleted`, timestamp: now(), level: 'error' }] };
    const state = await this.integrationState(event.integrationName);
    // What the integration receives is the event itself, as its runtime reads it, to the tunnel and to the script alike.
    const body = (await this.presenter.event(event.payload)) as { eventId: string; type: string } & Record<string, unknown>;
    if (integration.dev && (integration.dev.all || integration.organizationId === event.organizationId) && state.published) {
      const outcome = await deliverToTunnel(integration.dev.tunnelUrl, body, {
        secret: this.secrets.open(state.published.signingSecret),
        maxAttempts: 6,
        baseDelayMs: 200,
        maxDelayMs: 10_000,
        timeoutMs: 10_000,
        allowPrivateNetworks: this.config.integrationsAllowPrivateNetworks,
      });
      const logs: TraceLog[] = outcome.attempts.map((attempt, index) => ({
        message: `delivery attempt ${index + 1} to the tunnel: ${attempt.status !== undefined ? `HTTP ${attempt.status}` : (attempt.error ?? 'no answer')} in ${attempt.durationMs} ms`,
        timestamp: attempt.at,
        level: attempt.status !== undefined && attempt.status < 300 ? 'info' : 'warn',
      }));
      return {
        status: outcome.delivered ? 'success' : 'failed',
        logs: outcome.delivered ? logs : [...logs, { message: 'delivery failed: no attempt succeeded', timestamp: now(), level: 'error' }],
      };
    }
    if (integration.definition.script) {
      const script = (await this.blobs.read(integration.definition.script)).toString('utf8');
      const environment = await this.environment(integration, event.installationId, state);
      const outcome = await runEventHandlerInPool(this.work, {
        script,
        event: body,
        context: { environment },
        fetch: this.fetchPolicy(integration),
      });
      return {
        status: outcome.ok ? 'success' : 'failed',
        logs: outcome.ok
          ? outcome.logs
          : [...outcome.logs, { message: `script failed: ${outcome.error ?? 'unknown error'}`, timestamp: now(), level: 'error' }],
      };
    }
    return {
      status: 'success',
      logs: [{ message: 'no development tunnel and no script: nothing to deliver to', timestamp: now(), level: 'info' }],
    };
  }

  /** `POST|GET /integrations/{name}/render`: the script's component, rendered in the sandbox. */
  async render(
    integration: IntegrationDoc,
    request: {
      componentId: string;
      props: Record<string, unknown>;
      state: Record<string, unknown>;
      context: Record<string, unknown>;
      action?: unknown;
    },
  ) {
    if (!integration.definition.script)
      throw DomainError.notFound(`integration ${integration._id} has no script to render components with`);
    const script = (await this.blobs.read(integration.definition.script)).toString('utf8');
    const state = await this.integrationState(integration._id);
    const environment = await this.environment(integration, null, state);
    const outcome = await renderComponentInPool(this.work, {
      script,
      request: { ...request, context: { ...request.context, environment } },
      fetch: this.fetchPolicy(integration),
    });
    if (!outcome.ok || !outcome.result)
      throw new DomainError(422, `the component ${request.componentId} could not be rendered: ${outcome.error ?? 'no result'}`);
    const element = outcome.result.element as { children?: unknown; controls?: unknown } | null;
    return {
      type: 'element' as const,
      element: { type: 'block' as const, children: element?.children ?? [], controls: element?.controls ?? [] },
      state: outcome.result.state,
      props: request.props,
    };
  }

  /** The integration's stream state: its sealed secrets and signing secret are in no read model. */
  private async integrationState(name: string): Promise<IntegrationState> {
    return (await this.runner.load(integrationStream(name), integrationDecider)).state;
  }

  /** Where the integration's script may fetch from, as plain data for the thread that runs it. */
  private fetchPolicy(integration: IntegrationDoc): ScriptFetchPolicy {
    return {
      contentSecurityPolicy: policyText(integration.definition.contentSecurityPolicy),
      allowPrivateNetworks: this.config.integrationsAllowPrivateNetworks,
    };
  }

  /** What a script sees of where it runs: the installation's configuration and the integration's secrets (opened only here). */
  private async environment(integration: IntegrationDoc, installationId: string | null, state: IntegrationState) {
    const installation = installationId === null ? null : await this.reads.collection<InstallationDoc>(INSTALLATIONS).get(installationId);
    const sealed = state.published?.secrets ?? null;
    return {
      integration: { name: integration._id, version: integration.version },
      installation: installation ? { id: installation._id, configuration: installation.configuration } : null,
      secrets: sealed === null ? {} : (JSON.parse(this.secrets.open(sealed)) as Record<string, string>),
    };
  }
}
