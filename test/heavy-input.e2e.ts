/**
 * Heavy input (bench/support/heavy-inputs.ts): requests small to send and costly to serve. Each is
 * sent as a signed-in user of an organization of their own would; it answers within its accepted
 * statuses (an input over its budget is refused in the envelope, never a 5xx), `GET /health`
 * answers while it runs, and its work ran in the untrusted-work pool (counted in /metrics by what it
 * does), not on the thread that answers requests. How long `/health` waits is measured by
 * `npm run bench:heavy`, not here.
 */
import { cleanUpServices, startService, type RunningService } from './support/service';
import { fileServer, HEAVY_CASES, type HeavyContext } from '../bench/support/heavy-inputs';

let service: RunningService;
let files: Awaited<ReturnType<typeof fileServer>>;
let context: HeavyContext;

/** The pool's finished tasks by what they do, from /metrics. */
async function poolTasks(): Promise<Map<string, number>> {
  const metrics = await service.request('GET', '/metrics', { token: service.adminToken });
  const counts = new Map<string, number>();
  for (const [, task, count] of metrics.text.matchAll(/^untrusted_work_seconds_count\{task="([^"]+)",outcome="[^"]+"\} (\d+)$/gm)) {
    counts.set(task, (counts.get(task) ?? 0) + Number(count));
  }
  return counts;
}

beforeAll(async () => {
  files = await fileServer();
  service = await startService({ env: { IMPORT_ALLOW_PRIVATE_NETWORKS: 'true' } });
  const { token } = await service.createUser();
  const organization = await service.request('POST', '/v1/orgs', { token, body: { title: 'Heavy input' } });
  context = {
    token,
    organizationId: organization.body.id,
    files: files.url,
    send: async (method, path, as, body) => {
      const answer = await service.request(method, path, { token: as ?? undefined, body });
      return { status: answer.status, body: answer.body };
    },
  };
});

afterAll(async () => {
  await cleanUpServices();
  await files?.close();
});

describe.each(HEAVY_CASES.map((heavy) => [heavy.name, heavy] as const))('%s', (_name, heavy) => {
  it(`answers within its accepted statuses, in the envelope when refused, while GET /health answers${heavy.poolTask ? `, with its work (${heavy.poolTask}) done in the pool` : ''}`, async () => {
    const before = await poolTasks();
    const running = heavy.run(context);
    const health = await service.request('GET', '/health');
    const answers = await running;
    expect(health.status).toBe(200);
    for (const answer of answers) {
      expect(heavy.accepted).toContain(answer.status);
      if (answer.status >= 400) expect(answer.body).toEqual({ error: { code: answer.status, message: expect.any(String) } });
    }
    if (heavy.poolTask) expect((await poolTasks()).get(heavy.poolTask) ?? 0).toBeGreaterThan(before.get(heavy.poolTask) ?? 0);
    expect((await service.request('GET', '/health')).status).toBe(200);
  }, 180_000);
});
