/**
 * Heavy inputs: requests that are small to send and costly to serve (parsing, converting, inflating,
 * downloading, running a caller's script). The e2e suite (test/heavy-input.e2e.ts) sends each one
 * and checks the answer and that `GET /health` answers meanwhile; `npm run bench:heavy`
 * (bench/heavy-input.bench.ts) sends the same ones and measures how long `/health` waits meanwhile.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { strToU8, zipSync } from 'fflate';

export interface Answer {
  status: number;
  body: any;
}

/** How a case talks to the service: a JSON request with a bearer token (null: none). */
export type Send = (method: string, path: string, token: string | null, body?: unknown) => Promise<Answer>;

export interface HeavyContext {
  send: Send;
  token: string;
  organizationId: string;
  /** Base URL of the loopback file server (`fileServer`). */
  files: string;
}

export interface HeavyCase {
  name: string;
  /** Sends the heavy request(s); resolves once the service has done the work (processing included). */
  run(context: HeavyContext): Promise<Answer[]>;
  /** Statuses the heavy requests may answer: an over-budget input is refused, never a 5xx. */
  accepted: readonly number[];
  /** What the untrusted-work pool calls the case's work (`untrusted_work_seconds{task}`); absent when the case is bounded by sizes alone. */
  poolTask?: string;
}

const KIB = 1024;
const MIB = 1024 * KIB;

/** An OpenAPI document whose schemas form a chain of `levels`, each naming the next twice: 2^levels expansions if resolved naively. */
export function exponentialRefsSpec(levels: number): string {
  const schemas: Record<string, unknown> = {};
  for (let level = 0; level < levels; level++) {
    const next = { $ref: `#/components/schemas/S${level + 1}` };
    schemas[`S${level}`] = { type: 'object', properties: { left: next, right: next } };
  }
  schemas[`S${levels}`] = { type: 'string' };
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'Chain', version: '1' },
    paths: {
      '/chain': {
        get: {
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/S0' } } } } },
        },
      },
    },
    components: { schemas },
  });
}

/** A markdown list of about `bytes` bytes, nested a few levels: the shape that stalled conversion. */
export function markdownList(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `${'  '.repeat(i % 4)}- item ${i} with *emphasis*, \`code\` and a [link](https://example.com/${i})`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

/** A zip whose README.md is small compressed and inflates to `bytes` (past the page limit). */
export function inflatingZip(bytes: number): Buffer {
  return Buffer.from(
    zipSync(
      { 'SUMMARY.md': strToU8('# Summary\n\n* [Intro](README.md)\n'), 'README.md': strToU8(`# Intro\n\n${'a'.repeat(bytes)}\n`) },
      { level: 9 },
    ),
  );
}

/** A loopback server for the cases that make the service fetch: `/big.bin` (10 MiB), `/bomb.zip`, `/page.md`. */
export async function fileServer(): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  const big = Buffer.alloc(10 * MIB, 7);
  const bomb = inflatingZip(3 * MIB);
  const page = Buffer.from('# Imported\n\nA page imported from a markdown file.\n');
  let requests = 0;
  const server: Server = createServer((request, response) => {
    requests++;
    const body = request.url === '/big.bin' ? big : request.url === '/bomb.zip' ? bomb : request.url === '/page.md' ? page : null;
    if (!body) return void response.writeHead(404).end();
    const type =
      request.url === '/page.md' ? 'text/markdown' : request.url === '/bomb.zip' ? 'application/zip' : 'application/octet-stream';
    response.writeHead(200, { 'content-type': type, 'content-length': String(body.length) }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function created(context: HeavyContext, what: string, path: string, body: unknown): Promise<string> {
  const answer = await context.send('POST', path, context.token, body);
  if (answer.status !== 201 && answer.status !== 200)
    throw new Error(`${what}: POST ${path} answered ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
  return String(answer.body.id);
}

export function newSpace(context: HeavyContext, title: string): Promise<string> {
  return created(context, 'a space', `/v1/orgs/${context.organizationId}/spaces`, { title });
}

let unique = 0;
const uniqueName = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${unique++}`;

/** Publishes an integration of the organization with the given members; answers its name. */
export async function publishIntegration(context: HeavyContext, members: Record<string, unknown>): Promise<string> {
  const name = uniqueName('heavy');
  const answer = await context.send('POST', `/v1/integrations/${name}`, context.token, {
    organization: context.organizationId,
    title: 'Heavy',
    visibility: 'private',
    ...members,
  });
  if (answer.status >= 300)
    throw new Error(`publishing an integration answered ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
  return name;
}

const FINAL_PROCESSING = new Set(['complete', 'completed', 'failed']);

export const HEAVY_CASES: readonly HeavyCase[] = [
  {
    name: 'OpenAPI spec with 26 levels of doubled $refs',
    accepted: [201],
    poolTask: 'parsing and validating the OpenAPI document',
    async run(context) {
      const path = `/v1/orgs/${context.organizationId}/openapi`;
      const posted = await context.send('POST', path, context.token, {
        slug: uniqueName('chain'),
        source: { text: exponentialRefsSpec(26) },
      });
      if (posted.status !== 201) return [posted];
      const spec = `${path}/${posted.body.slug}`;
      for (let attempt = 0; attempt < 600; attempt++) {
        const read = await context.send('GET', spec, context.token);
        if (read.status !== 200 || FINAL_PROCESSING.has(read.body.processingState)) return [posted];
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the spec was still processing after a minute');
    },
  },
  {
    name: 'page of a 950 KB markdown list',
    accepted: [200, 413, 422],
    poolTask: 'converting markdown',
    async run(context) {
      const spaceId = await newSpace(context, 'Heavy markdown');
      return [
        await context.send('POST', `/v1/spaces/${spaceId}/content`, context.token, {
          changes: [{ operation: 'insert_page', title: 'List', document: { markdown: markdownList(950 * KIB) } }],
        }),
      ];
    },
  },
  {
    name: 'batch of 7 pages of 128 KB markdown lists',
    accepted: [200, 413, 422],
    poolTask: 'converting markdown',
    async run(context) {
      const spaceId = await newSpace(context, 'Heavy batch');
      const changes = Array.from({ length: 7 }, (_, i) => ({
        operation: 'insert_page',
        title: `List ${i}`,
        document: { markdown: markdownList(128 * KIB) },
      }));
      return [await context.send('POST', `/v1/spaces/${spaceId}/content`, context.token, { changes })];
    },
  },
  {
    name: 'five comments of a 16 KiB nested markdown list',
    accepted: [201, 422],
    poolTask: 'converting a comment body',
    async run(context) {
      const spaceId = await newSpace(context, 'Heavy comments');
      const written = await context.send('POST', `/v1/spaces/${spaceId}/content`, context.token, {
        changes: [{ operation: 'insert_page', title: 'Commented', document: { markdown: 'Text' } }],
      });
      if (written.status !== 200) throw new Error(`the page answered ${written.status} ${JSON.stringify(written.body).slice(0, 300)}`);
      const page = written.body.changes[0].page.id;
      const comment = () =>
        context.send('POST', `/v1/spaces/${spaceId}/comments`, context.token, { page, body: { markdown: markdownList(16 * KIB - 200) } });
      return Promise.all(Array.from({ length: 5 }, comment));
    },
  },
  {
    name: 'zip import whose README.md inflates to 3 MiB',
    accepted: [413, 422],
    poolTask: 'reading a zip archive',
    async run(context) {
      const spaceId = await newSpace(context, 'Heavy zip');
      return [
        await context.send('POST', `/v1/spaces/${spaceId}/content/import`, context.token, {
          source: 'zip',
          url: `${context.files}/bomb.zip`,
        }),
      ];
    },
  },
  {
    name: '20 files by URL of 10 MiB each, 10 batches at once',
    accepted: [200, 413],
    async run(context) {
      const spaceId = await newSpace(context, 'Heavy files');
      const files = Array.from({ length: 20 }, (_, i) => ({ name: `big-${i}.bin`, url: `${context.files}/big.bin` }));
      const batch = () =>
        context.send('POST', `/v1/spaces/${spaceId}/content`, context.token, { changes: [{ operation: 'insert_files', files }] });
      return Promise.all(Array.from({ length: 10 }, batch));
    },
  },
  {
    name: 'merge of 4 pages of 40,000 words rewritten on both sides',
    accepted: [200, 409, 422],
    poolTask: 'merging page bodies',
    async run(context) {
      const spaceId = await newSpace(context, 'Heavy merge');
      const text = (side: string) => Array.from({ length: 40_000 }, (_, i) => `${side}${i}`).join(' ');
      const ok = async (what: string, answer: Promise<Answer>): Promise<any> => {
        const { status, body } = await answer;
        if (status >= 300) throw new Error(`${what} answered ${status} ${JSON.stringify(body).slice(0, 300)}`);
        return body;
      };
      const base = await ok(
        'the pages',
        context.send('POST', `/v1/spaces/${spaceId}/content`, context.token, {
          changes: Array.from({ length: 4 }, (_, i) => ({
            operation: 'insert_page',
            title: `Long ${i}`,
            document: { markdown: text('a') },
          })),
        }),
      );
      const pageIds: string[] = base.changes.map((change: { page: { id: string } }) => change.page.id);
      const request = await ok(
        'the change request',
        context.send('POST', `/v1/spaces/${spaceId}/change-requests`, context.token, { subject: 'Rewrite' }),
      );
      const rewrite = (side: string) => ({
        changes: pageIds.map((page) => ({ operation: 'update_page', page, document: { markdown: text(side) } })),
      });
      await ok(
        'the request’s rewrite',
        context.send('POST', `/v1/spaces/${spaceId}/change-requests/${request.id}/content`, context.token, rewrite('o')),
      );
      await ok('main’s rewrite', context.send('POST', `/v1/spaces/${spaceId}/content`, context.token, rewrite('t')));
      return [await context.send('POST', `/v1/spaces/${spaceId}/change-requests/${request.id}/merge`, context.token)];
    },
  },
  {
    name: 'three renders of a component that loops forever',
    accepted: [200, 422],
    poolTask: 'rendering an integration component',
    async run(context) {
      const name = await publishIntegration(context, { script: 'module.exports = { components: { spin: () => { while (true) {} } } };' });
      const render = () =>
        context.send('POST', `/v1/integrations/${name}/render`, context.token, { componentId: 'spin', props: {}, state: {}, context: {} });
      return Promise.all([render(), render(), render()]);
    },
  },
];

/** `configurations.account` with `properties` string members, the schema of the configuration-check leak. */
export function wideConfigurationSchema(properties: number): Record<string, unknown> {
  return {
    properties: Object.fromEntries(Array.from({ length: properties }, (_, i) => [`field${i}`, { type: 'string', title: `Field ${i}` }])),
  };
}
