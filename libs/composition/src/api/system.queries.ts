import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { healthReport, type HealthReport } from '#runtime/health';
import { storesAnswer } from '#runtime/health-endpoint';
import type { Runtime } from '#runtime/runtime.module';

export const RUNTIME = Symbol('RUNTIME');

/** `GET /health`: the stores' and the projections' report (ok once stores answer and projections have caught up). */
export class GetHealth extends Query<HealthReport> {}

@QueryHandler(GetHealth)
export class GetHealthHandler implements IQueryHandler<GetHealth> {
  constructor(@Inject(RUNTIME) private readonly runtime: Runtime) {}

  execute(): Promise<HealthReport> {
    return healthReport(this.runtime);
  }
}

/**
 * `GET /health/ready`: the health report, and whether this process can serve. Every store must
 * answer; a process that projects (embedded mode) must also have caught up, since its /v1 answers
 * 503 until then. An API replica in distributed mode serves what the projector has applied so far
 * (reads fill in while it replays), so its readiness does not wait for the projector.
 */
export class GetReadiness extends Query<{ ready: boolean; report: HealthReport }> {}

@QueryHandler(GetReadiness)
export class GetReadinessHandler implements IQueryHandler<GetReadiness> {
  constructor(@Inject(RUNTIME) private readonly runtime: Runtime) {}

  async execute(): Promise<{ ready: boolean; report: HealthReport }> {
    const report = await healthReport(this.runtime);
    const ready = this.runtime.runner ? report.status === 'ok' : storesAnswer(report);
    return { ready, report };
  }
}

/** `GET /metrics`: Prometheus metrics in the text exposition format, with its content type. */
export class GetMetrics extends Query<{ contentType: string; text: string }> {}

@QueryHandler(GetMetrics)
export class GetMetricsHandler implements IQueryHandler<GetMetrics> {
  constructor(@Inject(RUNTIME) private readonly runtime: Runtime) {}

  async execute(): Promise<{ contentType: string; text: string }> {
    await healthReport(this.runtime); // refreshes the lag gauge
    const registry = this.runtime.metrics.registry;
    return { contentType: registry.contentType, text: await registry.metrics() };
  }
}

export const systemQueryHandlers = [GetHealthHandler, GetReadinessHandler, GetMetricsHandler];
