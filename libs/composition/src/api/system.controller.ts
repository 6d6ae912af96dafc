import { Controller, Get, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiProduces, ApiServiceUnavailableResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ref } from '../../../platform/src/platform.schemas';
import { Public } from '../../../platform/src/http/auth';
import { GetHealth, GetMetrics } from './system.queries';

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

  @Get('metrics')
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus metrics, text exposition format', schema: { type: 'string' } })
  async metrics(@Res() reply: FastifyReply): Promise<void> {
    const { contentType, text } = await this.queryBus.execute(new GetMetrics());
    await reply.header('content-type', contentType).send(text);
  }
}
