/**
 * `npm run bench:integrations`: integration events end to end (docs/api/integrations.md), on the
 * embedded stores, against the built service in a child process (bench/support/processes.ts) with
 * INTEGRATIONS_ALLOW_PRIVATE_NETWORKS=true, delivering to a receiver in this process standing for a
 * developer's tunnel.
 *
 * An integration is published, its tunnel set, and installed with `space_selection: all`; every
 * content write to a space of the organization then derives one `space_content_updated` event.
 *
 * 1. Commit → tunnel delivery lag at idle: BENCH_SAMPLES (100) single writes, one at a time; for
 *    each, the time from sending the write to the receiver getting its event (the domain event is
 *    committed while the write is handled, so this is an upper bound of the lag from its commit to
 *    its delivery). Target: p99 under 50 ms.
 * 2. Throughput: BENCH_EVENTS (1,000) writes over 10 spaces, BENCH_CONNECTIONS (10) at a time; events
 *    derived and delivered per second, from the first write to the last delivery.
 *
 * Only errors exit non-zero; a missed target is reported as MISS.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { call, expectStatus, stringField } from './support/http';
import { startService } from './support/processes';
import { positiveInteger } from './support/settings';

const SAMPLES = positiveInteger('BENCH_SAMPLES', 100);
const EVENTS = positiveInteger('BENCH_EVENTS', 1000);
const CONNECTIONS = positiveInteger('BENCH_CONNECTIONS', 10);
const SPACES = 10;
const LAG_P99_TARGET_MS = 50;
const MAIN_JS = join(__dirname, '../apps/api/src/main.js');

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

async function main(): Promise<void> {
  /** Revision id of each space_content_updated received → when. */
  const arrivals = new Map<string, number>();
  const waiting = new Map<string, () => void>();
  const receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const at = performance.now();
      response.writeHead(200).end();
      // A delivery is the event itself, as the platform's runtime reads it.
      const event = JSON.parse(body) as { type: string; revisionId?: string };
      if (event.type !== 'space_content_updated' || !event.revisionId) return;
      arrivals.set(event.revisionId, at);
      waiting.get(event.revisionId)?.();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const tunnelUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const service = await startService({ mainJs: MAIN_JS, env: { INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: 'true' }, readyTimeoutMs: 120_000 });
  try {
    const base = service.baseUrl;
    const user = await expectStatus(
      201,
      call('POST', `${base}/v1/admin/users`, {
        token: service.adminToken,
        body: { email: `integrations-bench-${Date.now()}@example.com`, displayName: 'Bench' },
      }),
      'creating a user',
    );
    const token = stringField(user.body, 'token', 'user');
    const organizationId = stringField(
      (await expectStatus(201, call('POST', `${base}/v1/orgs`, { token, body: { title: 'Integrations bench' } }), 'organization')).body,
      'id',
      'organization',
    );
    await expectStatus(
      200,
      call('POST', `${base}/v1/integrations/bench-tunnel`, {
        token,
        body: { organization: organizationId, title: 'Bench', visibility: 'private' },
      }),
      'publishing',
    );
    await expectStatus(204, call('PUT', `${base}/v1/integrations/bench-tunnel/dev`, { token, body: { tunnelUrl } }), 'setting the tunnel');
    const installationId = stringField(
      (
        await expectStatus(
          201,
          call('POST', `${base}/v1/integrations/bench-tunnel/installations`, { token, body: { organization: organizationId } }),
          'installing',
        )
      ).body,
      'id',
      'installation',
    );
    await expectStatus(
      200,
      call('PATCH', `${base}/v1/integrations/bench-tunnel/installations/${installationId}`, { token, body: { space_selection: 'all' } }),
      'every space',
    );
    const spaces: string[] = [];
    for (let i = 0; i < SPACES; i += 1)
      spaces.push(
        stringField(
          (
            await expectStatus(
              201,
              call('POST', `${base}/v1/orgs/${organizationId}/spaces`, { token, body: { title: `Space ${i}` } }),
              'space',
            )
          ).body,
          'id',
          'space',
        ),
      );
    let written = 0;
    const write = async (spaceId: string) => {
      const started = performance.now();
      const answer = await expectStatus(
        200,
        call('POST', `${base}/v1/spaces/${spaceId}/content`, {
          token,
          body: { changes: [{ operation: 'insert_page', title: `Page ${++written}`, document: { markdown: 'Text.' } }] },
        }),
        'writing',
      );
      return { revision: stringField(answer.body, 'revision', 'write'), started };
    };
    const delivered = (revision: string) =>
      arrivals.has(revision) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(revision, resolve));

    // Warm-up, then the delay at idle.
    for (let i = 0; i < 10; i += 1) await delivered((await write(spaces[0])).revision);
    const delays: number[] = [];
    for (let i = 0; i < SAMPLES; i += 1) {
      const { revision, started } = await write(spaces[i % SPACES]);
      await delivered(revision);
      delays.push(arrivals.get(revision)! - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    // Throughput.
    const started = performance.now();
    const revisions: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (next < EVENTS) {
          const index = next++;
          revisions.push((await write(spaces[index % SPACES])).revision);
        }
      }),
    );
    await Promise.all(revisions.map(delivered));
    const elapsed = (Math.max(...revisions.map((revision) => arrivals.get(revision)!)) - started) / 1000;

    const p50 = percentile(delays, 50);
    const p99 = percentile(delays, 99);
    console.log('| measure | value |\n|---|---|');
    console.log(`| delay at idle, write sent → delivered, p50 | ${p50.toFixed(1)} ms |`);
    console.log(`| commit → tunnel delivery lag at idle (upper bound: from sending the write), p99 | ${p99.toFixed(1)} ms |`);
    console.log(
      `| events derived and delivered per second (${EVENTS} writes, ${CONNECTIONS} at a time) | ${(EVENTS / elapsed).toFixed(0)} /s |`,
    );
    console.log(
      `\ntarget commit → tunnel delivery lag p99 < ${LAG_P99_TARGET_MS} ms at idle: ${p99.toFixed(1)} ms ${p99 < LAG_P99_TARGET_MS ? 'OK' : 'MISS'}`,
    );
  } finally {
    await service.stop();
    receiver.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
