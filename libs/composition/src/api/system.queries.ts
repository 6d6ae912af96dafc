import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { healthReport, type HealthReport } from '../../../runtime/src/health';
import type { Runtime } from '../../../runtime/src/runtime.module';

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

export const systemQueryHandlers = [GetHealthHandler, GetMetricsHandler];
