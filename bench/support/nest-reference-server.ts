/**
 * The framework floor for the benchmarks: the smallest NestJS 12 application on the Fastify adapter
 * (one controller, one GET route answering a fixed body; no guard, pipe, interceptor, filter or
 * hook). Every route of the service runs at least this much, so its requests/s against the bare
 * Fastify reference is the ceiling of any Nest route's ratio on this machine.
 *
 * Run as a child process (`startNestReference` in processes.ts): body in BENCH_REFERENCE_BODY, route
 * in BENCH_REFERENCE_ROUTE, or several routes in BENCH_REFERENCE_ROUTES (`startNestReferenceRoutes`,
 * one controller method per route, as the bare reference serves them); listening port sent back over IPC.
 */
import 'reflect-metadata';
import { Controller, Get, Header, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { ORGANIZATION_ROUTE, serveAsChild, type ReferenceRoute } from './reference-server';

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

/**
 * The same application with one route per area: a JSON body is parsed once and returned (Nest
 * serializes it per request, as the service does); any other content type is sent as is, with it.
 */
export async function listenNestReferenceRoutes(
  routes: ReferenceRoute[],
  host = '127.0.0.1',
): Promise<{ app: NestFastifyApplication; port: number }> {
  class ReferenceController {}
  const prototype = ReferenceController.prototype as unknown as Record<string, () => unknown>;
  routes.forEach(({ route, body, contentType }, index) => {
    const key = `route${index}`;
    const json = contentType.startsWith('application/json');
    const answer = json ? (JSON.parse(body) as unknown) : body;
    prototype[key] = () => answer;
    const descriptor = Object.getOwnPropertyDescriptor(prototype, key)!;
    Get(route)(prototype, key, descriptor);
    if (!json) Header('content-type', contentType)(prototype, key, descriptor);
  });
  Controller()(ReferenceController);
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
  const routes = process.env.BENCH_REFERENCE_ROUTES;
  if (!raw && !routes) throw new Error('neither BENCH_REFERENCE_BODY nor BENCH_REFERENCE_ROUTES is set');
  serveAsChild(async () => {
    const { app, port } = await (routes
      ? listenNestReferenceRoutes(JSON.parse(routes) as ReferenceRoute[])
      : listenNestReference(JSON.parse(raw!) as unknown, process.env.BENCH_REFERENCE_ROUTE || ORGANIZATION_ROUTE));
    return { port, close: () => app.close() };
  });
}
