/**
 * Integration scripts that compute forever, through HTTP against the embedded service: they run on
 * the untrusted-work pool's threads, so the service goes on answering while they run, and each run
 * still ends with the sandbox's own `time limit exceeded`.
 *
 * A script tells the test it has started by fetching a loopback receiver (private networks are
 * allowed for this service), then loops. Before the fix the loop held the thread that answers
 * requests: a request sent once the loop had started was answered only after the run had ended.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cleanUpServices, ok, startService, until, type RunningService } from './support/service';

interface Person {
  id: string;
  token: string;
}

let service: RunningService;
let ada: Person;
let organizationId: string;

const call = (person: Person | null, method: string, path: string, body?: unknown) =>
  service.request(method, path, { token: person?.token, body });
/** A loopback receiver the scripts fetch when they start: each request resolves the next waiter. */
let receiver: Server;
let receiverUrl: string;
let hits = 0;
let waiters: Array<{ count: number; resolve: () => void }> = [];
function startReceiver(): Promise<void> {
  receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('go');
      hits += 1;
      for (const waiter of waiters.filter((w) => hits >= w.count)) waiter.resolve();
      waiters = waiters.filter((w) => hits < w.count);
    });
  });
  return new Promise((resolve) =>
    receiver.listen(0, '127.0.0.1', () => {
      receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/started`;
      resolve();
    }),
  );
}
/** Resolves once `more` further scripts have fetched the receiver. */
function started(more = 1): Promise<void> {
  const count = hits + more;
  return new Promise((resolve) => waiters.push({ count, resolve }));
}

let counter = 0;
async function publish(script: string): Promise<string> {
  const name = `hostile-integration-${process.pid}-${++counter}`;
  ok(await call(ada, 'POST', `/v1/integrations/${name}`, { organization: organizationId, title: 'Hostile', visibility: 'public', script }));
  return name;
}

beforeAll(async () => {
  await startReceiver();
  service = await startService({ env: { INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: 'true' } });
  const created = await service.createUser('ada@hostile-integrations.example', 'Ada');
  ada = { id: created.user.id, token: created.token };
  organizationId = ok(await call(ada, 'POST', '/v1/orgs', { title: 'Publisher' }), 201).body.id;
});

afterAll(async () => {
  receiver?.close();
  await cleanUpServices();
});

describe('a component that loops forever', () => {
  it('leaves GET /health answering while three renders of it run, each answering 422 with the time limit', async () => {
    const name = await publish(
      `module.exports = { components: { spin: async () => { await fetch(${JSON.stringify(receiverUrl)}); while (true) {} } } };`,
    );
    const running = started();
    const answered: number[] = [];
    const renders = [0, 1, 2].map((index) =>
      call(ada, 'POST', `/v1/integrations/${name}/render`, { componentId: 'spin', props: {}, state: {}, context: {} }).then((response) => {
        answered.push(index);
        return response;
      }),
    );
    await running;
    const health = await service.request('GET', '/health');
    expect(health.status).toBe(200);
    // Sent once a script was looping, /health was answered before any render had its answer.
    expect(answered).toEqual([]);
    for (const response of await Promise.all(renders)) {
      expect(response.status).toBe(422);
      expect(response.body.error.message).toBe('the component spin could not be rendered: time limit exceeded');
    }
  });
});

describe('an event handler that loops forever', () => {
  it('leaves the service answering while it runs, and the run is recorded failed with the time limit', async () => {
    const name = await publish(
      `module.exports = { events: { installation_setup: async () => { await fetch(${JSON.stringify(receiverUrl)}); console.log('looping'); while (true) {} } } };`,
    );
    const running = started();
    ok(await call(ada, 'POST', `/v1/integrations/${name}/installations`, { organization: organizationId }), 201);
    await running;
    const health = await service.request('GET', '/health');
    expect(health.status).toBe(200);
    // A write answered now carries the service's clock: it must fall before the run's end is logged.
    const witness = ok(await call(ada, 'POST', '/v1/orgs', { title: 'Witness' }), 201).body as { createdAt: string };
    const events = await until('the run recorded', async () => {
      const items = ok(await call(ada, 'GET', `/v1/integrations/${name}/events?limit=10`)).body.items as Array<{
        id: string;
        status: string;
      }>;
      return items.length > 0 && items.every((event) => event.status !== 'pending') ? items : undefined;
    });
    expect(events.map((event) => event.status)).toEqual(['failed']);
    const logs = ok(await call(ada, 'GET', `/v1/integrations/${name}/events/${events[0].id}`)).body.trace.logs as Array<{
      message: string;
      timestamp: string;
      level: string;
    }>;
    const failure = logs.find((log) => log.message === 'script failed: time limit exceeded');
    expect(failure).toBeDefined();
    expect(Date.parse(witness.createdAt)).toBeLessThan(Date.parse(failure!.timestamp));
  });
});
