/**
 * The reference for the benchmarks: a bare Fastify 5 server with one GET route of the service's
 * shape (`/v1/orgs/:id` by default), answering the body the real service returned (serialized per
 * request, as the service does). No Nest, no guards, no validation, no hooks, no logging: what
 * remains of the service's time above this is its own overhead.
 *
 * Run as a child process by a benchmark (body in BENCH_REFERENCE_BODY, route in
 * BENCH_REFERENCE_ROUTE, or several routes in BENCH_REFERENCE_ROUTES; listening port sent back over
 * IPC), or in process through `listenReference` (BENCH_REFERENCE=inline).
 */
import Fastify, { type FastifyInstance } from 'fastify';

export const ORGANIZATION_ROUTE = '/v1/orgs/:id';

/**
 * One route of a reference serving several: a JSON `body` is parsed once and serialized per
 * request (as the service does); any other content type (the published site's HTML) is sent as is.
 */
export interface ReferenceRoute {
  route: string;
  body: string;
  contentType: string;
}

export async function listenReference(
  body: unknown,
  route = ORGANIZATION_ROUTE,
  host = '127.0.0.1',
): Promise<{ server: FastifyInstance; port: number }> {
  return listenReferenceRoutes([{ route, body: JSON.stringify(body), contentType: 'application/json; charset=utf-8' }], host);
}

export async function listenReferenceRoutes(
  routes: ReferenceRoute[],
  host = '127.0.0.1',
): Promise<{ server: FastifyInstance; port: number }> {
  const server = Fastify({ logger: false });
  for (const { route, body, contentType } of routes) {
    if (contentType.startsWith('application/json')) {
      const parsed = JSON.parse(body) as unknown;
      server.get(route, async () => parsed);
    } else {
      server.get(route, async (_request, reply) => reply.header('content-type', contentType).send(body));
    }
  }
  await server.listen({ port: 0, host });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { server, port };
}

/**
 * Runs a reference as a benchmark's child process: starts it, sends its port to the parent over IPC,
 * closes it when told to stop or when the parent goes away.
 */
export function serveAsChild(listen: () => Promise<{ port: number; close(): Promise<unknown> }>): void {
  listen()
    .then(({ port, close }) => {
      process.send?.({ port });
      const stop = () => void close().then(() => process.exit(0));
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
      process.on('disconnect', stop);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}

if (require.main === module) {
  const raw = process.env.BENCH_REFERENCE_BODY;
  const routes = process.env.BENCH_REFERENCE_ROUTES;
  if (!raw && !routes) throw new Error('neither BENCH_REFERENCE_BODY nor BENCH_REFERENCE_ROUTES is set');
  serveAsChild(async () => {
    const { server, port } = await (routes
      ? listenReferenceRoutes(JSON.parse(routes) as ReferenceRoute[])
      : listenReference(JSON.parse(raw!) as unknown, process.env.BENCH_REFERENCE_ROUTE || ORGANIZATION_ROUTE));
    return { port, close: () => server.close() };
  });
}
