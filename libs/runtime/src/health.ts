import type { LogPosition } from '#event-store/event-store.port';
import { CHECKPOINTS } from '#read-store/projections/projection-runner';
import type { Runtime } from './runtime.module';
import { readReactorProgress } from './reactor-checkpoint';

export interface HealthReport {
  status: 'ok' | 'starting' | 'unavailable';
  mode: 'embedded' | 'distributed';
  stores: Record<'eventStore' | 'readStore' | 'blobStore', { ok: boolean; detail?: string }>;
  projections: {
    caughtUp: boolean;
    checkpoint: string | null;
    head: string | null;
    lagEvents: number | null;
    lastError: string | null;
  };
  /** Each reactor: caught up once it has processed the log as it was when it subscribed. */
  reactors: Array<{
    name: string;
    caughtUp: boolean;
    checkpoint: string | null;
    lagEvents: number | null;
    /** The error of a reaction being retried: the reactor is stuck behind it. */
    failing: string | null;
  }>;
}

/**
 * `/health`: store connectivity, projection and reactor lag. `ok` (200) once every store answers
 * and the projections have caught up; `starting` while they catch up; `unavailable` when a store
 * does not answer (both 503). Reactors are reported (caught up, lag, a failing reaction) without
 * deciding the status: the read models are complete without them, and a reactor stuck on a failing
 * reaction must not take the service out of rotation (`reactor_caught_up` and `reactor_lag_events`
 * are what to alert on).
 */
export async function healthReport(runtime: Runtime): Promise<HealthReport> {
  const { stores } = runtime;
  const [eventStore, readStore, blobStore] = await Promise.all([
    stores.events.health().catch((e: Error) => ({ ok: false, detail: e.message })),
    stores.reads.health().catch((e: Error) => ({ ok: false, detail: e.message })),
    stores.blobs.health().catch((e: Error) => ({ ok: false, detail: e.message })),
  ]);
  const head: LogPosition | null = eventStore.ok ? await stores.events.headPosition().catch(() => null) : null;
  let projections: HealthReport['projections'];
  if (runtime.runner) {
    const status = await runtime.runner.status().catch((error: Error) => ({
      caughtUp: false,
      checkpoint: runtime.runner!.position(),
      head: null,
      lagEvents: null,
      lastError: error.message,
    }));
    projections = {
      caughtUp: status.caughtUp,
      checkpoint: status.checkpoint?.toString() ?? null,
      head: status.head?.toString() ?? null,
      lagEvents: status.lagEvents,
      lastError: status.lastError,
    };
    if (status.lagEvents !== null) runtime.metrics.projectionLag.set(status.lagEvents);
  } else {
    const stored = readStore.ok
      ? await stores.reads
          .collection(CHECKPOINTS)
          .get('main')
          .catch(() => null)
      : null;
    const checkpoint = typeof stored?.position === 'string' ? BigInt(stored.position) : null;
    projections = {
      caughtUp: head === null || (checkpoint !== null && checkpoint >= head),
      checkpoint: checkpoint?.toString() ?? null,
      head: head?.toString() ?? null,
      lagEvents: null,
      lastError: null,
    };
  }
  const reactors = await reactorHealth(runtime, head, readStore.ok);
  const storesOk = eventStore.ok && readStore.ok && blobStore.ok;
  return {
    status: !storesOk ? 'unavailable' : projections.caughtUp ? 'ok' : 'starting',
    mode: stores.mode,
    stores: { eventStore, readStore, blobStore },
    projections,
    reactors,
  };
}

async function reactorHealth(runtime: Runtime, head: LogPosition | null, readStoreOk: boolean): Promise<HealthReport['reactors']> {
  const { metrics } = runtime;
  const counted = head !== null && head < 1n << 64n;
  const lag = (checkpoint: LogPosition | null) => (counted ? Math.max(0, Number(head - (checkpoint ?? 0n))) : null);
  const report: HealthReport['reactors'] = [];
  if (runtime.runner) {
    for (const reactor of runtime.reactors) {
      const status = await reactor.status().catch(() => null);
      const checkpoint = status?.checkpoint ?? reactor.position();
      report.push({
        name: reactor.name,
        caughtUp: status?.caughtUp ?? false,
        checkpoint: checkpoint?.toString() ?? null,
        lagEvents: lag(checkpoint),
        failing: status?.failing ?? null,
      });
    }
  } else {
    // Another process (the projector) runs them: their checkpoints tell.
    const progress = readStoreOk ? await readReactorProgress(runtime.stores.reads, runtime.reactorNames).catch(() => null) : null;
    for (const name of runtime.reactorNames) {
      const stored = progress?.get(name) ?? null;
      const checkpoint = typeof stored?.position === 'string' ? BigInt(stored.position) : null;
      report.push({
        name,
        caughtUp: head === null || (checkpoint !== null && checkpoint >= head),
        checkpoint: checkpoint?.toString() ?? null,
        lagEvents: lag(checkpoint),
        failing: stored?.failing ?? null,
      });
    }
  }
  for (const reactor of report) {
    if (reactor.lagEvents !== null) metrics.reactorLag.set({ reactor: reactor.name }, reactor.lagEvents);
    metrics.reactorCaughtUp.set({ reactor: reactor.name }, reactor.caughtUp && reactor.failing === null ? 1 : 0);
  }
  return report;
}
