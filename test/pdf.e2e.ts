/**
 * The PDF of a change request through HTTP against the embedded service: rendered on the
 * untrusted-work pool once per revision (and page options, and title), stored, and served as stored
 * on later GETs of its signed URL; over its budget it answers 422 and nothing is stored.
 *
 * Whether a GET rendered is read from /metrics: `untrusted_work_seconds_count{task="rendering the
 * PDF",outcome="ok"}` counts the renders that ended well.
 */
import { PDFDocument } from 'pdf-lib';
import { cleanUpServices, ok, startService, type RunningService } from './support/service';

interface Person {
  id: string;
  token: string;
}

let service: RunningService;
let ada: Person;
let organizationId: string;

const call = (method: string, path: string, body?: unknown) => service.request(method, path, { token: ada.token, body });
const insert = (title: string, markdown: string) => ({ operation: 'insert_page', title, document: { markdown } });

/** A space with these pages, and a change request on it: its id. */
async function requestWith(changes: unknown[]): Promise<{ spaceId: string; requestId: string }> {
  const spaceId = ok(await call('POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Docs' }), 201).body.id;
  ok(await call('POST', `/v1/spaces/${spaceId}/content`, { changes }));
  const requestId = ok(await call('POST', `/v1/spaces/${spaceId}/change-requests`, { subject: 'Proposal' }), 201).body.id;
  return { spaceId, requestId };
}

/** The path and query of the request's signed PDF URL, as its `GET .../pdf` answers it now. */
async function signedPath(spaceId: string, requestId: string): Promise<string> {
  const { url } = ok(await call('GET', `/v1/spaces/${spaceId}/change-requests/${requestId}/pdf`)).body as { url: string };
  return new URL(url).pathname + new URL(url).search;
}

const download = (path: string) => service.request('GET', path, {});

/** PDFs rendered so far (renders that ended well), from /metrics. */
async function rendersSoFar(): Promise<number> {
  const metrics = ok(await service.request('GET', '/metrics')).text;
  const line = metrics
    .split('\n')
    .find(
      (entry) =>
        entry.startsWith('untrusted_work_seconds_count{') && entry.includes('task="rendering the PDF"') && entry.includes('outcome="ok"'),
    );
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Markdown of a long list: a page body that fills many PDF pages. */
function longList(items: number): string {
  return Array.from({ length: items }, (_, i) => `- item ${i}: ${'lorem ipsum dolor sit amet '.repeat(3)}`).join('\n');
}

/** A valid 1x1 RGBA PNG. */
const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

beforeAll(async () => {
  service = await startService();
  const created = await service.createUser('ada@pdf.example', 'Ada');
  ada = { id: created.user.id, token: created.token };
  organizationId = ok(await call('POST', '/v1/orgs', { title: 'PDF Inc' }), 201).body.id;
});

afterAll(async () => {
  await cleanUpServices();
});

describe('the PDF of a change request', () => {
  it('is rendered once: a second GET of its signed URL answers the same bytes without rendering again', async () => {
    const { spaceId, requestId } = await requestWith([insert('One', '# One\n\ntext'), insert('Two', 'two')]);
    const path = await signedPath(spaceId, requestId);
    const before = await rendersSoFar();
    const first = ok(await download(path));
    expect(first.headers['content-type']).toBe('application/pdf');
    expect((await PDFDocument.load(first.bytes)).getPageCount()).toBe(2);
    expect(await rendersSoFar()).toBe(before + 1);
    const second = ok(await download(path));
    expect(second.bytes.equals(first.bytes)).toBe(true);
    expect(await rendersSoFar()).toBe(before + 1);
  });

  it('is rendered again for a new revision of the request', async () => {
    const { spaceId, requestId } = await requestWith([insert('One', 'one')]);
    const first = ok(await download(await signedPath(spaceId, requestId)));
    const before = await rendersSoFar();
    ok(await call('POST', `/v1/spaces/${spaceId}/change-requests/${requestId}/content`, { changes: [insert('Two', 'two')] }));
    const second = ok(await download(await signedPath(spaceId, requestId)));
    expect(await rendersSoFar()).toBe(before + 1);
    expect((await PDFDocument.load(first.bytes)).getPageCount()).toBe(1);
    expect((await PDFDocument.load(second.bytes)).getPageCount()).toBe(2);
  });

  it('draws the revision’s images, handed to the renderer as bytes', async () => {
    const { spaceId, requestId } = await requestWith([
      { operation: 'insert_files', files: [{ name: 'dot.png', base64: PNG_1X1.toString('base64'), ref: 'dot' }] },
      insert('With image', '![a dot](./dot)'),
    ]);
    const pdf = ok(await download(await signedPath(spaceId, requestId)));
    expect(pdf.bytes.toString('latin1')).toContain('/Subtype /Image');
  });

  it('keeps GET /health answering while a large PDF is rendered', async () => {
    const { spaceId, requestId } = await requestWith(Array.from({ length: 2 }, (_, i) => insert(`Long ${i}`, longList(400))));
    const path = await signedPath(spaceId, requestId);
    const [pdf, health] = await Promise.all([download(path), service.request('GET', '/health')]);
    expect(health.status).toBe(200);
    expect(pdf.status).toBe(200);
  });

  it('answers 422 when its rendering runs over its budget, stores nothing, and is rendered once within budget', async () => {
    const { spaceId, requestId } = await requestWith(Array.from({ length: 2 }, (_, i) => insert(`Long ${i}`, longList(400))));
    const path = await signedPath(spaceId, requestId);
    const { dataDir } = service;
    await service.stop();
    // The same data with a budget of 100 ms for every task of the pool.
    service = await startService({ dataDir, env: { UNTRUSTED_WORK_TIME_MS: '100' } });
    const [refused, health] = await Promise.all([download(path), service.request('GET', '/health')]);
    expect(health.status).toBe(200);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toEqual({ code: 422, message: 'rendering the PDF took longer than its budget of 0.1 s' });
    await service.stop();
    service = await startService({ dataDir });
    const pdf = ok(await download(path));
    expect((await PDFDocument.load(pdf.bytes)).getPageCount()).toBeGreaterThan(2);
    expect(await rendersSoFar()).toBe(1);
  });
});
