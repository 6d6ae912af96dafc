import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiServiceUnavailableResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ref } from '../../../libs/platform/src/platform.schemas';
import { Public } from '../../../libs/platform/src/http/auth';
import { healthReport } from '../../../libs/runtime/src/health';
import type { Runtime } from '../../../libs/runtime/src/runtime.module';

export const RUNTIME = Symbol('RUNTIME');

/** Operational endpoints outside `/v1`: no token needed. */
@Controller()
@Public()
export class SystemController {
  constructor(@Inject(RUNTIME) private readonly runtime: Runtime) {}

  /** 200 once stores answer and projections have caught up; 503 with the same report otherwise. */
  @Get('health')
  @ApiOkResponse({ description: 'stores answer and projections have caught up', schema: ref('Health') })
  @ApiServiceUnavailableResponse({ description: 'starting, or a store is unavailable', schema: ref('Health') })
  async health(@Res() reply: FastifyReply): Promise<void> {
    const report = await healthReport(this.runtime);
    await reply.status(report.status === 'ok' ? 200 : 503).send(report);
  }

  @Get('metrics')
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus metrics, text exposition format', schema: { type: 'string' } })
  async metrics(@Res() reply: FastifyReply): Promise<void> {
    await healthReport(this.runtime); // refreshes the lag gauge
    const registry = this.runtime.metrics.registry;
    await reply.header('content-type', registry.contentType).send(await registry.metrics());
  }
}
