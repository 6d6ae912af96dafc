import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
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
  async health(@Res() reply: FastifyReply): Promise<void> {
    const report = await healthReport(this.runtime);
    await reply.status(report.status === 'ok' ? 200 : 503).send(report);
  }

  @Get('metrics')
  async metrics(@Res() reply: FastifyReply): Promise<void> {
    await healthReport(this.runtime); // refreshes the lag gauge
    const registry = this.runtime.metrics.registry;
    await reply.header('content-type', registry.contentType).send(await registry.metrics());
  }
}
