import type { LogPosition } from '../../event-store/src/event-store.port';
import type { ProjectionRunner } from '../../read-store/src/projections/projection-runner';
import { CHECKPOINTS } from '../../read-store/src/projections/projection-runner';
import type { ReadStore } from '../../read-store/src/read-store.port';
import { log } from '../../platform/src/logging';
import type { Metrics } from './metrics';

/**
 * Read-your-writes (DESIGN section 5): a write answers only once the read models have applied its
 * events, so the response and any GET after it show the change. The wait is bounded; a time-out is
 * logged and counted, and the write still answers (its events are durable).
 */
export interface ReadYourWrites {
  /** `requestId` labels the time-out warning, if any. */
  wait(position: LogPosition | undefined, requestId?: string): Promise<void>;
}
export const READ_YOUR_WRITES = Symbol('READ_YOUR_WRITES');

/** Embedded mode: the projector runs in this process. */
export class InProcessReadYourWrites implements ReadYourWrites {
  constructor(
    private readonly runner: ProjectionRunner,
    private readonly timeoutMs: number,
    private readonly metrics: Metrics,
  ) {}

  async wait(position: LogPosition | undefined, requestId?: string): Promise<void> {
    if (position === undefined) return;
    const stop = this.metrics.readYourWritesWait.startTimer();
    const applied = await this.runner.waitFor(position, this.timeoutMs);
    stop();
    if (!applied) timedOut(this.metrics, position, this.timeoutMs, requestId);
  }
}

/**
 * Distributed mode: the projector is another process. Its checkpoint is committed with the read
 * models it covers, so polling the checkpoint document is an exact test of "applied". Concurrent
 * waiters share one poll loop.
 */
export class CheckpointPollingReadYourWrites implements ReadYourWrites {
  private applied: LogPosition | null = null;
  private readonly waiters = new Set<{ position: LogPosition; resolve: (ok: boolean) => void; deadline: number }>();
  private polling = false;

  constructor(
    private readonly reads: ReadStore,
    private readonly timeoutMs: number,
    private readonly metrics: Metrics,
    private readonly intervalMs = 5,
    private readonly checkpointName = 'main',
  ) {}

  async wait(position: LogPosition | undefined, requestId?: string): Promise<void> {
    if (position === undefined) return;
    if (this.applied !== null && this.applied >= position) return;
    const stop = this.metrics.readYourWritesWait.startTimer();
    const ok = await new Promise<boolean>((resolve) => {
      this.waiters.add({ position, resolve, deadline: Date.now() + this.timeoutMs });
      void this.poll();
    });
    stop();
    if (!ok) timedOut(this.metrics, position, this.timeoutMs, requestId);
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      while (this.waiters.size > 0) {
        try {
          const checkpoint = await this.reads.collection(CHECKPOINTS).get(this.checkpointName);
          if (typeof checkpoint?.position === 'string') this.applied = BigInt(checkpoint.position);
        } catch (error) {
          log.warn({ err: error }, 'could not read the projector checkpoint');
        }
        const now = Date.now();
        for (const waiter of [...this.waiters]) {
          const done = this.applied !== null && this.applied >= waiter.position;
          if (done || now >= waiter.deadline) {
            this.waiters.delete(waiter);
            waiter.resolve(done);
          }
        }
        if (this.waiters.size > 0) await new Promise((resolve) => setTimeout(resolve, this.intervalMs));
      }
    } finally {
      this.polling = false;
    }
  }
}

function timedOut(metrics: Metrics, position: LogPosition, timeoutMs: number, requestId?: string): void {
  metrics.readYourWritesTimeouts.inc();
  log.warn({ requestId, position: position.toString(), timeoutMs }, 'read models did not apply a write within the read-your-writes timeout');
}
