/**
 * Heavy input (bench/support/heavy-inputs.ts): requests small to send and costly to serve. Each is
 * sent as a signed-in user of an organization of their own would; it answers within its accepted
 * statuses (an input over its budget is refused in the envelope, never a 5xx), `GET /health`
 * answers while it runs, and its work ran in the untrusted-work pool (counted in /metrics by what it
 * does), not on the thread that answers requests. How long `/health` waits is measured by
 * `npm run bench:heavy`, not here.
 *
 * The budgets are small here, so that an input over one is refused after a second or two rather
 * than ten; the rule is the same whatever the budget. Conversions get 1 s (CONTENT_CONVERSION_TIME_MS)
 * and the files of a write 15 MiB (CONTENT_UPLOAD_MAX_BYTES: a batch of 10 MiB files passes it at its
 * second file, as the default 100 MiB at its eleventh). Cases whose conversions must succeed
 * (FULL_CONVERSION_BUDGET) run on a second service, with the default budgets.
 */
import { cleanUpServices, startService, type RunningService } from './support/service';
import { fileServer, HEAVY_CASES, type HeavyContext } from '../bench/support/heavy-inputs';

/**
 * Cases whose conversions must fit the budget to get to what they are about: the comments' page and
 * the merge's pages of 40,000 words are written first (a conversion on a thread just started, as
 * after a task cut at its budget, can take a second by itself), and the zip's entry is refused for
 * its size once inflated.
 */
const FULL_CONVERSION_BUDGET = new Set([
  'five comments of a 16 KiB nested markdown list',
  'zip import whose README.md inflates to 3 MiB',
  'merge of 4 pages of 40,000 words rewritten on both sides',
]);

interface Target {
  service: RunningService;
  context: HeavyContext;
}

let files: Awaited<ReturnType<typeof fileServer>>;
let tight: Target;
let full: Target;

/** The pool's finished tasks by what they do, from /metrics. */
async function poolTasks(service: RunningService): Promise<Map<string, number>> {
  const metrics = await service.request('GET', '/metrics', { token: service.adminToken });
  const counts = new Map<string, number>();
  for (const [, task, count] of metrics.text.matchAll(/^untrusted_work_seconds_count\{task="([^"]+)",outcome="[^"]+"\} (\d+)$/gm)) {
    counts.set(task, (counts.get(task) ?? 0) + Number(count));
  }
  return counts;
}

/** A service with `env`, and a user with an organization of their own on it. */
async function target(env: Record<string, string>): Promise<Target> {
  const service = await startService({ env: { IMPORT_ALLOW_PRIVATE_NETWORKS: 'true', ...env } });
  const { token } = await service.createUser();
  const organization = await service.request('POST', '/v1/orgs', { token, body: { title: 'Heavy input' } });
  const context: HeavyContext = {
    token,
    organizationId: organization.body.id,
    files: files.url,
    send: async (method, path, as, body) => {
      const answer = await service.request(method, path, { token: as ?? undefined, body });
      return { status: answer.status, body: answer.body };
    },
  };
  return { service, context };
}

beforeAll(async () => {
  files = await fileServer();
  [tight, full] = await Promise.all([
    target({ CONTENT_CONVERSION_TIME_MS: '1000', CONTENT_UPLOAD_MAX_BYTES: String(15 * 1024 * 1024) }),
    target({}),
  ]);
});

afterAll(async () => {
  await cleanUpServices();
  await files?.close();
});

it('names only cases that exist in FULL_CONVERSION_BUDGET', () => {
  expect([...FULL_CONVERSION_BUDGET].filter((name) => !HEAVY_CASES.some((heavy) => heavy.name === name))).toEqual([]);
});

describe.each(HEAVY_CASES.map((heavy) => [heavy.name, heavy] as const))('%s', (_name, heavy) => {
  it(`answers within its accepted statuses, in the envelope when refused, while GET /health answers${heavy.poolTask ? `, with its work (${heavy.poolTask}) done in the pool` : ''}`, async () => {
    const { service, context } = FULL_CONVERSION_BUDGET.has(heavy.name) ? full : tight;
    const before = await poolTasks(service);
    const running = heavy.run(context);
    const health = await service.request('GET', '/health');
    const answers = await running;
    expect(health.status).toBe(200);
    for (const answer of answers) {
      expect(heavy.accepted).toContain(answer.status);
      if (answer.status >= 400) expect(answer.body).toEqual({ error: { code: answer.status, message: expect.any(String) } });
    }
    if (heavy.poolTask) expect((await poolTasks(service)).get(heavy.poolTask) ?? 0).toBeGreaterThan(before.get(heavy.poolTask) ?? 0);
    expect((await service.request('GET', '/health')).status).toBe(200);
  }, 180_000);
});
