import { Controller, Get, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiExcludeEndpoint, ApiOkResponse, ApiProduces, ApiServiceUnavailableResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ref } from '#platform/platform.schemas';
import { Public } from '#platform/http/auth';
import { GetHealth, GetMetrics, GetReadiness } from './system.queries';

/** Operational endpoints outside `/v1`: no token needed. */
@Controller()
@Public()
export class SystemController {
  constructor(private readonly queryBus: QueryBus) {}

  /** 200 once stores answer and projections have caught up; 503 with the same report otherwise. */
  @Get('health')
  @ApiOkResponse({ description: 'stores answer and projections have caught up', schema: ref('Health') })
  @ApiServiceUnavailableResponse({ description: 'starting, or a store is unavailable', schema: ref('Health') })
  async health(@Res() reply: FastifyReply): Promise<void> {
    const report = await this.queryBus.execute(new GetHealth());
    await reply.status(report.status === 'ok' ? 200 : 503).send(report);
  }

  /**
   * Liveness: the process is up and its event loop answers; no store is asked. A probe that
   * restarts the process on failure uses this one, so that a long replay is not mistaken for a hang.
   * Left out of the API's document, like the orchestrator probes it is for.
   */
  @Get('health/live')
  @ApiExcludeEndpoint()
  async live(@Res() reply: FastifyReply): Promise<void> {
    await reply.header('cache-control', 'no-store').send({ status: 'live' });
  }

  /** Readiness: the health report, 200 once this process can serve (GetReadiness), else 503. */
  @Get('health/ready')
  @ApiExcludeEndpoint()
  async ready(@Res() reply: FastifyReply): Promise<void> {
    const { ready, report } = await this.queryBus.execute(new GetReadiness());
    await reply.status(ready ? 200 : 503).send(report);
  }

  @Get('metrics')
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus metrics, text exposition format', schema: { type: 'string' } })
  async metrics(@Res() reply: FastifyReply): Promise<void> {
    const { contentType, text } = await this.queryBus.execute(new GetMetrics());
    await reply.header('content-type', contentType).send(text);
  }
}
