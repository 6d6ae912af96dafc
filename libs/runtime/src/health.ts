import type { LogPosition } from '../../event-store/src/event-store.port';
import { CHECKPOINTS } from '../../read-store/src/projections/projection-runner';
import type { Runtime } from './runtime.module';

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
}

/**
 * `/health`: store connectivity and projection lag. `ok` (200) once every store answers and the
 * projections have caught up; `starting` while they catch up; `unavailable` when a store does not
 * answer (both 503).
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
    const stored = readStore.ok ? await stores.reads.collection(CHECKPOINTS).get('main').catch(() => null) : null;
    const checkpoint = typeof stored?.position === 'string' ? BigInt(stored.position) : null;
    projections = {
      caughtUp: head === null || (checkpoint !== null && checkpoint >= head),
      checkpoint: checkpoint?.toString() ?? null,
      head: head?.toString() ?? null,
      lagEvents: null,
      lastError: null,
    };
  }
  const storesOk = eventStore.ok && readStore.ok && blobStore.ok;
  return {
    status: !storesOk ? 'unavailable' : projections.caughtUp ? 'ok' : 'starting',
    mode: stores.mode,
    stores: { eventStore, readStore, blobStore },
    projections,
  };
}
