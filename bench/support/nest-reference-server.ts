/**
 * The framework floor for the benchmarks: the smallest NestJS 12 application on the Fastify adapter
 * (one controller, one GET route answering a fixed body; no guard, pipe, interceptor, filter or
 * hook). Every route of the service runs at least this much, so its requests/s against the bare
 * Fastify reference is the ceiling of any Nest route's ratio on this machine.
 *
 * Run as a child process (`startNestReference` in processes.ts): body in BENCH_REFERENCE_BODY, route
 * in BENCH_REFERENCE_ROUTE, listening port sent back over IPC.
 */
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { ORGANIZATION_ROUTE, serveAsChild } from './reference-server';

export async function listenNestReference(
  body: unknown,
  route = ORGANIZATION_ROUTE,
  host = '127.0.0.1',
): Promise<{ app: NestFastifyApplication; port: number }> {
  @Controller()
  class ReferenceController {
    @Get(route)
    answer(): unknown {
      return body;
    }
  }
  @Module({ controllers: [ReferenceController] })
  class ReferenceModule {}
  const app = await NestFactory.create<NestFastifyApplication>(ReferenceModule, new FastifyAdapter(), { logger: false });
  await app.listen({ port: 0, host });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { app, port };
}

if (require.main === module) {
  const raw = process.env.BENCH_REFERENCE_BODY;
  if (!raw) throw new Error('BENCH_REFERENCE_BODY is not set');
  serveAsChild(async () => {
    const { app, port } = await listenNestReference(JSON.parse(raw) as unknown, process.env.BENCH_REFERENCE_ROUTE || ORGANIZATION_ROUTE);
    return { port, close: () => app.close() };
  });
}
