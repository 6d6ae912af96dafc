/**
 * Backup of a live embedded service while it takes writes, restore and start on the copy; export
 * of a stopped instance, import into a fresh data directory and start on it. The CLI runs in this
 * process, the service in a child process: the backup shares the data directory with the process
 * that holds its lock, as it would in production.
 */
import { join } from 'node:path';
import { LmdbEventStore } from '#event-store/lmdb/lmdb-event-store';
import type { RecordedEvent } from '#event-store/event-store.port';
import { cleanUpServices, ok, startService, temporaryDirectory, until, type RunningService } from '../../../test/support/service';
import { runCli } from './cli';
import { capturedIo } from './testing/captured-io';

jest.setTimeout(240_000);

async function logOf(dataDir: string): Promise<RecordedEvent[]> {
  const store = LmdbEventStore.open(join(dataDir, 'events'));
  try {
    const events: RecordedEvent[] = [];
    for (;;) {
      const page = await store.readAll({ after: events.at(-1)?.position, maxCount: 1000 });
      if (page.length === 0) return events;
      events.push(...page);
    }
  } finally {
    await store.close();
  }
}

const insert = (title: string, markdown: string) => ({ operation: 'insert_page', title, document: { markdown } });

let source: RunningService;
let token: string;
let organizationId: string;
let spaceId: string;
let changeRequestId: string;

afterAll(cleanUpServices);

beforeAll(async () => {
  source = await startService();
  ({ token } = await source.createUser());
  organizationId = ok(await source.request('POST', '/v1/orgs', { token, body: { title: 'Acme' } }), 201).body.id;
  spaceId = ok(await source.request('POST', `/v1/orgs/${organizationId}/spaces`, { token, body: { title: 'Docs' } }), 201).body.id;
  ok(
    await source.request('POST', `/v1/spaces/${spaceId}/content`, {
      token,
      body: {
        changes: [
          insert('Intro', '# Intro\n\nHello.'),
          { operation: 'insert_files', files: [{ name: 'notes.txt', base64: Buffer.from('some notes').toString('base64') }] },
        ],
      },
    }),
  );
  changeRequestId = ok(await source.request('POST', `/v1/spaces/${spaceId}/change-requests`, { token, body: { subject: 'Typos' } }), 201)
    .body.id;
});

describe('backup of a live service', () => {
  it('restores every write acknowledged before it began, as a prefix of the log that ends with a whole append', async () => {
    // Given a writer that keeps adding two pages per request (one append of several events, with bodies in blobs)
    const acknowledged: Array<{ at: number; titles: string[] }> = [];
    let writing = true;
    const writer = (async () => {
      for (let n = 0; writing; n += 1) {
        const titles = [`Page ${n}a`, `Page ${n}b`];
        const response = await source.request('POST', `/v1/spaces/${spaceId}/content`, {
          token,
          body: { changes: titles.map((title) => insert(title, `# ${title}\n\nBody ${n}.`)) },
        });
        if (response.status === 200) acknowledged.push({ at: Date.now(), titles });
      }
    })();
    await until('a few writes acknowledged', async () => (acknowledged.length >= 3 ? true : undefined));

    // When a backup runs while it writes
    const began = Date.now();
    const backupDir = join(temporaryDirectory(), 'backup');
    const backup = capturedIo();
    expect(await runCli(['backup', backupDir], backup.io, { DATA_DIR: source.dataDir })).toBe(0);
    await until('a write acknowledged after the backup', async () => (acknowledged.some((write) => write.at > began) ? true : undefined));
    writing = false;
    await writer;
    const before = acknowledged.filter((write) => write.at < began).flatMap((write) => write.titles);

    // Then a restore into a fresh directory starts and serves every page acknowledged before the backup
    const restoredDir = temporaryDirectory();
    const restore = capturedIo();
    expect(await runCli(['restore', backupDir], restore.io, { DATA_DIR: restoredDir })).toBe(0);
    const restoredLog = await logOf(restoredDir);
    const restored = await startService({ dataDir: restoredDir });
    const titles = await until('the restored pages', async () => {
      const response = await restored.request('GET', `/v1/spaces/${spaceId}/content/pages`, { token });
      return response.status === 200 ? (response.body.pages as Array<{ title: string }>).map((page) => page.title) : undefined;
    });
    expect(titles).toEqual(expect.arrayContaining(before));
    await restored.stop();

    // And the restored log is the live log's first events, cut after a whole append
    await source.stop();
    const liveLog = await logOf(source.dataDir);
    expect(restoredLog).toEqual(liveLog.slice(0, restoredLog.length));
    const [last, next] = [restoredLog.at(-1)!, liveLog[restoredLog.length]];
    if (next)
      expect(next.streamId === last.streamId && next.recordedAt === last.recordedAt && next.revision === last.revision + 1).toBe(false);
  });
});

describe('export and import', () => {
  const reads = () => [
    `/v1/orgs/${organizationId}/spaces`,
    `/v1/spaces/${spaceId}`,
    `/v1/spaces/${spaceId}/content`,
    `/v1/spaces/${spaceId}/content/pages`,
    `/v1/spaces/${spaceId}/content/files`,
    `/v1/spaces/${spaceId}/change-requests`,
    `/v1/spaces/${spaceId}/change-requests/${changeRequestId}`,
  ];

  async function answers(service: RunningService): Promise<unknown[]> {
    const all: unknown[] = [];
    for (const path of reads()) {
      const response = await service.request('GET', path, { token });
      // Each service has its own port, and download URLs are signed with an expiry: the same file, another signature.
      const text = response.text
        .split(service.url)
        .join('<service>')
        .replace(/"downloadURL":"[^"]*"/g, '"downloadURL":"…"');
      all.push({ path, status: response.status, body: JSON.parse(text) });
    }
    return all;
  }

  it('answers every read the same on a fresh data directory the export was imported into', async () => {
    // Given the instance, stopped, and its answers
    await source.restart();
    const before = await answers(source);
    await source.stop();

    // When its export is imported into a fresh directory
    const exportDir = join(temporaryDirectory(), 'export');
    const exported = capturedIo();
    expect(await runCli(['export', exportDir], exported.io, { DATA_DIR: source.dataDir })).toBe(0);
    const freshDir = temporaryDirectory();
    const imported = capturedIo();
    expect(await runCli(['import', exportDir], imported.io, { DATA_DIR: freshDir })).toBe(0);

    // Then the service started on it answers the same
    const fresh = await startService({ dataDir: freshDir });
    expect(await answers(fresh)).toEqual(before);
  });
});
