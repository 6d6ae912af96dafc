/**
 * Space content through HTTP against the embedded service: the batch write (an extension), every
 * read of the "Space content" table with its flags, files and their download URLs, links and
 * backlinks, search, history and rollback, imports from a local HTTP server, and what the space's
 * lifecycle does to content.
 *
 * The people: ada creates the organization (admin); rita reads (role `read`); zed is outside.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { zipSync, strToU8 } from 'fflate';
import { joinAs } from './support/members';
import { platformSchemaProblem } from './support/platform-schema';
import { cleanUpServices, expectError, startService, type Response, type RunningService } from './support/service';

interface Person {
  id: string;
  token: string;
}
interface Page {
  id: string;
  title: string;
  type: string;
  kind: string;
  slug?: string;
  path?: string;
  pages?: Page[];
  markdown?: string;
  document?: { object: 'document'; nodes: Array<{ type: string; key?: string; nodes?: unknown[] }> };
  [member: string]: unknown;
}
interface WriteResult {
  revision: string;
  changes: Array<{ object: string; page: { id: string; title: string; path: string }; ref?: string }>;
  insertedFiles: Array<{
    id: string;
    name: string;
    contentType: string;
    downloadURL: string;
    size: number;
    dimensions?: { width: number; height: number };
  }>;
}

let service: RunningService;
let organizationId: string;
const people: Record<'ada' | 'rita' | 'zed', Person> = {} as never;

const call = (person: Person | null, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  service.request(method, path, { token: person?.token, body, headers });

function expectStatus(response: Response, status: number): void {
  expect({ status: response.status, body: response.body }).toEqual({ status, body: status === 204 ? '' : expect.anything() });
}

async function createSpace(title = 'Docs'): Promise<string> {
  const response = await call(people.ada, 'POST', `/v1/orgs/${organizationId}/spaces`, { title });
  expectStatus(response, 201);
  return response.body.id;
}

async function write(spaceId: string, changes: unknown[], headers?: Record<string, string>): Promise<WriteResult> {
  const response = await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, { changes }, headers);
  if (response.status !== 200) throw new Error(`POST /content answered ${response.status}: ${response.text.slice(0, 500)}`);
  return response.body;
}

const insert = (title: string, markdown: string, extra: Record<string, unknown> = {}) => ({
  operation: 'insert_page',
  title,
  document: { markdown },
  ...extra,
});

/** A small site, a markdown file and zips for the imports, on loopback. */
let site: Server;
let siteUrl: string;
/** How often an import fetched `/counted.md`. */
let countedFetches = 0;
const LOGO = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

function startSite(): Promise<void> {
  const pages: Record<string, string> = {
    '/docs/':
      '<html><head><title>Home</title></head><body><nav>menu</nav><main><h1>Welcome</h1><p>Start with the <a href="/docs/guide/">guide</a> or <a href="https://elsewhere.example/">elsewhere</a>.</p><img src="/docs/logo.png" alt="logo"></main></body></html>',
    '/docs/guide/':
      '<html><body><main><h1>Guide</h1><p>Install the <b>tool</b>. See <a href="/docs/missing/">a missing page</a>.</p><ul><li>one</li><li>two</li></ul></main></body></html>',
  };
  const zip = zipSync({
    'SUMMARY.md': strToU8('# Summary\n\n* [Intro](README.md)\n* [Setup](setup.md)\n  * [Linux](setup/linux.md)\n'),
    'README.md': strToU8('# Intro\n\nRead [setup](setup.md) and look at ![diagram](images/diagram.png). Also [nowhere](gone.md).\n'),
    'setup.md': strToU8('# Setup\n\nSetting things up.\n'),
    'setup/linux.md': strToU8('# Linux\n\nBack to [intro](../README.md).\n'),
    'images/diagram.png': LOGO,
  });
  site = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path === '/counted.md') countedFetches += 1;
    if (path === '/counted.md') return response.writeHead(200, { 'content-type': 'text/markdown' }).end('# Counted\n\nFetched.\n');
    if (pages[path]) return response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pages[path]);
    if (path === '/docs/logo.png') return response.writeHead(200, { 'content-type': 'image/png' }).end(LOGO);
    if (path === '/notes.md')
      return response
        .writeHead(200, { 'content-type': 'text/markdown' })
        .end('---\ntitle: Release notes\n---\n\n## 1.0\n\n- [x] shipped\n- [ ] next\n');
    if (path === '/book.zip') return response.writeHead(200, { 'content-type': 'application/zip' }).end(Buffer.from(zip));
    if (path === '/loop') return response.writeHead(302, { location: '/loop' }).end();
    if (path === '/huge.md') {
      response.writeHead(200, { 'content-type': 'text/markdown' });
      return response.end('x'.repeat(12 * 1024 * 1024));
    }
    response.writeHead(404).end('not found');
  });
  return new Promise((resolve) =>
    site.listen(0, '127.0.0.1', () => {
      siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
      resolve();
    }),
  );
}

beforeAll(async () => {
  await startSite();
  service = await startService({ env: { IMPORT_ALLOW_PRIVATE_NETWORKS: 'true' } });
  const ada = await service.createUser('ada@content.example', 'Ada Admin');
  const rita = await service.createUser('rita@content.example', 'Rita Reader');
  const zed = await service.createUser('zed@elsewhere.example', 'Zed Outside');
  people.ada = { id: ada.user.id, token: ada.token };
  people.rita = { id: rita.user.id, token: rita.token };
  people.zed = { id: zed.user.id, token: zed.token };
  organizationId = (await call(people.ada, 'POST', '/v1/orgs', { title: 'Content Inc' })).body.id;
  await joinAs(service, organizationId, ada.token, [{ token: rita.token, email: 'rita@content.example', role: 'read' }]);
});

afterAll(async () => {
  await cleanUpServices();
  await new Promise((resolve) => site.close(resolve));
});

describe('a new space', () => {
  it('has an empty initial revision, named by the Space object', async () => {
    const spaceId = await createSpace();
    const space = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}`)).body;
    const content = await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content`);
    expectStatus(content, 200);
    expect(content.body).toMatchObject({
      object: 'revision',
      id: space.revision,
      parents: [],
      type: 'edits',
      pages: [],
      files: [],
      reusableContents: [],
      variables: {},
    });
    expect(content.headers.etag).toBe(`"${space.revision}"`);
  });
});

describe('POST /v1/spaces/{spaceId}/content (the batch write)', () => {
  let spaceId: string;
  let result: WriteResult;

  beforeAll(async () => {
    spaceId = await createSpace('Handbook');
    result = await write(spaceId, [
      insert('Getting started', '# Getting started\n\nRead the [install guide](./install.md).', { ref: 'start' }),
      insert('Install', 'Run `npm install`.\n\n{% hint style="warning" %}\nNeeds Node 20.\n{% endhint %}', {
        ref: 'install',
        into: 'start',
      }),
      insert('Linux', 'On Linux, use the package.', { into: 'install' }),
      { operation: 'insert_page', type: 'group', title: 'Reference' },
    ]);
  });

  it('answers the new revision and one entry per change, with refs', () => {
    expect(result.changes.map((change) => [change.object, change.page.title, change.page.path, change.ref])).toEqual([
      ['created_page', 'Getting started', 'getting-started', 'start'],
      ['created_page', 'Install', 'getting-started/install', 'install'],
      ['created_page', 'Linux', 'getting-started/install/linux', undefined],
      ['created_page', 'Reference', 'reference', undefined],
    ]);
    expect(result.revision).toMatch(/^[0-9A-Za-z]{20}$/);
  });

  it('makes the new revision the primary content, with the tree of pages', async () => {
    const space = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}`)).body;
    expect(space.revision).toBe(result.revision);
    const pages = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/pages`)).body.pages as Page[];
    expect(pages.map((page) => [page.title, page.kind, page.type])).toEqual([
      ['Getting started', 'sheet', 'document'],
      ['Reference', 'group', 'group'],
    ]);
    expect(pages[0].pages![0].pages![0]).toMatchObject({ title: 'Linux', path: 'getting-started/install/linux', slug: 'linux' });
  });

  it('resolves a ref link to the inserted page', async () => {
    const start = result.changes[0].page.id;
    const install = result.changes[1].page.id;
    const page = await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${start}?format=markdown&format.markdown.refs=stable`);
    expect(page.body.markdown).toContain(`(/pages/${install})`);
  });

  it('reads a page by path, nested, URL-encoded or not', async () => {
    for (const path of ['getting-started/install/linux', encodeURIComponent('getting-started/install/linux')]) {
      const page = await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/path/${path}`);
      expectStatus(page, 200);
      expect(page.body.title).toBe('Linux');
    }
    expectError(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/path/getting-started/nowhere`), 404);
  });

  it('gives a page its body as a document by default and as markdown on request', async () => {
    const install = result.changes[1].page.id;
    const asDocument = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${install}`)).body as Page;
    expect(asDocument.document!.nodes.map((node) => node.type)).toEqual(['paragraph', 'hint']);
    const asMarkdown = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${install}?format=markdown`)).body as Page;
    expect(asMarkdown.markdown).toContain('{% hint style="warning" %}');
    expect(asMarkdown.document).toBeUndefined();
  });

  it('moves and renames pages: paths follow, slugs stay unique among siblings', async () => {
    const [start, install] = result.changes.map((change) => change.page.id);
    const moved = await write(spaceId, [
      { operation: 'update_page', page: install, into: null, at: 0 },
      { operation: 'update_page', page: start, title: 'Start here', slug: 'start-here' },
      insert('Install', 'A second page titled Install at the root.'),
    ]);
    expect(moved.changes[2].page.path).toBe('install-2');
    const linux = await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/path/install/linux`);
    expectStatus(linux, 200);
    const renamed = await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${start}`);
    expect(renamed.body).toMatchObject({ title: 'Start here', slug: 'start-here', path: 'start-here' });
  });

  it('refuses a move into the page itself or below it, and changes nothing', async () => {
    const before = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content`)).body.id;
    const install = result.changes[1].page.id;
    const linux = result.changes[2].page.id;
    expectError(
      await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, {
        changes: [{ operation: 'update_page', page: install, into: linux }],
      }),
      400,
    );
    expect((await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content`)).body.id).toBe(before);
  });

  it('applies a batch all or nothing: a failing change leaves no revision', async () => {
    const before = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content`)).body.id;
    const response = await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, {
      changes: [insert('Fine', 'ok'), { operation: 'delete_page', page: 'AAAAAAAAAAAAAAAAAAAA' }],
    });
    expectError(response, 404);
    expect((await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content`)).body.id).toBe(before);
  });

  it('answers 412 when If-Match names a revision that is no longer the head', async () => {
    const head = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content`)).headers.etag;
    await write(spaceId, [insert('Newer', 'x')], { 'if-match': head });
    expectError(
      await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, { changes: [insert('Stale', 'x')] }, { 'if-match': head }),
      412,
    );
  });

  it('answers 409 on a locked space', async () => {
    const locked = await createSpace('Locked');
    expectStatus(await call(people.ada, 'PATCH', `/v1/spaces/${locked}`, { editMode: 'locked' }), 200);
    expectError(await call(people.ada, 'POST', `/v1/spaces/${locked}/content`, { changes: [insert('No', 'x')] }), 409, /locked/);
  });

  it('answers 403 to a reader and 404 to someone outside', async () => {
    expectError(await call(people.rita, 'POST', `/v1/spaces/${spaceId}/content`, { changes: [insert('No', 'x')] }), 403);
    expectError(await call(people.zed, 'POST', `/v1/spaces/${spaceId}/content`, { changes: [insert('No', 'x')] }), 404);
  });

  it.each([
    [{ changes: [] }, /changes/],
    [{ changes: [{ operation: 'explode' }] }, /operation/],
    [{ changes: [{ operation: 'insert_page', title: 'x', document: { markdown: 1 } }] }, /markdown/],
    [{ changes: [{ operation: 'insert_page', title: 'x', slug: 'Not A Slug' }] }, /slug/],
    [{ changes: [{ operation: 'update_page', page: '../../etc' }] }, /page/],
    [{ changes: [{ operation: 'insert_files', files: [{ name: 'a.txt', base64: '!!' }] }] }, /base64/],
  ])('refuses a malformed batch with 400 naming the member (%j)', async (body, message) => {
    expectError(await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, body), 400, message);
  });
});

describe('files', () => {
  let spaceId: string;
  let file: WriteResult['insertedFiles'][number];

  beforeAll(async () => {
    spaceId = await createSpace('Files');
    const result = await write(spaceId, [
      {
        operation: 'insert_files',
        files: [
          { name: 'logo.png', base64: LOGO.toString('base64'), ref: 'logo' },
          { name: 'notes.txt', base64: Buffer.from('hello').toString('base64') },
        ],
      },
      insert('With image', '![the logo](./logo)'),
    ]);
    file = result.insertedFiles[0];
  });

  it('answers inserted files with their type, size and dimensions', () => {
    expect(file).toMatchObject({ name: 'logo.png', contentType: 'image/png', size: LOGO.length, dimensions: { width: 1, height: 1 } });
  });

  it('lists files, paginated, and reads one', async () => {
    const first = await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/files?limit=1`);
    expect(first.body.count).toBe(2);
    expect(first.body.items).toHaveLength(1);
    const second = await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/files?limit=1&page=${first.body.next.page}`);
    expect(second.body.items).toHaveLength(1);
    expect(second.body.next).toBeUndefined();
    expect((await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/files/${file.id}`)).body.name).toBe('logo.png');
  });

  it('serves the bytes of a private space through the signed URL, without a token, with the content type', async () => {
    const path = file.downloadURL.slice(service.url.length);
    expect(path).toMatch(/signature=/);
    const download = await service.request('GET', path);
    expect(download.status).toBe(200);
    expect(download.headers['content-type']).toBe('image/png');
    expect(download.headers['x-content-type-options']).toBe('nosniff');
  });

  it('refuses a tampered signature and an unsigned URL without a token', async () => {
    const path = file.downloadURL.slice(service.url.length);
    expectError(await service.request('GET', path.replace(/signature=[^&]+/, 'signature=AAAA')), 404);
    expectError(await service.request('GET', path.replace(/&expires=.*$/, '')), 404);
  });

  it('serves files of a public space without a signature', async () => {
    await call(people.ada, 'PATCH', `/v1/spaces/${spaceId}`, { visibility: 'public' });
    const fresh = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/files/${file.id}`)).body;
    expect(fresh.downloadURL).not.toMatch(/signature=/);
    expect((await service.request('GET', fresh.downloadURL.slice(service.url.length))).status).toBe(200);
    await call(people.ada, 'PATCH', `/v1/spaces/${spaceId}`, { visibility: 'private' });
  });
});

describe('evaluated bodies', () => {
  it('substitutes the space and page variables when evaluated=true', async () => {
    const spaceId = await createSpace('Variables');
    const result = await write(spaceId, [
      { operation: 'update_variables', variables: { product: 'Acme' } },
      insert('Vars', 'Welcome to {{ space.vars.product }} {{ page.vars.version }}.', { variables: { version: '2.0' } }),
    ]);
    const pageId = result.changes[0].page.id;
    const raw = await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${pageId}?format=markdown`);
    expect(raw.body.markdown).toContain('{{ space.vars.product }}');
    const evaluated = await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${pageId}?format=markdown&evaluated=true`);
    expect(evaluated.body.markdown).toContain('Welcome to Acme 2.0.');
  });

  it('substitutes the values of the head revision once the variables change', async () => {
    const spaceId = await createSpace('Changing variables');
    const result = await write(spaceId, [
      { operation: 'update_variables', variables: { product: 'Acme' } },
      insert('Vars', 'Welcome to {{ space.vars.product }}.'),
    ]);
    const pageId = result.changes[0].page.id;
    const read = async () =>
      (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${pageId}?format=markdown&evaluated=true`)).body.markdown;
    expect(await read()).toContain('Welcome to Acme.');
    await write(spaceId, [{ operation: 'update_variables', variables: { product: 'Globex' } }]);
    expect(await read()).toContain('Welcome to Globex.');
  });
});

describe('links and backlinks', () => {
  let spaceId: string;
  let target: string;
  let source: string;

  beforeAll(async () => {
    spaceId = await createSpace('Links');
    const result = await write(spaceId, [
      insert('Target', 'I am linked to.', { ref: 'target' }),
      insert(
        'Source',
        `See [target](./target.md), [nowhere](/pages/AAAAAAAAAAAAAAAAAAAA), [web](https://example.org/a) and [app](${service.url}/s/x).`,
      ),
    ]);
    [target, source] = result.changes.map((change) => change.page.id);
  });

  it('lists a page’s links with their status', async () => {
    const links = await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${source}/links`);
    expectStatus(links, 200);
    expect(links.body.items.map((link: { status: string }) => link.status).sort()).toEqual(['broken', 'in-app', 'ok', 'ok']);
    expect(links.body.stats).toEqual({ total: 4, broken: { total: 1, changeRequest: 0 } });
  });

  it('filters space links by status', async () => {
    const broken = await call(people.ada, 'GET', `/v1/spaces/${spaceId}/links?status=broken`);
    expect(broken.body.items).toHaveLength(1);
    expect(broken.body.items[0].targetReference).toMatchObject({ kind: 'page', page: 'AAAAAAAAAAAAAAAAAAAA' });
  });

  it('lists backlinks of a page', async () => {
    const backlinks = await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${target}/backlinks`);
    expect(backlinks.body.items).toEqual([
      expect.objectContaining({
        kind: 'page',
        page: source,
        space: spaceId,
        versionContext: { type: 'revision', revision: expect.any(String) },
      }),
    ]);
  });

  it('marks a link broken once its target is deleted', async () => {
    await write(spaceId, [{ operation: 'delete_page', page: target }]);
    const broken = await call(people.ada, 'GET', `/v1/spaces/${spaceId}/links?status=broken`);
    expect(broken.body.items).toHaveLength(2);
  });
});

describe('search', () => {
  let spaceId: string;

  beforeAll(async () => {
    spaceId = await createSpace('Search');
    await write(spaceId, [
      insert('Installation', '## Requirements\n\nYou need a computer.\n\n## Steps\n\nDownload and run the installer.'),
      insert('Troubleshooting', 'If the installation fails, read the logs.'),
      insert('Secret', 'installation of hidden things', { noIndex: true }),
    ]);
  });

  it('ranks a title match first and splits pages into sections', async () => {
    const response = await call(people.ada, 'GET', `/v1/spaces/${spaceId}/search?query=installation`);
    expectStatus(response, 200);
    expect(response.body.items.map((hit: { title: string }) => hit.title)).toEqual(['Installation', 'Troubleshooting']);
    expect(response.body.items[0].sections.length).toBeGreaterThan(0);
    expect(response.body.items[0].urls.app).toContain(`/s/${spaceId}/installation`);
  });

  it('tolerates a typo and matches prefixes', async () => {
    for (const query of ['instalation', 'troublesh']) {
      const response = await call(people.ada, 'GET', `/v1/spaces/${spaceId}/search?query=${query}`);
      expect(response.body.items.length).toBeGreaterThan(0);
    }
  });

  it('requires a query', async () => {
    expectError(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/search`), 400);
  });

  it('searches the organization’s readable spaces, grouped by space', async () => {
    const response = await call(people.ada, 'GET', `/v1/orgs/${organizationId}/search?query=installation`);
    expectStatus(response, 200);
    expect(response.body.items[0]).toMatchObject({ id: spaceId, title: 'Search', pages: expect.any(Array) });
    expectError(await call(people.zed, 'GET', `/v1/orgs/${organizationId}/search?query=installation`), 404);
  });
});

describe('history', () => {
  let spaceId: string;
  let first: WriteResult;
  let second: WriteResult;

  beforeAll(async () => {
    spaceId = await createSpace('History');
    first = await write(spaceId, [insert('Page', 'Version one.')]);
    second = await write(spaceId, [
      { operation: 'update_page', page: first.changes[0].page.id, document: { markdown: 'Version two.' }, title: 'Page v2' },
    ]);
  });

  it('lists revisions newest first, down to the initial one', async () => {
    const response = await call(people.ada, 'GET', `/v1/spaces/${spaceId}/revisions`);
    expect(response.body.items.map((revision: { id: string }) => revision.id).slice(0, 2)).toEqual([second.revision, first.revision]);
    expect(response.body.count).toBe(3);
    expect(response.body.items[2].parents).toEqual([]);
  });

  it('reads an old revision after later edits', async () => {
    const pageId = first.changes[0].page.id;
    const old = await call(people.ada, 'GET', `/v1/spaces/${spaceId}/revisions/${first.revision}/page/${pageId}?format=markdown`);
    expect(old.body).toMatchObject({ title: 'Page', markdown: expect.stringContaining('Version one.') });
    const viaFlag = await call(
      people.ada,
      'GET',
      `/v1/spaces/${spaceId}/content/page/${pageId}?format=markdown&revision=${first.revision}`,
    );
    expect(viaFlag.body.markdown).toContain('Version one.');
  });

  it('describes a revision’s semantic changes against its parent', async () => {
    const response = await call(people.ada, 'GET', `/v1/spaces/${spaceId}/revisions/${second.revision}/changes`);
    expect(response.body.changes).toEqual([
      expect.objectContaining({
        type: 'page_edited',
        attributes: expect.objectContaining({ title: { before: 'Page', after: 'Page v2' }, document: expect.anything() }),
      }),
    ]);
  });

  it('rolls the space back as a new rollback revision', async () => {
    const response = await call(people.ada, 'POST', `/v1/spaces/${spaceId}/revisions/${first.revision}/rollback`, {});
    expectStatus(response, 200);
    expect(response.body).toMatchObject({ type: 'rollback', parents: [second.revision] });
    expect(response.body.pages[0].title).toBe('Page');
  });

  it('answers 404 for a revision of another space', async () => {
    const other = await createSpace('Other');
    expectError(await call(people.ada, 'GET', `/v1/spaces/${other}/revisions/${first.revision}`), 404);
  });
});

describe('imports', () => {
  it('imports a markdown file as a page, titled by its front matter', async () => {
    const spaceId = await createSpace('Markdown import');
    const response = await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content/import`, {
      source: 'markdown',
      url: `${siteUrl}/notes.md`,
    });
    expectStatus(response, 200);
    expect(response.body).toEqual({ revision: expect.any(String), importedResources: 1, totalResources: 1 });
    const pages = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/pages`)).body.pages;
    expect(pages[0].title).toBe('Release notes');
  });

  it('imports a zip in SUMMARY.md order, with links and images resolved and a broken link kept', async () => {
    const spaceId = await createSpace('Zip import');
    const response = await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content/import`, { source: 'zip', url: `${siteUrl}/book.zip` });
    expectStatus(response, 200);
    const content = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content`)).body;
    expect(content.pages.map((page: Page) => page.title)).toEqual(['Intro', 'Setup']);
    expect(content.pages[1].pages[0].title).toBe('Linux');
    expect(content.files).toHaveLength(1);
    const links = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/links`)).body;
    expect(links.stats.broken.total).toBe(1);
  });

  it('crawls a website on the same origin into pages', async () => {
    const spaceId = await createSpace('Website import');
    const response = await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content/import`, { source: 'website', url: `${siteUrl}/docs/` });
    expectStatus(response, 200);
    expect(response.body.importedResources).toBeGreaterThanOrEqual(2);
    const titles = JSON.stringify((await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/pages`)).body.pages);
    expect(titles).toContain('Welcome');
    expect(titles).toContain('Guide');
  });

  it('imports into a page', async () => {
    const spaceId = await createSpace('Page import');
    const parent = (await write(spaceId, [insert('Parent', 'old body')])).changes[0].page.id;
    const response = await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content/page/${parent}/import`, {
      source: 'markdown',
      url: `${siteUrl}/notes.md`,
    });
    expectStatus(response, 200);
    const page = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${parent}?format=markdown`)).body;
    expect(page.markdown).toContain('1.0');
  });

  it.each([
    ['a redirect loop', '/loop', 422],
    ['an oversize response', '/huge.md', 413],
    ['a missing file', '/nothing.md', 422],
  ])('refuses %s with a clear 4xx', async (_name, path, status) => {
    const spaceId = await createSpace('Failing import');
    expectError(
      await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content/import`, { source: 'markdown', url: `${siteUrl}${path}` }),
      status,
    );
  });
});

describe('If-Match on imports (the ETag of the content and its pages: the head revision)', () => {
  it('answers a page with the revision it was read in as its ETag, the one the content answers', async () => {
    const spaceId = await createSpace('Tagged pages');
    const { revision, changes } = await write(spaceId, [insert('Page', 'body')]);
    expect((await call(people.rita, 'GET', `/v1/spaces/${spaceId}/content/page/${changes[0].page.id}`)).headers.etag).toBe(`"${revision}"`);
    expect((await call(people.rita, 'GET', `/v1/spaces/${spaceId}/content`)).headers.etag).toBe(`"${revision}"`);
  });

  it('refuses an import into a page with a stale If-Match (412) before fetching anything, and changes nothing', async () => {
    const spaceId = await createSpace('Stale page import');
    const pageId = (await write(spaceId, [insert('Parent', 'old body')])).changes[0].page.id;
    const pagePath = `/v1/spaces/${spaceId}/content/page/${pageId}`;
    const stale = (await call(people.ada, 'GET', pagePath)).headers.etag as string;
    await write(spaceId, [insert('Sibling', 'meanwhile')]);
    const current = await call(people.ada, 'GET', `${pagePath}?format=markdown`);
    const fetchesBefore = countedFetches;
    expectError(
      await call(people.ada, 'POST', `${pagePath}/import`, { source: 'markdown', url: `${siteUrl}/counted.md` }, { 'if-match': stale }),
      412,
    );
    expect(countedFetches).toBe(fetchesBefore);
    const after = await call(people.ada, 'GET', `${pagePath}?format=markdown`);
    expect({ etag: after.headers.etag, markdown: after.body.markdown }).toEqual({
      etag: current.headers.etag,
      markdown: current.body.markdown,
    });
  });

  it('imports into a page with its current ETag as If-Match, answering the new head as ETag', async () => {
    const spaceId = await createSpace('Current page import');
    const pageId = (await write(spaceId, [insert('Parent', 'old body')])).changes[0].page.id;
    const current = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${pageId}`)).headers.etag as string;
    const imported = await call(
      people.ada,
      'POST',
      `/v1/spaces/${spaceId}/content/page/${pageId}/import`,
      { source: 'markdown', url: `${siteUrl}/notes.md` },
      { 'if-match': current },
    );
    expectStatus(imported, 200);
    expect(imported.headers.etag).toBe(`"${imported.body.revision}"`);
    expect((await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content`)).headers.etag).toBe(imported.headers.etag);
  });

  it('answers a stale If-Match with 412 even when the source would be refused: the URL is not looked at', async () => {
    const spaceId = await createSpace('Stale import of a missing file');
    const stale = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content`)).headers.etag as string;
    await write(spaceId, [insert('Meanwhile', 'x')]);
    expectError(
      await call(
        people.ada,
        'POST',
        `/v1/spaces/${spaceId}/content/import`,
        { source: 'markdown', url: `${siteUrl}/nothing.md` },
        { 'if-match': stale },
      ),
      412,
    );
  });

  it('answers 403 to a reader and 404 to someone outside before comparing If-Match', async () => {
    const spaceId = await createSpace('Guarded import');
    const stale = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content`)).headers.etag as string;
    await write(spaceId, [insert('Meanwhile', 'x')]);
    const body = { source: 'markdown', url: `${siteUrl}/notes.md` };
    expectError(await call(people.rita, 'POST', `/v1/spaces/${spaceId}/content/import`, body, { 'if-match': stale }), 403);
    expectError(await call(people.zed, 'POST', `/v1/spaces/${spaceId}/content/import`, body, { 'if-match': stale }), 404);
  });
});

describe('imports without IMPORT_ALLOW_PRIVATE_NETWORKS', () => {
  it('refuses a loopback address with 400', async () => {
    const guarded = await startService();
    const user = await guarded.createUser('guard@content.example', 'Guard');
    const org = (await guarded.request('POST', '/v1/orgs', { token: user.token, body: { title: 'Guarded' } })).body.id;
    const space = (await guarded.request('POST', `/v1/orgs/${org}/spaces`, { token: user.token, body: { title: 'S' } })).body.id;
    const response = await guarded.request('POST', `/v1/spaces/${space}/content/import`, {
      token: user.token,
      body: { source: 'markdown', url: `${siteUrl}/notes.md` },
    });
    expectError(response, 400, /private|loopback/);
  });
});

describe('the space lifecycle', () => {
  it('duplicates a space with its content', async () => {
    const spaceId = await createSpace('Original');
    await write(spaceId, [insert('Copied page', 'copied body')]);
    const copy = await call(people.ada, 'POST', `/v1/spaces/${spaceId}/duplicate`);
    expect(copy.status).toBeLessThan(300);
    const pages = (await call(people.ada, 'GET', `/v1/spaces/${copy.body.id}/content/pages`)).body.pages;
    expect(pages.map((page: Page) => page.title)).toEqual(['Copied page']);
  });

  it('records each write in the audit log, naming the pages touched', async () => {
    const spaceId = await createSpace('Audited');
    const result = await write(spaceId, [insert('Audited page', 'x')]);
    const audit = await call(people.ada, 'GET', `/v1/orgs/${organizationId}/audit-events?action=content.updated&target=${spaceId}`);
    expect(audit.body.items[0].details).toEqual({
      revision: result.revision,
      pages: { created: [result.changes[0].page.id], updated: [], deleted: [], counts: { created: 1, updated: 0, deleted: 0 } },
    });
  });
});

describe("page reads take the platform's flags (dereferenced, format.markdown.refs, cachedMetadata)", () => {
  let spaceId: string;
  let guide: string;
  let install: string;
  let faq: string;

  beforeAll(async () => {
    spaceId = await createSpace('Flags');
    const result = await write(spaceId, [
      insert('Guide', 'Start with [install](./install.md#setup) and read the [FAQ](./faq.md).', { ref: 'guide' }),
      insert('Install', 'Back to the [guide](./guide.md).', { ref: 'install', into: 'guide' }),
      insert('FAQ', 'Questions.', { ref: 'faq' }),
      { operation: 'update_variables', variables: { product: 'Acme' } },
    ]);
    [guide, install, faq] = result.changes.map((change) => change.page.id);
  });

  const markdownOf = async (pageId: string, query = '') => {
    const response = await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${pageId}?format=markdown${query}`);
    expectStatus(response, 200);
    return response.body.markdown as string;
  };

  it('writes links to pages as relative paths between markdown files by default (format.markdown.refs=relative)', async () => {
    expect(await markdownOf(guide)).toContain('[install](install.md#setup)');
    expect(await markdownOf(guide)).toContain('[FAQ](../faq.md)');
    expect(await markdownOf(install)).toContain('[guide](README.md)');
    expect(await markdownOf(guide, '&format.markdown.refs=relative')).toBe(await markdownOf(guide));
  });

  it('writes links to pages as /pages/<id> with format.markdown.refs=stable', async () => {
    const markdown = await markdownOf(guide, '&format.markdown.refs=stable');
    expect(markdown).toContain(`[install](/pages/${install}#setup)`);
    expect(markdown).toContain(`[FAQ](/pages/${faq})`);
  });

  it('reads relative links written back through the batch write as links to the same pages', async () => {
    const markdown = await markdownOf(guide);
    await write(spaceId, [{ operation: 'update_page', page: guide, document: { markdown: `${markdown}\n\nEdited.` } }]);
    const stable = await markdownOf(guide, '&format.markdown.refs=stable');
    expect(stable).toContain(`(/pages/${install}#setup)`);
    expect(stable).toContain(`(/pages/${faq})`);
    const links = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${guide}/links`)).body;
    expect(links.items.map((link: { status: string }) => link.status)).toEqual(['ok', 'ok']);
  });

  it('accepts dereferenced and cachedMetadata with every value the platform allows, the body being the same (no reusable content, no git metadata)', async () => {
    const plain = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${guide}`)).body;
    for (const query of [
      'dereferenced=true',
      'dereferenced=false',
      'dereferenced=reusable-contents',
      'cachedMetadata=true',
      'cachedMetadata=false',
      'metadata=false',
    ]) {
      for (const read of [`content/page/${guide}`, 'content/path/guide']) {
        const response = await call(people.ada, 'GET', `/v1/spaces/${spaceId}/${read}?${query}`);
        expectStatus(response, 200);
        expect(response.body).toEqual(plain);
      }
    }
  });

  it('evaluates with evaluated=deterministic-only as with true: variables are the only expressions, and deterministic', async () => {
    const page = (await write(spaceId, [insert('Vars', 'Welcome to {{ space.vars.product }}.')])).changes[0].page.id;
    expect(await markdownOf(page, '&evaluated=deterministic-only')).toContain('Welcome to Acme.');
  });

  it('keeps relative links that name no page of the space (climbing out, prototype names, broken escapes) as the URLs they are', async () => {
    const pageId = (
      await write(spaceId, [
        insert('Odd links', '[out](../../../../etc/passwd.md) [proto](__proto__.md) [ctor](constructor/README.md) [bad](%E0%A4%A.md)'),
      ])
    ).changes[0].page.id;
    const links = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${pageId}/links`)).body;
    expect(links.items.map((link: { targetReference: { kind: string } }) => link.targetReference.kind)).toEqual([
      'url',
      'url',
      'url',
      'url',
    ]);
  });

  it('refuses a flag given twice with 400 rather than picking one', async () => {
    expectError(
      await call(
        people.ada,
        'GET',
        `/v1/spaces/${spaceId}/content/page/${guide}?format=markdown&format.markdown.refs=stable&format.markdown.refs=relative`,
      ),
      400,
      /format\.markdown\.refs/,
    );
  });

  it.each([
    ['format.markdown.refs=absolute', /format\.markdown\.refs must be relative or stable/],
    ['dereferenced=yes', /dereferenced must be true, false or reusable-contents/],
    ['cachedMetadata=1', /cachedMetadata must be true or false/],
    ['evaluated=maybe', /evaluated must be true, false or deterministic-only/],
    ['format.markdown.refs=__proto__', /format\.markdown\.refs must be relative or stable/],
  ])('refuses %s with a 400 naming the parameter', async (query, message) => {
    expectError(await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${guide}?${query}`), 400, message);
  });
});

describe("pages in the platform's shape", () => {
  let spaceId: string;
  let guide: string;

  beforeAll(async () => {
    spaceId = await createSpace('Shapes');
    const result = await write(spaceId, [
      insert('Guide', '# Guide\n\nHello.', { ref: 'guide' }),
      insert('Child', 'Below.', { into: 'guide' }),
      { operation: 'insert_page', type: 'group', title: 'Reference' },
    ]);
    guide = result.changes[0].page.id;
  });

  it('gives every document page its layout, all members, the default one when none was set', async () => {
    const page = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${guide}`)).body;
    expect(page.layout).toEqual({
      width: 'default',
      cover: true,
      coverSize: 'hero',
      coverMask: 'none',
      title: true,
      description: true,
      tableOfContents: true,
      outline: true,
      pagination: true,
      metadata: true,
      tags: true,
      actions: true,
      anchors: true,
    });
    expect(platformSchemaProblem('RevisionPage', page)).toBeNull();
  });

  it('gives document pages and revisions an empty tags list: the service has no tags', async () => {
    const revision = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content`)).body;
    expect(revision.tags).toEqual([]);
    expect(revision.pages[0].tags).toEqual([]);
    expect(revision.pages[0].pages[0].tags).toEqual([]);
  });

  it('carries each document page’s body in listings, as a document by default and as markdown on request', async () => {
    const pages = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/pages`)).body.pages as Page[];
    expect(pages[0].document?.nodes.map((node) => node.type)).toEqual(['paragraph']);
    expect(pages[0].pages![0].document).toMatchObject({ object: 'document' });
    expect(pages[1]).not.toHaveProperty('document');
    const asMarkdown = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/pages?format=markdown`)).body.pages as Page[];
    expect(asMarkdown[0].markdown).toContain('Hello.');
    expect(asMarkdown[0]).not.toHaveProperty('document');
  });

  it("answers the revision and its page tree valid against the platform's Revision schema", async () => {
    const revision = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content`)).body;
    expect(platformSchemaProblem('Revision', revision)).toBeNull();
  });

  it("accepts the platform's page members noRobotsIndex and condition in the batch write, and shows them", async () => {
    const pageId = (
      await write(spaceId, [insert('Hidden from robots', 'x', { noRobotsIndex: true, condition: 'visitor.claims.beta', emoji: '1f600' })])
    ).changes[0].page.id;
    expect((await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${pageId}`)).body).toMatchObject({
      noRobotsIndex: true,
      condition: 'visitor.claims.beta',
      emoji: '1f600',
    });
  });

  it('removes a page’s emoji, icon and condition when the update sends an empty string, as the platform does', async () => {
    const pageId = (await write(spaceId, [insert('Decorated', 'x', { emoji: '1f600', icon: 'book', condition: 'visitor.claims.beta' })]))
      .changes[0].page.id;
    await write(spaceId, [{ operation: 'update_page', page: pageId, emoji: '', icon: '', condition: '' }]);
    const page = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content/page/${pageId}`)).body;
    expect([page.emoji, page.icon, page.condition]).toEqual([undefined, undefined, undefined]);
  });

  it('refuses a group page below another page with 400: groups sit at the top level', async () => {
    expectError(
      await call(people.ada, 'POST', `/v1/spaces/${spaceId}/content`, {
        changes: [{ operation: 'insert_page', type: 'group', title: 'Nested', into: guide }],
      }),
      400,
      /group page, which sits at the top level only/,
    );
  });

  it('names the merged change request, whole, as mergedFrom of a merge revision', async () => {
    const request = (await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests`, { subject: 'Merge me' })).body;
    const edited = await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${request.id}/content`, {
      changes: [insert('From the request', 'x')],
    });
    expectStatus(edited, 200);
    const merged = await call(people.ada, 'POST', `/v1/spaces/${spaceId}/change-requests/${request.id}/merge`);
    expectStatus(merged, 200);
    const revision = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/content`)).body;
    expect(revision).toMatchObject({ type: 'merge', mergedFrom: { object: 'change-request', id: request.id, subject: 'Merge me' } });
    expect(platformSchemaProblem('Revision', revision)).toBeNull();
  });
});

describe("search results in the platform's shape", () => {
  let spaceId: string;

  beforeAll(async () => {
    spaceId = await createSpace('Search shapes');
    await write(spaceId, [
      insert('Guide', 'An overview.', { ref: 'guide', description: 'Where to start' }),
      insert('Install', 'The zebra installer.', { ref: 'install', into: 'guide' }),
      insert('Linux', 'The zebra package for Linux.', { into: 'install' }),
    ]);
  });

  it('gives each page hit its ancestors from the top level down to its parent', async () => {
    const hits = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/search?query=zebra`)).body.items;
    const byTitle = Object.fromEntries(hits.map((hit: { title: string; ancestors: unknown }) => [hit.title, hit.ancestors]));
    expect(byTitle).toEqual({ Install: [{ title: 'Guide' }], Linux: [{ title: 'Guide' }, { title: 'Install' }] });
  });

  it('gives each page hit its description, empty when the page has none', async () => {
    const overview = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/search?query=overview`)).body.items;
    expect(overview.map((hit: { description: string; ancestors: unknown }) => [hit.description, hit.ancestors])).toEqual([
      ['Where to start', []],
    ]);
    const zebra = (await call(people.ada, 'GET', `/v1/spaces/${spaceId}/search?query=zebra`)).body;
    expect(zebra.items.map((hit: { description: string }) => hit.description)).toEqual(['', '']);
    expect(platformSchemaProblem('SearchPageResult', zebra.items[0])).toBeNull();
  });

  it("marks organization results as spaces (type 'space'), in the platform's shape", async () => {
    const response = (await call(people.ada, 'GET', `/v1/orgs/${organizationId}/search?query=zebra`)).body;
    const space = response.items.find((item: { id: string }) => item.id === spaceId);
    expect(space).toMatchObject({ type: 'space', title: 'Search shapes' });
    expect(platformSchemaProblem('SearchSpaceResult', space)).toBeNull();
  });
});
