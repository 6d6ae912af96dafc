/**
 * The published site in a real browser: Debian's Chromium driven by playwright-core against the
 * embedded service on loopback. A reader follows the navigation and the links between pages,
 * searches, is refused a share-link site without its key and admitted with it, and axe-core finds no serious or critical
 * accessibility violation on a page.
 *
 * Chromium is `/usr/bin/chromium`; when it is missing and the tests run as root, the set-up installs
 * it once with apt-get. When it still cannot be had, every test prints why and checks nothing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { cleanUpServices, ok, startService, type RunningService } from './support/service';

const CHROMIUM = '/usr/bin/chromium';

let service: RunningService;
let browser: Browser | null = null;
let missing: string | null = null;
let organizationId: string;
let owner: { token: string };
let siteId: string;

const call = (method: string, path: string, body?: unknown) => service.request(method, path, { token: owner.token, body });
const insert = (title: string, markdown: string, extra: Record<string, unknown> = {}) => ({
  operation: 'insert_page',
  title,
  document: { markdown },
  ...extra,
});

/** The browser, installed first when missing and possible; null with the reason in `missing` otherwise. */
function chromiumPath(): string | null {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  if (process.getuid?.() !== 0) {
    missing = `${CHROMIUM} is missing and the tests do not run as root to install it`;
    return null;
  }
  try {
    execFileSync('apt-get', ['update'], { stdio: 'ignore', timeout: 300_000 });
    execFileSync('apt-get', ['install', '-y', 'chromium'], {
      stdio: 'ignore',
      timeout: 600_000,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  } catch (error) {
    missing = `installing chromium with apt-get failed: ${(error as Error).message}`;
    return null;
  }
  if (existsSync(CHROMIUM)) return CHROMIUM;
  missing = `apt-get installed chromium but ${CHROMIUM} is still missing`;
  return null;
}

/** False (and the reason printed) when there is no browser to test with. */
function haveBrowser(): boolean {
  if (browser) return true;
  console.warn(`[skip] browser test: ${missing ?? 'no browser'}`);
  return false;
}

async function open(path: string, options: { bypassCSP?: boolean } = {}): Promise<Page> {
  const context = await browser!.newContext({ bypassCSP: options.bypassCSP ?? false });
  const page = await context.newPage();
  await page.goto(`${service.url}${path}`);
  return page;
}

async function site(spaceId: string, changes: Record<string, unknown> = {}): Promise<string> {
  const created = ok(await call('POST', `/v1/orgs/${organizationId}/sites`, { title: 'Browser docs', spaces: [spaceId] }), 201).body;
  if (Object.keys(changes).length > 0) ok(await call('PATCH', `/v1/orgs/${organizationId}/sites/${created.id}`, changes));
  ok(await call('POST', `/v1/orgs/${organizationId}/sites/${created.id}/publish`));
  return created.id;
}

let spaceId: string;

beforeAll(async () => {
  const executablePath = chromiumPath();
  if (executablePath) {
    try {
      browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    } catch (error) {
      missing = `chromium does not start: ${(error as Error).message.split('\n')[0]}`;
    }
  }
  service = await startService();
  const created = await service.createUser('owner@sites-browser.example', 'Owner');
  owner = { token: created.token };
  organizationId = ok(await call('POST', '/v1/orgs', { title: 'Browser Inc' }), 201).body.id;
  spaceId = ok(await call('POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Guide' }), 201).body.id;
  ok(
    await call('POST', `/v1/spaces/${spaceId}/content`, {
      changes: [
        insert(
          'Getting started',
          '## Welcome\n\nRead the [install guide](./install.md) first.\n\n| Option | Meaning |\n|---|---|\n| `-g` | global |\n\n{% hint style="info" %}\nNode 20 or later.\n{% endhint %}',
          { ref: 'start' },
        ),
        insert('Install', 'Run `npm install` in the project.\n\n- one\n- two', { ref: 'install', into: 'start' }),
        insert('Configure', 'Settings go in a file.'),
      ],
    }),
  );
  siteId = await site(spaceId);
}, 15 * 60_000);

afterAll(async () => {
  await browser?.close();
  await cleanUpServices();
});

describe('a reader in a browser', () => {
  it('follows the navigation to a page', async () => {
    if (!haveBrowser()) return;
    const page = await open(`/sites/${siteId}`);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Configure' }).click();
    await page.waitForURL(`**/sites/${siteId}/configure`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Configure');
    expect(
      await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Configure' }).getAttribute('aria-current'),
    ).toBe('page');
  });

  it('follows a link between pages inside a page', async () => {
    if (!haveBrowser()) return;
    const page = await open(`/sites/${siteId}/getting-started`);
    await page.getByRole('main').getByRole('link', { name: 'install guide' }).click();
    await page.waitForURL(`**/sites/${siteId}/getting-started/install`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Install');
  });

  it('searches and finds the page', async () => {
    if (!haveBrowser()) return;
    const page = await open(`/sites/${siteId}/getting-started`);
    await page.getByRole('searchbox', { name: 'Search' }).fill('npm');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/~search\?q=npm/);
    await page.getByRole('main').getByRole('link', { name: 'Install' }).click();
    await page.waitForURL(`**/sites/${siteId}/getting-started/install`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Install');
  });

  it('is refused a share-link site without its key', async () => {
    if (!haveBrowser()) return;
    const shared = await site(spaceId, { visibility: 'share-link' });
    const page = await browser!.newPage();
    const response = await page.goto(`${service.url}/sites/${shared}/getting-started`);
    expect(response?.status()).toBe(404);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Page not found');
    await page.close();
  });

  it('is admitted to a share-link site with its key, and its links keep working', async () => {
    if (!haveBrowser()) return;
    const shared = await site(spaceId, { visibility: 'share-link' });
    const { key } = ok(await call('POST', `/v1/orgs/${organizationId}/sites/${shared}/share-links`, { name: 'Browser' }), 201).body;
    const page = await open(`/sites/${shared}/getting-started?shareKey=${key}`);
    expect(page.url()).toBe(`${service.url}/sites/${shared}/getting-started`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Getting started');
    await page.getByRole('main').getByRole('link', { name: 'install guide' }).click();
    await page.waitForURL(`**/sites/${shared}/getting-started/install`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Install');
  });

  it('finds no serious or critical accessibility violation on a page', async () => {
    if (!haveBrowser()) return;
    // The page forbids scripts: axe is injected with the policy bypassed for this context only.
    const page = await open(`/sites/${siteId}/getting-started`, { bypassCSP: true });
    await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const violations = await page.evaluate(async () => {
      const result = await (
        globalThis as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string | null; help: string }> }> } }
      ).axe.run();
      return result.violations.map(({ id, impact, help }) => ({ id, impact, help }));
    });
    expect(violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')).toEqual([]);
  });
});
