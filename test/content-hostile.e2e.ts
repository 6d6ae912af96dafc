/**
 * Content writes and imports that cost more than their size says, through HTTP against the
 * embedded service: markdown whose conversion takes long (a batch shares one conversion budget,
 * CONTENT_CONVERSION_TIME_MS, here 5 s), a zip whose page inflates past what a page may be, and
 * files by URL that together pass CONTENT_UPLOAD_MAX_BYTES (here 3 MiB). Each is refused in the
 * envelope (422 over the time budget, 413 over a size), leaves the space as it was (a batch is all
 * or nothing) and `GET /health` answers meanwhile: the conversions run on the untrusted-work pool
 * and files stream into the blob store one at a time.
 *
 * Files and archives are served by a local server on 127.0.0.1 that counts its requests and how
 * many run at once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { strToU8, zipSync } from 'fflate';
import { cleanUpServices, expectError, startService, type Response, type RunningService } from './support/service';

const MIB = 1024 * 1024;
const CONVERSION_TIME_MS = 5000;
const UPLOAD_MAX_BYTES = 3 * MIB;

let service: RunningService;
let token: string;
let organizationId: string;
let files: Server;
let filesUrl: string;
/** Requests the file server took, and the most it served at once. */
const served = { requests: 0, running: 0, mostAtOnce: 0 };

/** A 2×3 PNG (its header says so). */
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000020000000308060000009db2d2a30000000d4944415478da636060f80f0001040100f5e6cd6b0000000049454e44ae426082',
  'hex',
);
const MEBIBYTE = Buffer.alloc(MIB, 7);

/** A markdown list of about `bytes`, nested three levels: a shape micromark reads slowly. */
function nestedList(bytes: number, seed = 0): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `${'  '.repeat(i % 3)}- item ${seed}.${i} with *emphasis* and \`code\``;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

/** README.md is 3 MiB of text (past the 3 MiB a page's markdown may take), a few KB compressed. */
const INFLATING_ZIP = Buffer.from(
  zipSync(
    { 'SUMMARY.md': strToU8('# Summary\n\n* [Intro](README.md)\n'), 'README.md': strToU8(`# Intro\n\n${'a'.repeat(3 * MIB)}\n`) },
    { level: 9 },
  ),
);
/** 30 pages of 40 KB nested lists: each alone converts within the budget, all together do not. */
const MANY_PAGES_ZIP = Buffer.from(
  zipSync(
    Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`page-${i}.md`, strToU8(`# Page ${i}\n\n${nestedList(40 * 1024, i)}\n`)])),
    { level: 9 },
  ),
);

async function startFileServer(): Promise<void> {
  files = createServer((request, response) => {
    served.requests++;
    served.running++;
    served.mostAtOnce = Math.max(served.mostAtOnce, served.running);
    response.on('close', () => served.running--);
    const path = (request.url ?? '/').split('?')[0];
    const send = (type: string, body: Buffer) =>
      response.writeHead(200, { 'content-type': type, 'content-length': String(body.length) }).end(body);
    if (path.startsWith('/mebibyte-')) return send('application/octet-stream', MEBIBYTE);
    if (path === '/pixel.png') return send('image/png', PNG);
    if (path === '/inflating.zip') return send('application/zip', INFLATING_ZIP);
    if (path === '/many-pages.zip') return send('application/zip', MANY_PAGES_ZIP);
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
}

const call = (method: string, path: string, body?: unknown) => service.request(method, path, { token, body });

async function createSpace(title: string): Promise<string> {
  const response = await call('POST', `/v1/orgs/${organizationId}/spaces`, { title });
  if (response.status !== 201) throw new Error(`creating a space answered ${response.status}: ${response.text.slice(0, 300)}`);
  return response.body.id;
}

/** The space's content (its revision, pages and files). */
async function contentOf(spaceId: string): Promise<{ id: string; pages: unknown[]; files: unknown[] }> {
  return (await call('GET', `/v1/spaces/${spaceId}/content`)).body;
}

/** Sends the heavy request and, while it is in flight, `GET /health`; answers both. */
async function whileHealthChecked(heavy: () => Promise<Response>): Promise<{ answer: Response; health: Response }> {
  const running = heavy();
  const health = await service.request('GET', '/health');
  return { answer: await running, health };
}

let warmSpaceId: string | undefined;

/**
 * A small write, until one succeeds: the pool's thread started and its modules loaded, so that a
 * later task's budget is its own (a task over its budget ends its thread; the next starts another).
 */
async function warmPool(): Promise<void> {
  const spaceId = (warmSpaceId ??= await createSpace('Warm-up'));
  for (let attempt = 1; ; attempt++) {
    const response = await call('POST', `/v1/spaces/${spaceId}/content`, {
      changes: [{ operation: 'insert_page', title: 'Warm', document: { markdown: '# Warm\n\n- a\n  - b\n' } }],
    });
    if (response.status === 200 || attempt === 5) return;
  }
}

beforeAll(async () => {
  await startFileServer();
  service = await startService({
    env: {
      IMPORT_ALLOW_PRIVATE_NETWORKS: 'true',
      CONTENT_CONVERSION_TIME_MS: String(CONVERSION_TIME_MS),
      CONTENT_UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES),
      UNTRUSTED_WORK_THREADS: '1',
    },
  });
  ({ token } = await service.createUser('ada@hostile-content.example', 'Ada'));
  organizationId = (await call('POST', '/v1/orgs', { title: 'Hostile content' })).body.id;
}, 120_000);

afterAll(async () => {
  await cleanUpServices();
  await new Promise((resolve) => files.close(resolve));
});

describe('markdown conversion', () => {
  it('writes a page of a 40 KB nested markdown list, converted on the pool, while GET /health answers 200', async () => {
    const spaceId = await createSpace('One list');
    await warmPool();
    const { answer, health } = await whileHealthChecked(() =>
      call('POST', `/v1/spaces/${spaceId}/content`, {
        changes: [{ operation: 'insert_page', title: 'List', document: { markdown: nestedList(40 * 1024) } }],
      }),
    );
    expect(health.status).toBe(200);
    expect(answer.status).toBe(200);
    const page = (await call('GET', `/v1/spaces/${spaceId}/content/page/${answer.body.changes[0].page.id}`)).body;
    expect(page.document.nodes[0].type).toBe('list-unordered');
  }, 120_000);

  it('refuses with 422 a batch of 50 such pages, whose conversions together pass the one budget of the write, and stores none of them, while GET /health answers 200', async () => {
    const spaceId = await createSpace('Fifty lists');
    const before = await contentOf(spaceId);
    const changes = Array.from({ length: 50 }, (_, i) => ({
      operation: 'insert_page',
      title: `List ${i}`,
      document: { markdown: nestedList(40 * 1024, i) },
    }));
    const { answer, health } = await whileHealthChecked(() => call('POST', `/v1/spaces/${spaceId}/content`, { changes }));
    expect(health.status).toBe(200);
    expectError(answer, 422, /converting markdown for this write took longer than its budget of 5 s/);
    const after = await contentOf(spaceId);
    expect({ revision: after.id, pages: after.pages }).toEqual({ revision: before.id, pages: [] });
  }, 120_000);
});

describe('zip imports', () => {
  it('refuses with 413 a zip whose README.md inflates past what a page may be, naming the entry, before reading it, while GET /health answers 200', async () => {
    const spaceId = await createSpace('Inflating zip');
    const before = await contentOf(spaceId);
    const { answer, health } = await whileHealthChecked(() =>
      call('POST', `/v1/spaces/${spaceId}/content/import`, { source: 'zip', url: `${filesUrl}/inflating.zip` }),
    );
    expect(health.status).toBe(200);
    expectError(answer, 413, /archive entry README\.md is larger than the \d+ bytes a page's markdown may have/);
    expect((await contentOf(spaceId)).id).toBe(before.id);
  }, 120_000);

  it('refuses with 422 a zip of 30 pages whose conversions together pass the one budget of the import, and imports none of them, while GET /health answers 200', async () => {
    const spaceId = await createSpace('Many pages');
    const before = await contentOf(spaceId);
    const { answer, health } = await whileHealthChecked(() =>
      call('POST', `/v1/spaces/${spaceId}/content/import`, { source: 'zip', url: `${filesUrl}/many-pages.zip` }),
    );
    expect(health.status).toBe(200);
    expectError(answer, 422, /for this import took longer than its budget of 5 s/);
    const after = await contentOf(spaceId);
    expect({ revision: after.id, pages: after.pages }).toEqual({ revision: before.id, pages: [] });
  }, 120_000);
});

describe('files by URL', () => {
  beforeEach(() => {
    served.requests = 0;
    served.mostAtOnce = 0;
  });

  it('streams files by URL into the store, one download at a time, with their sizes and an image’s dimensions', async () => {
    const spaceId = await createSpace('Streamed files');
    const fileList = [
      { name: 'pixel.png', url: `${filesUrl}/pixel.png` },
      { name: 'one.bin', url: `${filesUrl}/mebibyte-1` },
      { name: 'two.bin', url: `${filesUrl}/mebibyte-2` },
    ];
    const { answer, health } = await whileHealthChecked(() =>
      call('POST', `/v1/spaces/${spaceId}/content`, { changes: [{ operation: 'insert_files', files: fileList }] }),
    );
    expect(health.status).toBe(200);
    expect(answer.status).toBe(200);
    expect(
      answer.body.insertedFiles.map((file: { name: string; size: number; dimensions?: unknown }) => [
        file.name,
        file.size,
        file.dimensions,
      ]),
    ).toEqual([
      ['pixel.png', PNG.length, { width: 2, height: 3 }],
      ['one.bin', MIB, undefined],
      ['two.bin', MIB, undefined],
    ]);
    expect(served).toMatchObject({ requests: 3, mostAtOnce: 1 });
    const download = await service.request('GET', answer.body.insertedFiles[1].downloadURL.slice(service.url.length));
    expect({ status: download.status, sameBytes: download.bytes.equals(MEBIBYTE) }).toEqual({ status: 200, sameBytes: true });
  }, 120_000);

  it('refuses with 413 a batch whose files by URL pass CONTENT_UPLOAD_MAX_BYTES together, fetching no file after the one that passes it, and stores none of them', async () => {
    const spaceId = await createSpace('Too many files');
    await warmPool();
    const before = await contentOf(spaceId);
    const fileList = Array.from({ length: 10 }, (_, i) => ({ name: `file-${i}.bin`, url: `${filesUrl}/mebibyte-${i}` }));
    const changes = [
      { operation: 'insert_page', title: 'With files', document: { markdown: 'Some text.' } },
      { operation: 'insert_files', files: fileList },
    ];
    const { answer, health } = await whileHealthChecked(() => call('POST', `/v1/spaces/${spaceId}/content`, { changes }));
    expect(health.status).toBe(200);
    expectError(answer, 413, `the files of this write are larger than ${UPLOAD_MAX_BYTES} bytes together (passed at file file-3.bin)`);
    // Three of 1 MiB fill the 3 MiB; the fourth is refused by its Content-Length, the rest never asked for.
    expect(served).toMatchObject({ requests: 4, mostAtOnce: 1 });
    const after = await contentOf(spaceId);
    expect({ revision: after.id, pages: after.pages, files: after.files }).toEqual({ revision: before.id, pages: [], files: [] });
  }, 120_000);

  it('refuses with 413 a batch whose inline files alone pass CONTENT_UPLOAD_MAX_BYTES, before fetching any file by URL', async () => {
    const spaceId = await createSpace('Inline files');
    const inline = Array.from({ length: 4 }, (_, i) => ({ name: `inline-${i}.bin`, base64: MEBIBYTE.toString('base64') }));
    const answer = await call('POST', `/v1/spaces/${spaceId}/content`, {
      changes: [{ operation: 'insert_files', files: [{ name: 'first.bin', url: `${filesUrl}/mebibyte-0` }, ...inline] }],
    });
    expectError(answer, 413, /the files of this write are larger than \d+ bytes together \(passed at file inline-3\.bin\)/);
    expect(served.requests).toBe(0);
    expect((await contentOf(spaceId)).files).toEqual([]);
  }, 120_000);
});
