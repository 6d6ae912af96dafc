import { ImportFailure } from './import-failure';
import type { ImportDeps, ImportPlan, PlannedPage } from './import-plan';
import {
  type LocalServer,
  PIXEL_PNG,
  bytes,
  html,
  neverFinishing,
  redirect,
  sequentialIds,
  startLocalServer,
  withConversions,
} from './testing/local-server';
import { importWebsite } from './website-import';

function page(title: string, main: string, extra = ''): string {
  return `<!doctype html><html><head><title>${title}</title>${extra}</head><body>
    <header>Site header</header>
    <nav><a href="/docs/">Home</a> <a href="/docs/guide/">Guide</a> <a href="/docs/guide/install">Install</a> <a href="/docs/api">API</a></nav>
    <main>${main}</main>
    <aside>Related</aside>
    <footer>Copyright</footer>
    <script>tracking()</script>
  </body></html>`;
}

const WELCOME_HTML = page(
  'Docs site',
  `<h1>Welcome</h1>
   <p>Start with <a href="guide/install#steps">installing</a>, or read <a href="missing">the missing page</a>.</p>
   <p>See also <a href="https://example.com/elsewhere">elsewhere</a> and <a href="/outside">outside</a>.</p>
   <p><img src="/assets/logo.png" alt="Logo"></p>`,
  '<meta name="description" content="Everything about the product">',
);

const SITE = {
  '/docs/': html(WELCOME_HTML),
  '/docs/guide/': html(page('Guide | Docs', '<h1>Guide</h1><p>Then the <a href="../api?tab=1">API</a>.</p>')),
  '/docs/guide/install': html(page('Install | Docs', '<h1>Install</h1><h2 id="steps">Steps</h2><p>Run it.</p>')),
  '/docs/api': html(
    '<html><head><title>API reference</title></head><body><nav>Menu</nav><p>Calls. <a href="#top">Top</a> <a href="api#x">Self</a></p></body></html>',
  ),
  '/outside': html(page('Outside', '<h1>Outside</h1>')),
  '/assets/logo.png': bytes('image/png', PIXEL_PNG),
};

function allPages(pages: readonly PlannedPage[]): PlannedPage[] {
  return pages.flatMap((planned) => [planned, ...allPages(planned.pages)]);
}

function byTitle(plan: ImportPlan, title: string): PlannedPage {
  const found = allPages(plan.pages).find((planned) => planned.title === title);
  if (!found) throw new Error(`no page titled ${title}`);
  return found;
}

function outline(pages: readonly PlannedPage[]): unknown[] {
  return pages.map((planned) => (planned.pages.length ? { [planned.title]: outline(planned.pages) } : planned.title));
}

describe('importWebsite', () => {
  let server: LocalServer;
  let deps: ImportDeps;
  let plan: ImportPlan;

  beforeAll(async () => {
    server = await startLocalServer({
      ...SITE,
      '/loop/': redirect('/loop/again'),
      '/loop/again': redirect('/loop/'),
      '/slow/': neverFinishing(),
      '/deep/': html(page('0', '<a href="1/">next</a>')),
      '/deep/1/': html(page('1', '<a href="2/">next</a>')),
      '/deep/1/2/': html(page('2', '<a href="3/">next</a>')),
      '/deep/1/2/3/': html(page('3', 'the end')),
    });
    deps = withConversions({ newId: sequentialIds(), allowPrivateNetworks: true });
    plan = await importWebsite(server.url('/docs/'), {}, deps);
  });

  afterAll(() => server.close());

  it('imports the start page and the same-origin pages under its folder, each once', () => {
    expect(
      allPages(plan.pages)
        .map((planned) => planned.title)
        .sort(),
    ).toEqual(['API reference', 'Guide', 'Install', 'Welcome']);
    expect(server.requests.filter((path) => path.startsWith('/docs/api'))).toEqual(['/docs/api']);
  });

  it('arranges the pages by their URL paths', () => {
    expect(outline(plan.pages)).toEqual([{ Welcome: [{ Guide: ['Install'] }, 'API reference'] }]);
  });

  it('takes the title from the first h1 and leaves that h1 out of the body', () => {
    const install = byTitle(plan, 'Install');
    expect(install.markdown).not.toMatch(/^# Install/m);
    expect(install.markdown).toMatch(/^## Steps/m);
  });

  it('takes the title from <title> when the page has no h1', () => {
    expect(byTitle(plan, 'API reference').markdown).toMatch(/^Calls\./);
  });

  it('takes the description from <meta name="description">', () => {
    expect(byTitle(plan, 'Welcome').description).toBe('Everything about the product');
  });

  it('keeps the main content only, without navigation, header, footer, aside and scripts', () => {
    const markdown = allPages(plan.pages)
      .map((planned) => planned.markdown)
      .join('\n');
    for (const furniture of ['Site header', 'Home', 'Menu', 'Related', 'Copyright', 'tracking']) {
      expect(markdown).not.toContain(furniture);
    }
  });

  it('rewrites links between imported pages to /pages/<id>, keeping the fragment', () => {
    const install = byTitle(plan, 'Install');
    expect(byTitle(plan, 'Welcome').markdown).toContain(`[installing](/pages/${install.id}#steps)`);
  });

  it('treats URLs that differ only by query or fragment as one page', () => {
    const api = byTitle(plan, 'API reference');
    expect(byTitle(plan, 'Guide').markdown).toContain(`[API](/pages/${api.id})`);
    expect(api.markdown).toContain(`[Self](/pages/${api.id}#x)`);
  });

  it('leaves anchors on the same page as written', () => {
    expect(byTitle(plan, 'API reference').markdown).toContain('[Top](#top)');
  });

  it('downloads same-origin images as files and links them as /files/<id>', () => {
    expect(plan.files).toEqual([{ id: expect.any(String), name: 'logo.png', contentType: 'image/png', bytes: PIXEL_PNG }]);
    expect(byTitle(plan, 'Welcome').markdown).toContain(`![Logo](/files/${plan.files[0].id})`);
  });

  it('leaves a link to a page that could not be imported as written, with a warning', () => {
    expect(byTitle(plan, 'Welcome').markdown).toContain('[the missing page](missing)');
    expect(plan.warnings).toEqual([expect.stringMatching(/^could not import .*\/docs\/missing: .*answered HTTP 404/)]);
  });

  it('neither follows nor rewrites links to other origins or outside the start folder', () => {
    const welcome = byTitle(plan, 'Welcome').markdown;
    expect(welcome).toContain('[elsewhere](https://example.com/elsewhere)');
    expect(welcome).toContain('[outside](/outside)');
    expect(server.requests).not.toContain('/outside');
  });

  it('counts the discovered pages and images, and those imported', () => {
    // Pages: welcome, guide, install, api, missing (not imported); image: the logo.
    expect(plan.totalResources).toBe(6);
    expect(plan.importedResources).toBe(5);
  });

  it('gives pages and files ids from newId', () => {
    const ids = [...allPages(plan.pages).map((planned) => planned.id), ...plan.files.map((file) => file.id)];
    expect(ids.every((id) => /^[0-9A-Za-z]{20}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('stops at the page limit and says how many pages it left out', async () => {
    const limited = await importWebsite(server.url('/docs/'), { maxPages: 2 }, deps);
    expect(allPages(limited.pages)).toHaveLength(2);
    expect(limited.warnings).toContain('left out 3 pages: page limit 2 reached');
    expect(limited.totalResources).toBeGreaterThan(limited.importedResources);
  });

  it('follows links at most maxDepth away from the start page', async () => {
    const limited = await importWebsite(server.url('/deep/'), { maxDepth: 2 }, deps);
    expect(outline(limited.pages)).toEqual([{ '0': [{ '1': ['2'] }] }]);
    expect(limited.warnings).toContain('left out 1 page: depth limit 2 reached');
    expect(server.requests).not.toContain('/deep/1/2/3/');
  });

  it('leaves out what no longer fits the byte limit', async () => {
    const limited = await importWebsite(server.url('/docs/'), { maxBytes: Buffer.byteLength(WELCOME_HTML) + 100 }, deps);
    expect(allPages(limited.pages).map((planned) => planned.title)).toEqual(['Welcome']);
    expect(limited.warnings.some((warning) => /^left out \d+ pages?: byte limit \d+ bytes reached$/.test(warning))).toBe(true);
  });

  it('fails when the start page redirects in a loop (422)', async () => {
    const failure = await importWebsite(server.url('/loop/'), {}, deps).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ImportFailure);
    expect((failure as ImportFailure).status).toBe(422);
  });

  it('fails when the start page does not come within the time limit (408)', async () => {
    const failure = await importWebsite(server.url('/slow/'), { timeMs: 200 }, deps).catch((error: unknown) => error);
    expect((failure as ImportFailure).status).toBe(408);
  });

  it('fails when the start page is larger than the byte limit (413)', async () => {
    const failure = await importWebsite(server.url('/docs/'), { maxBytes: 100 }, deps).catch((error: unknown) => error);
    expect((failure as ImportFailure).status).toBe(413);
  });

  it('fails when the start page is not HTML (422)', async () => {
    const failure = await importWebsite(server.url('/assets/logo.png'), {}, deps).catch((error: unknown) => error);
    expect((failure as ImportFailure).status).toBe(422);
  });

  it('refuses a private address unless private networks are allowed (400)', async () => {
    const failure = await importWebsite(server.url('/docs/'), {}, { ...deps, allowPrivateNetworks: false }).catch(
      (error: unknown) => error,
    );
    expect((failure as ImportFailure).status).toBe(400);
    expect((failure as ImportFailure).message).toMatch(/resolves to a private address/);
  });
});
