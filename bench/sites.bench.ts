/**
 * `npm run bench:sites`: a published page of a small and of a large space, through the service
 * started as a user starts it (`node dist/apps/api/src/main.js`, embedded stores, fresh data
 * directory). One organization, one space of 20 pages (one group of 19) and one of 2,000 (ten
 * groups of 199), each published as a public site; each site's page `group-0/page-0-5` is loaded
 * by autocannon (10 connections, `Cache-Control: no-cache`, BENCH_SITES_SECONDS (5) after a 1 s
 * warm-up). The page's HTML carries the site's whole navigation, so the large space's answer is
 * about 66 times as many bytes: the figures show what a request costs beyond its bytes.
 * Diagnostic: no target of its own.
 */
import { call, poster, stringField } from './support/http';
import { load } from './support/load';
import { startService } from './support/processes';
import { positive } from './support/settings';
import { join } from 'node:path';

const SECONDS = positive('BENCH_SITES_SECONDS', 5);

async function main(): Promise<void> {
  const service = await startService({ mainJs: join(__dirname, '..', 'apps', 'api', 'src', 'main.js') });
  try {
    const admin = poster(service.baseUrl, service.adminToken);
    const token = stringField(
      await admin('/v1/admin/users', { email: 'sites-bench@example.com', displayName: 'Ada' }, 201),
      'token',
      'user',
    );
    const post = poster(service.baseUrl, token);
    const organizationId = stringField(await post('/v1/orgs', { title: 'Sites bench' }), 'id', 'organization');
    for (const groups of [1, 10]) {
      const pages = groups === 1 ? 20 : 2000;
      const spaceId = stringField(await post(`/v1/orgs/${organizationId}/spaces`, { title: `${pages} pages` }), 'id', 'space');
      for (let g = 0; g < groups; g++) {
        const group = await post(
          `/v1/spaces/${spaceId}/content`,
          { changes: [{ operation: 'insert_page', title: `Group ${g}`, document: { markdown: `Group ${g}.` } }] },
          200,
        );
        const into = String(group.changes[0].page.id);
        const count = groups === 1 ? 19 : 199;
        // At most 50 changes per write (the API's limit).
        for (let start = 0; start < count; start += 50) {
          const changes = Array.from({ length: Math.min(50, count - start) }, (_, i) => ({
            operation: 'insert_page',
            title: `Page ${g}-${start + i}`,
            document: { markdown: `Text ${start + i}.` },
            into,
          }));
          await post(`/v1/spaces/${spaceId}/content`, { changes }, 200);
        }
      }
      const siteId = stringField(
        await post(`/v1/orgs/${organizationId}/sites`, { title: `Site of ${pages} pages`, spaces: [spaceId] }),
        'id',
        'site',
      );
      await post(`/v1/orgs/${organizationId}/sites/${siteId}/publish`, undefined, 200);
      const url = `${service.baseUrl}/sites/${siteId}/group-0/page-0-5`;
      const page = await call('GET', url);
      if (page.status !== 200) throw new Error(`the published page answered ${page.status}`);
      const result = await load({ url, connections: 10, headers: { 'cache-control': 'no-cache' } }, SECONDS, 1);
      console.log(
        `published page, a space of ${pages.toLocaleString('en-US')} pages: ${Math.round(result.requestsPerSecond).toLocaleString('en-US')} req/s, p99 ${result.p99.toFixed(2)} ms, ${String(page.body).length.toLocaleString('en-US')} characters of HTML`,
      );
    }
  } finally {
    await service.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
