import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { unhandledRejections } from './unhandled-rejections';

/** Prometheus metrics of one process (`GET /metrics`). */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method and route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly appends = new Counter({
    name: 'eventstore_appends_total',
    help: 'Event batches appended, by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly appendedEvents = new Counter({
    name: 'eventstore_events_appended_total',
    help: 'Events appended by this process',
    registers: [this.registry],
  });
  readonly conflicts = new Counter({
    name: 'command_concurrency_conflicts_total',
    help: 'Concurrency conflicts met by commands (each retry counts)',
    registers: [this.registry],
  });
  readonly readYourWritesWait = new Histogram({
    name: 'read_your_writes_wait_seconds',
    help: 'Time a write waited for the read models to apply its events',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5],
    registers: [this.registry],
  });
  readonly readYourWritesTimeouts = new Counter({
    name: 'read_your_writes_timeouts_total',
    help: 'Writes answered before the read models had applied them',
    registers: [this.registry],
  });
  readonly projectionLag = new Gauge({
    name: 'projection_lag_events',
    help: 'Events appended but not yet applied to the read models (embedded mode)',
    registers: [this.registry],
  });
  readonly projectionApplyLag = new Histogram({
    name: 'projection_apply_lag_seconds',
    help: "Time from an event's append (the event store's recorded time) to the commit of its projections' writes, for events applied after catch-up",
    // 75 and 150 ms: under load the p99 sits between 50 and 250 ms, where coarser bounds hid how far over its 50 ms target it was.
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1, 5],
    registers: [this.registry],
  });
  readonly reactorLag = new Gauge({
    name: 'reactor_lag_events',
    help: 'Events appended but not yet processed by the reactor (where the store counts positions in events)',
    labelNames: ['reactor'] as const,
    registers: [this.registry],
  });
  readonly reactorFailures = new Counter({
    name: 'reactor_failures_total',
    help: 'Failed reaction attempts (each retry counts)',
    labelNames: ['reactor'] as const,
    registers: [this.registry],
  });
  readonly reactorCaughtUp = new Gauge({
    name: 'reactor_caught_up',
    help: '1 once the reactor has processed everything that existed when it subscribed and no reaction is failing, else 0',
    labelNames: ['reactor'] as const,
    registers: [this.registry],
  });

  readonly untrustedWork = new Histogram({
    name: 'untrusted_work_seconds',
    help: 'Tasks of the untrusted-work pool by what they do and how they ended (ok, failed, time, memory, queue)',
    labelNames: ['task', 'outcome'] as const,
    buckets: [0.005, 0.02, 0.1, 0.5, 2, 10, 60],
    registers: [this.registry],
  });

  /** Label children by method, route and status: looked up once, not hashed on every request. */
  private readonly requestChildren = new Map<string, { count: { inc(): void }; duration: { observe(seconds: number): void } }>();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.registry.registerMetric(unhandledRejections);
  }

  /** Observes each event's projection lag: now minus its `recordedAt` (the store's clock; another host's in distributed mode). */
  observeApplied(events: readonly { recordedAt: string }[], now = Date.now()): void {
    for (const event of events) {
      const recorded = Date.parse(event.recordedAt);
      if (Number.isFinite(recorded)) this.projectionApplyLag.observe(Math.max(0, now - recorded) / 1000);
    }
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let children = this.requestChildren.get(key);
    if (!children) {
      children = {
        count: this.httpRequests.labels(method, route, String(status)),
        duration: this.httpDuration.labels(method, route),
      };
      this.requestChildren.set(key, children);
    }
    children.count.inc();
    children.duration.observe(seconds);
  }
}

export const METRICS = Symbol('METRICS');
