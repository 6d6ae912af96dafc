/**
 * The `lists` part of the API benchmark: every list of the API at two sizes, 10x apart, to show
 * that a page costs the same whatever the size of what is listed (docs/performance.md, "List pages
 * and the size of what is listed").
 *
 * Two organizations are seeded through the HTTP API, one with BENCH_LIST_SIZE (100) of each thing
 * and one with ten times as many: members, spaces (every other one in a collection), collections,
 * teams, sites and integrations, and in one space as many change requests (drafts, listed with
 * `status=draft`) and comments; the audit log of each organization grows with all of it. The owner
 * makes everything, so they are also in every team. Each list is then loaded uncached
 * (`Cache-Control: no-cache`) at its first page and at the page after a cursor from the middle of
 * the list, the small and the large organization alternating in slices. The verdict is the small
 * organization's requests/s over the large one's: at most 1.5.
 *
 * Environment: BENCH_LIST_SIZE (100: a full page after the middle at the small size),
 * BENCH_LIST_SECONDS (1, per page and size), BENCH_LIST_WARMUP_SECONDS (0.5),
 * BENCH_LIST_SEED_CONNECTIONS (32, concurrent writes while seeding), BENCH_LISTS (only the lists
 * whose names contain one of these, comma-separated).
 */
import { loadInterleaved, type LoadResult } from './load';
import { call, expectStatus, stringField } from './http';
import { nonNegative, positive, positiveInteger } from './settings';

const SIZE = positiveInteger('BENCH_LIST_SIZE', 100);
const SCALE = 10;
const SECONDS = positive('BENCH_LIST_SECONDS', 1);
const WARMUP_SECONDS = nonNegative('BENCH_LIST_WARMUP_SECONDS', 0.5);
/** Writes wait for their read models (read-your-writes): many at once keep the service busy. */
const SEED_CONNECTIONS = positiveInteger('BENCH_LIST_SEED_CONNECTIONS', 32);
const CONNECTIONS = 10;
const ROUNDS = 2;
/** Largest cost ratio allowed between the two sizes. */
const RATIO_TARGET = 1.5;
const FILTER = (process.env.BENCH_LISTS ?? '')
  .split(',')
  .map((name) => name.trim().toLowerCase())
  .filter(Boolean);

/** A row of the API benchmark's table (bench/api.bench.ts prints them). */
export interface ListRow {
  name: string;
  result: LoadResult;
  verdicts: { ok: boolean; text: string }[];
}

interface Service {
  baseUrl: string;
  adminToken: string;
}

/** One organization's lists: name → URL path of the first page, the caller's token and the count expected at least. */
type Lists = Map<string, { path: string; token: string; count: number }>;

/** Public spaces in either organization, the only ones its guest sees: a guest's page must not cost more for the private ones around them. */
const PUBLIC_SPACES = 10;
/** The guest's page size: two full pages among the public spaces. */
const GUEST_LIMIT = PUBLIC_SPACES / 2;

/** Runs `work(i)` for i in 0..count-1, `connections` at a time. */
async function inParallel(count: number, connections: number, work: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(count, connections) }, worker));
}

/** An organization owned by `token`'s user holding `size` of each listed thing, made through the API. */
async function seedOrganization(service: Service, token: string, runId: string, size: number): Promise<Lists> {
  const post = async (path: string, body: unknown, status = 201, as = token) =>
    (await expectStatus(status, call('POST', `${service.baseUrl}${path}`, { token: as, body }), `POST ${path}`)).body as Record<
      string,
      any
    >;
  const tag = `${runId}-${size}`;
  const organizationId = stringField(await post('/v1/orgs', { title: `Lists ${tag}` }), 'id', 'POST /v1/orgs');
  const base = `/v1/orgs/${organizationId}`;
  await expectStatus(200, call('PATCH', `${service.baseUrl}${base}`, { token, body: { inviteLinks: true } }), 'PATCH organization');
  const inviteId = stringField(await post(`${base}/link-invites`, { role: 'read' }), 'id', 'link invite');
  const guest = await post('/v1/admin/users', { email: `lists-${tag}-guest@example.com`, displayName: 'Guest' }, 201, service.adminToken);
  const guestToken = stringField(guest, 'token', 'guest');
  await expectStatus(
    200,
    call('POST', `${service.baseUrl}${base}/invites`, {
      token,
      body: { emails: [{ email: `lists-${tag}-guest@example.com`, role: null }] },
    }),
    'POST invites',
  );
  const pending = await expectStatus(200, call('GET', `${service.baseUrl}/v1/user/invites`, { token: guestToken }), 'GET /v1/user/invites');
  const invitation = (pending.body as { items: Array<{ id: string }> }).items[0];
  await post(`/v1/user/invites/${invitation.id}`, undefined, 200, guestToken);
  const spaceId = stringField(await post(`${base}/spaces`, { title: 'Handbook' }), 'id', 'space');
  const written = await post(
    `/v1/spaces/${spaceId}/content`,
    { changes: [{ operation: 'insert_page', title: 'Start', document: { markdown: 'Text.' } }] },
    200,
  );
  const pageId = String(written.changes[0].page.id);

  const collections: string[] = [];
  await inParallel(size, SEED_CONNECTIONS, async (i) => {
    collections[i] = stringField(await post(`${base}/collections`, { title: `Collection ${i}` }), 'id', 'collection');
  });
  const seeds: Array<(i: number) => Promise<unknown>> = [
    async (i) => {
      const space = await post(`${base}/spaces`, { title: `Space ${i}`, ...(i % 2 === 1 ? { parent: collections[i] } : {}) });
      if (i < PUBLIC_SPACES)
        await expectStatus(
          200,
          call('PATCH', `${service.baseUrl}/v1/spaces/${stringField(space, 'id', 'space')}`, { token, body: { visibility: 'public' } }),
          'PATCH space',
        );
    },
    async (i) => {
      const user = await post(
        '/v1/admin/users',
        { email: `lists-${tag}-${i}@example.com`, displayName: `Member ${i}` },
        201,
        service.adminToken,
      );
      await post(`${base}/invites/${inviteId}`, undefined, 200, stringField(user, 'token', 'user'));
    },
    (i) => expectStatus(201, call('PUT', `${service.baseUrl}${base}/teams`, { token, body: { title: `Team ${i}` } }), 'PUT teams'),
    (i) => post(`${base}/sites`, { title: `Site ${i}` }),
    (i) =>
      post(`/v1/integrations/lists-${tag}-${i}`, { organization: organizationId, title: `Integration ${i}`, visibility: 'private' }, 200),
    (i) => post(`/v1/spaces/${spaceId}/change-requests`, { subject: `Change ${i}` }),
    (i) => post(`/v1/spaces/${spaceId}/comments`, { page: pageId, body: { markdown: `Comment ${i}` } }),
  ];
  await inParallel(size * seeds.length, SEED_CONNECTIONS, (n) => seeds[n % seeds.length](Math.floor(n / seeds.length)));

  const me = await expectStatus(200, call('GET', `${service.baseUrl}/v1/user`, { token }), 'GET /v1/user');
  const ownerId = stringField(me.body as Record<string, unknown>, 'id', 'GET /v1/user');
  const owner = (path: string) => ({ path, token, count: size });
  return new Map([
    ['spaces', owner(`${base}/spaces`)],
    ['spaces (guest)', { path: `${base}/spaces?limit=${GUEST_LIMIT}`, token: guestToken, count: PUBLIC_SPACES }],
    ['members', owner(`${base}/members`)],
    ['teams', owner(`${base}/teams`)],
    ['collections', owner(`${base}/collections`)],
    ["a member's spaces", owner(`${base}/members/${ownerId}/spaces`)],
    ['change requests', owner(`/v1/spaces/${spaceId}/change-requests?status=draft`)],
    ['change requests (organization)', owner(`${base}/change-requests?status=draft`)],
    ['comments', owner(`/v1/spaces/${spaceId}/comments`)],
    ['audit events', owner(`${base}/audit-events`)],
    ['sites', owner(`${base}/sites`)],
    ['integrations', owner(`/v1/integrations?owner=${organizationId}`)],
  ]);
}

/** The route shapes, for the printed verdicts. */
const ROUTES: Record<string, string> = {
  spaces: '/v1/orgs/{id}/spaces',
  'spaces (guest)': `/v1/orgs/{id}/spaces?limit=${GUEST_LIMIT} as a guest (${PUBLIC_SPACES} public spaces at both sizes)`,
  members: '/v1/orgs/{id}/members',
  teams: '/v1/orgs/{id}/teams',
  collections: '/v1/orgs/{id}/collections',
  "a member's spaces": '/v1/orgs/{id}/members/{userId}/spaces',
  'change requests': '/v1/spaces/{id}/change-requests?status=draft',
  'change requests (organization)': '/v1/orgs/{id}/change-requests?status=draft',
  comments: '/v1/spaces/{id}/comments',
  'audit events': '/v1/orgs/{id}/audit-events',
  sites: '/v1/orgs/{id}/sites',
  integrations: '/v1/integrations?owner={id}',
};

const withQuery = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;

/** The list's count (checked against what was seeded) and the path of the page after a cursor from its middle. */
async function middlePage(
  service: Service,
  name: string,
  { path, token, count: atLeast }: { path: string; token: string; count: number },
): Promise<string> {
  const first = await expectStatus(200, call('GET', `${service.baseUrl}${path}`, { token }), `GET ${path}`);
  const count = (first.body as { count?: unknown }).count;
  if (typeof count !== 'number' || count < atLeast)
    throw new Error(`${name}: expected a count of at least ${atLeast} at ${path}, got ${JSON.stringify(count)}`);
  const half = Math.max(1, Math.min(1000, Math.floor(count / 2)));
  const halfway = new URL(path, service.baseUrl);
  halfway.searchParams.set('limit', String(half));
  const head = await expectStatus(200, call('GET', halfway.href, { token }), `GET ${path} (limit ${half})`);
  const next = (head.body as { next?: { page?: unknown } }).next?.page;
  if (typeof next !== 'string') throw new Error(`${name}: no next page after ${half} of ${count} at ${path}`);
  return withQuery(path, `page=${encodeURIComponent(next)}`);
}

const thousands = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * Seeds the two organizations as `token`'s user (admin token for the members' accounts), loads
 * every list at both sizes and returns one row per list, page and size, the verdict on the large
 * size's row. Prints a verdict line per list and page as it goes.
 */
export async function measureLists(service: Service, token: string, runId: string): Promise<ListRow[]> {
  const large = SIZE * SCALE;
  process.stdout.write(`seeding two organizations with ${thousands(SIZE)} and ${thousands(large)} of each listed thing through the API … `);
  const started = performance.now();
  const small = await seedOrganization(service, token, runId, SIZE);
  const big = await seedOrganization(service, token, runId, large);
  console.log(`${((performance.now() - started) / 1000).toFixed(0)} s`);
  console.log(
    `each page: ${SECONDS}s per size after ${WARMUP_SECONDS}s warm-up, ${ROUNDS} alternating slices, ${CONNECTIONS} connections, Cache-Control: no-cache\n`,
  );

  const rows: ListRow[] = [];
  const lines: string[] = [];
  for (const [name, smallList] of small) {
    if (FILTER.length > 0 && !FILTER.some((wanted) => name.includes(wanted))) continue;
    const largeList = big.get(name)!;
    const headers = { authorization: `Bearer ${smallList.token}`, 'cache-control': 'no-cache' };
    const largeHeaders = { authorization: `Bearer ${largeList.token}`, 'cache-control': 'no-cache' };
    const pages = [
      { page: 'first page', paths: [smallList.path, largeList.path] },
      { page: 'after a cursor', paths: [await middlePage(service, name, smallList), await middlePage(service, name, largeList)] },
    ];
    for (const { page, paths } of pages) {
      process.stdout.write(`  ${name}, ${page} … `);
      const [atSmall, atLarge] = await loadInterleaved(
        paths.map((path, i) => ({ url: `${service.baseUrl}${path}`, connections: CONNECTIONS, headers: i === 0 ? headers : largeHeaders })),
        SECONDS,
        WARMUP_SECONDS,
        ROUNDS,
      );
      const ratio = atSmall.requestsPerSecond / atLarge.requestsPerSecond;
      const failed = atSmall.non2xx + atSmall.errors + atLarge.non2xx + atLarge.errors;
      const ok = ratio <= RATIO_TARGET && failed === 0;
      const invalid = failed > 0 ? [{ ok: false, text: `INVALID (${failed} non-2xx or errors)` }] : [];
      rows.push({ name: `${name}, ${page}, ${thousands(SIZE)}`, result: atSmall, verdicts: invalid });
      rows.push({
        name: `${name}, ${page}, ${thousands(large)}`,
        result: atLarge,
        verdicts: [
          { ok: ratio <= RATIO_TARGET, text: `${ratio <= RATIO_TARGET ? 'met' : 'MISSED'}: ${ratio.toFixed(2)}x (≤ ${RATIO_TARGET}x)` },
          ...invalid,
        ],
      });
      console.log(`${ratio.toFixed(2)}x`);
      lines.push(
        `${ok ? 'PASS' : 'FAIL'}  ${`${name}, ${page}`.padEnd(32)} ${thousands(atSmall.requestsPerSecond).padStart(6)} req/s at ${thousands(SIZE)}, ` +
          `${thousands(atLarge.requestsPerSecond).padStart(6)} at ${thousands(large)}: ${ratio.toFixed(2)}x (≤ ${RATIO_TARGET}x)   GET ${ROUTES[name]}`,
      );
    }
  }
  console.log('\nlists at two sizes, uncached:');
  for (const line of lines) console.log(`  ${line}`);
  console.log('');
  return rows;
}
