import 'reflect-metadata';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Gauge } from 'prom-client';
import type { AppConfig } from '#platform/config';
import { systemClock, type Clock } from '#platform/clock';
import { newId } from '#platform/ids';
import { configureLogging, JsonNestLogger, log } from '#platform/logging';
import { AuthGuard, hashToken, TOKEN_VERIFIER, type TokenVerifier } from '#platform/http/auth';
import { registerFrontDoor } from '#platform/http/front-door';
import { registerIdempotency } from '#platform/http/idempotency';
import { ReadStoreIdempotencyRecords } from '#platform/http/idempotency-records';
import { ResponseCache } from '#platform/http/response-cache';
import { answerClientError, ErrorEnvelopeFilter, sendError } from '#platform/http/error-envelope';
import { registerJsonBodyParser } from '#platform/http/json-body';
import { RateLimiter } from '#platform/http/rate-limit';
import { createRuntime, type Runtime } from '#runtime/runtime.module';
import { openStores, type Stores } from '#runtime/stores';
import type { Composition, ContextManifest, PortBinding } from '#runtime/context';
import { composeService, service } from '../contexts';
import { setUpOpenApi } from './openapi';
import { SystemController } from './system.controller';
import { RUNTIME, systemQueryHandlers } from './system.queries';

@Module({})
class AppModule {
  static forRuntime(runtime: Runtime, adminToken: string, composition: Composition): DynamicModule {
    return {
      module: AppModule,
      // Every context's module and the port bindings (the composition root); the same in the projector's container.
      imports: composition.modules(runtime, { adminToken }),
      controllers: [SystemController],
      providers: [
        { provide: RUNTIME, useValue: runtime },
        ...systemQueryHandlers,
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
      ],
    };
  }
}

export interface Service {
  app: NestFastifyApplication;
  runtime: Runtime;
  /** Stops accepting requests, stops the projections, closes the stores. */
  close(): Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Request ids need to be unique, not secret: a random per-process prefix and a counter. */
const requestIdPrefix = newId(8);
let requestCounter = 0;
const nextRequestId = () => `${requestIdPrefix}-${(++requestCounter).toString(36)}`;

/**
 * Builds the API on the configured stores: not listening yet, projections not started (the caller
 * starts them, then listens). Used by `main.ts` and by tests that need a handle on the internals.
 */
export async function createService(options: {
  config: AppConfig;
  adminToken: string;
  clock?: Clock;
  stores?: Stores;
  runProjections?: boolean;
  /** The contexts and their port bindings; the composition root's by default (tests: a different wiring). */
  wiring?: { contexts: readonly ContextManifest[]; bindings: readonly PortBinding[] };
}): Promise<Service> {
  const { config } = options;
  configureLogging(config.logLevel);
  // Composed before the stores open: a wiring mistake (an unbound port) stops the start with its message.
  const composition = options.wiring ? composeService(options.wiring.contexts, options.wiring.bindings) : service();
  const stores = options.stores ?? (await openStores(config));
  const runtime = createRuntime({
    config,
    stores,
    clock: options.clock ?? systemClock,
    projections: composition.projections,
    reactors: composition.reactors,
    runProjections: options.runProjections ?? stores.mode === 'embedded',
  });
  const adapter = new FastifyAdapter({
    bodyLimit: config.bodyLimitBytes,
    genReqId: (request: { headers: Record<string, string | string[] | undefined> }) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : nextRequestId();
    },
    // No Nest middleware is used: @fastify/middie would only add a hook to every request.
    skipMiddie: true,
    // X-Forwarded-For is believed only from the configured number of proxies: believed from anyone,
    // it would let every request claim a new client address and escape the per-address limits.
    trustProxy: config.trustProxyHops > 0 ? (_address: string, hop: number) => hop < config.trustProxyHops : false,
    // The router rejects malformed URLs and over-long parameters before any hook runs.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => {
      void reply.header('x-request-id', request.id);
      sendError(reply, error, request.id);
    },
    // What the HTTP parser refuses (bad requests, 431 for over-long request lines and headers) in the envelope too.
    clientErrorHandler: (error: Error & { code?: string }, socket) => answerClientError(error, socket, nextRequestId()),
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRuntime(runtime, options.adminToken, composition), adapter, {
    logger: new JsonNestLogger(),
    bufferLogs: false,
    // Nest's parsers would accept urlencoded bodies; Fastify's own JSON parser is the only one kept.
    bodyParser: false,
  });
  // Reactions reach the contexts' command services through the container.
  runtime.bindServices((token) => app.get(token, { strict: false }));
  const fastify = app.getHttpAdapter().getInstance();
  // A request without Host is answered by the front door (in the envelope) rather than by Node (an empty 400).
  (fastify.server as { requireHostHeader?: boolean }).requireHostHeader = false;
  // Only JSON bodies: anything else is 415 (Fastify's default text/plain parser would let strings through).
  fastify.removeContentTypeParser(['text/plain']);
  // Depth, Unicode and prototype keys checked while parsing, before any DTO transformation (json-body.ts).
  registerJsonBodyParser(fastify);
  // What contexts' routes need beyond JSON (the SAML login's form posts).
  for (const context of composition.contexts) context.configureHttp?.(fastify);
  // Node answers an `Expect` other than 100-continue with an empty 417 unless someone listens.
  fastify.server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    const body = JSON.stringify({ error: { code: 417, message: 'only Expect: 100-continue is supported' } });
    response
      .writeHead(417, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        'x-request-id': nextRequestId(),
      })
      .end(body);
  });
  // While the projections replay the log at start, /v1 and the published sites would serve incomplete read models: the
  // front door answers 503 instead (and the replay has the stores to itself).
  // (Reactors catching up do not make reads incomplete: a write meanwhile waits for them, bounded.)
  let ready = runtime.runner === null;
  const responses = new ResponseCache(stores.reads);
  new Gauge({
    name: 'http_response_cache_lookups',
    help: 'Lookups of the response cache by @CachedRead GETs since the start, by outcome (hit, miss)',
    labelNames: ['outcome'] as const,
    registers: [runtime.metrics.registry],
    collect() {
      this.set({ outcome: 'hit' }, responses.stats.hits);
      this.set({ outcome: 'miss' }, responses.stats.misses);
    },
  });
  void runtime.runner?.whenCaughtUp().then(() => (ready = true));
  registerFrontDoor(fastify, {
    prefix: '/v1',
    rateLimiter: new RateLimiter(config.rateLimitPerMinute, runtime.clock),
    authFailures: new RateLimiter(config.authFailuresPerMinute, runtime.clock),
    tokens: app.get<TokenVerifier>(TOKEN_VERIFIER, { strict: false }),
    adminTokenHash: hashToken(options.adminToken),
    isReady: () => ready,
    // The documentation's assets wait too: the page has no document to show before /v1/openapi.json answers.
    servedWhileStarting: ['/health', '/health/live', '/health/ready', '/metrics', '/docs'],
    responses,
  });
  // Retried POSTs with an Idempotency-Key run once; after the front door, which finds out the caller the keys belong to.
  registerIdempotency(fastify, {
    prefix: '/v1',
    records: new ReadStoreIdempotencyRecords(stores.reads),
    clock: runtime.clock,
    isReady: () => ready,
  });
  fastify.addHook('onResponse', (request: FastifyRequest, reply, done) => {
    const route = request.routeOptions?.url ?? 'unmatched';
    runtime.metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    if (log.isLevelEnabled('info')) {
      log.info(
        {
          requestId: request.id,
          method: request.method,
          url: request.url,
          route,
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 10) / 10,
        },
        'request',
      );
    }
    done();
  });
  setUpOpenApi(app);
  await app.init();
  return {
    app,
    runtime,
    async close() {
      await app.close();
      await runtime.stopReactors();
      await runtime.work.close();
      await runtime.runner?.stop();
      await stores.close();
    },
  };
}
