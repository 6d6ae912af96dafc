import type { Nodes, Root } from 'mdast';
import { decodeText, extensionOf } from './content-types';
import { convertHtmlPage, resolveUrl } from './html-to-markdown';
import { ImportFailure } from './import-failure';
import {
  type HtmlPageOutline,
  type ImportDeps,
  type ImportedTargets,
  type ImportLimits,
  type ImportPlan,
  type PlannedFile,
  type PlannedPage,
  importLimits,
} from './import-plan';
import { checkedMarkdown } from './markdown-import';
import { rewriteUrls, serializeMarkdown, titleFromFileName } from './markdown-source';
import { type ContentTypeRule, type FetchedResource, parseFetchUrl, safeFetch } from './safe-fetch';

export const HTML_CONTENT: ContentTypeRule = {
  label: 'an HTML page',
  accept: 'text/html, application/xhtml+xml;q=0.9',
  matches: (mediaType) => mediaType === 'text/html' || mediaType === 'application/xhtml+xml',
};

export const IMAGE_CONTENT: ContentTypeRule = {
  label: 'an image',
  accept: 'image/*',
  matches: (mediaType) => mediaType.startsWith('image/'),
};

/** Links to these are files, not pages: the crawl does not follow them. */
const NOT_PAGE_EXTENSIONS = new Set([
  'png',
  'jpg',
  'jpeg',
  'gif',
  'webp',
  'avif',
  'svg',
  'ico',
  'bmp',
  'tif',
  'tiff',
  'pdf',
  'zip',
  'gz',
  'tgz',
  'tar',
  'rar',
  '7z',
  'dmg',
  'exe',
  'msi',
  'deb',
  'rpm',
  'apk',
  'css',
  'js',
  'mjs',
  'map',
  'json',
  'xml',
  'rss',
  'atom',
  'txt',
  'md',
  'csv',
  'yaml',
  'yml',
  'mp3',
  'mp4',
  'webm',
  'mov',
  'avi',
  'wav',
  'ogg',
  'woff',
  'woff2',
  'ttf',
  'otf',
  'eot',
]);

/**
 * Imports a website: crawls the HTML pages of the start URL's origin under its folder, breadth
 * first, and downloads the same-origin images the pages show. The page tree follows the URL paths.
 * Only the start page is required: a later page that cannot be read is reported in the warnings.
 */
export async function importWebsite(url: string, limitOverrides: Partial<ImportLimits>, deps: ImportDeps): Promise<ImportPlan> {
  const limits = importLimits(limitOverrides);
  const budget = new FetchBudget(limits, deps);
  const warnings: string[] = [];
  const leftOut = new LeftOutCounter();
  const crawl = await crawlPages(parseFetchUrl(url), limits, deps, budget, leftOut, warnings);
  const images = await downloadImages(crawl, limits, deps, budget, leftOut, warnings);

  const targets: ImportedTargets = {
    pages: [...crawl.pageByKey].map(([key, page]) => [key, page.id]),
    files: [...images.fileByUrl].map(([href, file]) => [href, file.id]),
  };
  const bodies = await deps.conversions.htmlBodies(
    crawl.pages.map((page) => ({ html: page.html, url: page.url.href })),
    targets,
  );
  const pages = pageTree(
    crawl.pages.map((page, index) => ({ ...page, markdown: checkedMarkdown(bodies[index], `the page ${page.url.href}`) })),
  );
  return {
    pages,
    files: images.files,
    importedResources: crawl.pages.length + images.files.length,
    totalResources: crawl.pagesDiscovered + images.discovered,
    warnings: [...warnings, ...leftOut.warnings()],
  };
}

interface CrawledPage {
  id: string;
  /** Where the page was read from, after redirects. */
  url: URL;
  html: string;
  outline: HtmlPageOutline;
}

interface Crawl {
  scope: SiteScope;
  /** In crawl order. */
  pages: CrawledPage[];
  /** By pageKey of every URL that led to the page (the link and, after redirects, the final URL). */
  pageByKey: Map<string, CrawledPage>;
  pagesDiscovered: number;
}

/** The origin and folder of the start page: the crawl stays inside them. */
interface SiteScope {
  origin: string;
  pathPrefix: string;
}

function siteScope(start: URL): SiteScope {
  return { origin: start.origin, pathPrefix: start.pathname.slice(0, start.pathname.lastIndexOf('/') + 1) };
}

function inScope(scope: SiteScope, url: URL): boolean {
  return url.origin === scope.origin && url.pathname.startsWith(scope.pathPrefix);
}

/** A page's identity: fragments and queries are ignored, so `/a?x=1`, `/a?x=2` and `/a#b` are one page. */
function pageKey(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

function looksLikePage(url: URL): boolean {
  return !NOT_PAGE_EXTENSIONS.has(extensionOf(url.pathname));
}

async function crawlPages(
  start: URL,
  limits: ImportLimits,
  deps: ImportDeps,
  budget: FetchBudget,
  leftOut: LeftOutCounter,
  warnings: string[],
): Promise<Crawl> {
  // The start page decides the scope (after its redirects, e.g. http to https) and must be readable.
  const first = await budget.fetch(start, HTML_CONTENT);
  const scope = siteScope(first.url);
  const crawl: Crawl = { scope, pages: [], pageByKey: new Map(), pagesDiscovered: 1 };
  const discovered = new Set([pageKey(start), pageKey(first.url)]);
  const queue: Array<{ url: URL; depth: number }> = [];

  const addPage = async (link: URL, depth: number, fetched: FetchedResource): Promise<void> => {
    const html = decodeText(fetched.bytes, fetched.contentType);
    const page: CrawledPage = {
      id: deps.newId(),
      url: fetched.url,
      html,
      outline: await deps.conversions.htmlOutline(html, fetched.url.href),
    };
    crawl.pages.push(page);
    crawl.pageByKey.set(pageKey(link), page);
    crawl.pageByKey.set(pageKey(fetched.url), page);
    for (const href of page.outline.links) {
      const found = new URL(href);
      const key = pageKey(found);
      if (!inScope(scope, found) || !looksLikePage(found) || discovered.has(key)) continue;
      discovered.add(key);
      crawl.pagesDiscovered++;
      if (depth + 1 > limits.maxDepth) leftOut.add('page', `depth limit ${limits.maxDepth} reached`);
      else queue.push({ url: withoutFragment(found), depth: depth + 1 });
    }
  };

  await addPage(start, 0, first);
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (crawl.pages.length >= limits.maxPages) {
      leftOut.add('page', `page limit ${limits.maxPages} reached`);
      continue;
    }
    if (budget.exhausted) {
      leftOut.add('page', budget.exhausted);
      continue;
    }
    let fetched: FetchedResource;
    try {
      fetched = await budget.fetch(next.url, HTML_CONTENT);
    } catch (error) {
      if (!(error instanceof ImportFailure)) throw error;
      if (budget.exhausted) leftOut.add('page', budget.exhausted);
      else warnings.push(`could not import ${next.url.href}: ${error.message}`);
      continue;
    }
    const samePage = crawl.pageByKey.get(pageKey(fetched.url));
    if (samePage) {
      // A redirect to a page already read: one page, reachable by both URLs; not a resource of its own.
      crawl.pageByKey.set(pageKey(next.url), samePage);
      crawl.pagesDiscovered--;
    } else if (!inScope(scope, fetched.url)) {
      warnings.push(`could not import ${next.url.href}: it redirects to ${fetched.url.href}, outside the imported site`);
    } else {
      await addPage(next.url, next.depth, fetched);
    }
  }
  return crawl;
}

interface DownloadedImages {
  files: PlannedFile[];
  /** By URL without fragment. */
  fileByUrl: Map<string, PlannedFile>;
  discovered: number;
}

/** Downloads the same-origin images of the pages (from anywhere on the origin: sites keep them in asset folders). */
async function downloadImages(
  crawl: Crawl,
  limits: ImportLimits,
  deps: ImportDeps,
  budget: FetchBudget,
  leftOut: LeftOutCounter,
  warnings: string[],
): Promise<DownloadedImages> {
  const imageUrls = new Map<string, URL>();
  for (const page of crawl.pages) {
    for (const href of page.outline.images) {
      const url = new URL(href);
      if (url.origin === crawl.scope.origin) imageUrls.set(withoutFragment(url).href, withoutFragment(url));
    }
  }
  const files: PlannedFile[] = [];
  const fileByUrl = new Map<string, PlannedFile>();
  let fileBytesLeft = limits.maxFileBytes;
  for (const [href, url] of imageUrls) {
    if (budget.exhausted) {
      leftOut.add('image', budget.exhausted);
      continue;
    }
    if (fileBytesLeft <= 0) {
      leftOut.add('image', `file byte limit ${limits.maxFileBytes} bytes reached`);
      continue;
    }
    try {
      const fetched = await budget.fetch(url, IMAGE_CONTENT, fileBytesLeft);
      fileBytesLeft -= fetched.bytes.length;
      const file: PlannedFile = {
        id: deps.newId(),
        name: decodedFileName(url) || 'image',
        contentType: fetched.mediaType,
        bytes: fetched.bytes,
      };
      files.push(file);
      fileByUrl.set(href, file);
    } catch (error) {
      if (!(error instanceof ImportFailure)) throw error;
      if (budget.exhausted) leftOut.add('image', budget.exhausted);
      else warnings.push(`could not import the image ${href}: ${error.message}`);
    }
  }
  return { files, fileByUrl, discovered: imageUrls.size };
}

/** What a crawl needs of an HTML page (the pool runs this on what a site sent). */
export function outlineHtmlPage(html: string, url: string): HtmlPageOutline {
  const converted = convertHtmlPage(html, new URL(url));
  const images: string[] = [];
  for (const written of imageUrlsOf(converted.body)) {
    const image = resolveUrl(written, converted.baseUrl);
    if (image) images.push(image.href);
  }
  return {
    ...(converted.title === undefined ? {} : { title: converted.title }),
    ...(converted.description === undefined ? {} : { description: converted.description }),
    links: converted.links.map((link) => link.href),
    images,
  };
}

/**
 * A crawled page's content as markdown: links to imported pages become `/pages/<id>` (keeping
 * their fragment), imported images `/files/<id>`; everything else stays as written.
 */
export function htmlPageMarkdown(html: string, url: string, targets: ImportedTargets): string {
  const converted = convertHtmlPage(html, new URL(url));
  const pageIds = new Map(targets.pages);
  const fileIds = new Map(targets.files);
  rewriteUrls(converted.body, (written) => {
    if (written.startsWith('#')) return undefined; // an anchor on the same page
    const target = resolveUrl(written, converted.baseUrl);
    if (!target) return undefined;
    const file = fileIds.get(withoutFragment(target).href);
    if (file) return `/files/${file}`;
    const linked = pageIds.get(pageKey(target));
    return linked ? `/pages/${linked}${target.hash}` : undefined;
  });
  return serializeMarkdown(converted.body);
}

/**
 * The pages as a tree following their URL paths: /docs/a/b goes under /docs/a when both were
 * crawled, else under its nearest crawled ancestor, else at the top. Siblings keep crawl order.
 */
function pageTree(pages: ReadonlyArray<CrawledPage & { markdown: string }>): PlannedPage[] {
  const firstPageByPath = new Map<string, CrawledPage>();
  for (const page of pages) {
    const path = pathSegments(page.url).join('/');
    if (!firstPageByPath.has(path)) firstPageByPath.set(path, page);
  }
  const planned = new Map<CrawledPage, PlannedPage>(pages.map((page) => [page, plannedPage(page)]));
  const roots: PlannedPage[] = [];
  for (const page of pages) {
    const segments = pathSegments(page.url);
    let parent: CrawledPage | undefined;
    for (let length = segments.length - 1; length >= 0 && parent === undefined; length--) {
      parent = firstPageByPath.get(segments.slice(0, length).join('/'));
    }
    (parent ? planned.get(parent)!.pages : roots).push(planned.get(page)!);
  }
  return roots;
}

function plannedPage(page: CrawledPage & { markdown: string }): PlannedPage {
  const { title, description } = page.outline;
  return {
    id: page.id,
    title: title ?? (titleFromFileName(page.url.pathname.replace(/\/$/, '')) || page.url.hostname),
    markdown: page.markdown,
    ...(description === undefined ? {} : { description }),
    pages: [],
  };
}

/** The folders of a page's path, `index.html` and `.html` left out: /docs/a/ and /docs/a.html are both docs/a. */
function pathSegments(url: URL): string[] {
  const segments = url.pathname.split('/').filter((segment) => segment !== '');
  const last = segments.at(-1);
  if (last !== undefined && /^index\.(html?|php)$/i.test(last)) segments.pop();
  else if (last !== undefined) segments[segments.length - 1] = last.replace(/\.(html?|php)$/i, '');
  return segments;
}

function imageUrlsOf(root: Root): string[] {
  const urls: string[] = [];
  const visit = (node: Nodes): void => {
    if (node.type === 'image') urls.push(node.url);
    if ('children' in node) for (const child of node.children as Nodes[]) visit(child);
  };
  visit(root);
  return urls;
}

function withoutFragment(url: URL): URL {
  const copy = new URL(url.href);
  copy.hash = '';
  return copy;
}

function decodedFileName(url: URL): string {
  const name = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/**
 * The time and byte limits shared by every fetch of one crawl. A fetch that runs out of either
 * ends the crawl: what is still to fetch is left out.
 */
class FetchBudget {
  private readonly deadline: number;
  private bytesLeft: number;
  /** Why nothing more is fetched, once a limit is reached. */
  exhausted: string | undefined;

  constructor(
    private readonly limits: ImportLimits,
    private readonly deps: ImportDeps,
  ) {
    this.deadline = Date.now() + limits.timeMs;
    this.bytesLeft = limits.maxBytes;
  }

  /** `maxBytes`: fewer bytes than the crawl has left, for this one resource. */
  async fetch(url: URL, accept: ContentTypeRule, maxBytes = Infinity): Promise<FetchedResource> {
    const timeMs = this.deadline - Date.now();
    if (timeMs <= 0) {
      this.exhausted = `time limit ${this.limits.timeMs} ms reached`;
      throw new ImportFailure(408, `the import timed out after ${this.limits.timeMs} ms`);
    }
    try {
      const fetched = await safeFetch(url, {
        allowPrivateNetworks: this.deps.allowPrivateNetworks,
        lookup: this.deps.lookup,
        maxBytes: Math.min(this.bytesLeft, maxBytes),
        timeMs,
        accept,
      });
      this.bytesLeft -= fetched.bytes.length;
      return fetched;
    } catch (error) {
      if (error instanceof ImportFailure && error.status === 408) this.exhausted = `time limit ${this.limits.timeMs} ms reached`;
      if (error instanceof ImportFailure && error.status === 413) this.exhausted = `byte limit ${this.limits.maxBytes} bytes reached`;
      throw error;
    }
  }
}

/** Counts what limits left out, by kind and reason, for the warnings. */
class LeftOutCounter {
  private readonly counts = new Map<string, { kind: 'page' | 'image'; reason: string; count: number }>();

  add(kind: 'page' | 'image', reason: string): void {
    const key = `${kind}\u0000${reason}`;
    const entry = this.counts.get(key) ?? { kind, reason, count: 0 };
    entry.count++;
    this.counts.set(key, entry);
  }

  warnings(): string[] {
    return [...this.counts.values()].map(({ kind, reason, count }) => `left out ${count} ${count === 1 ? kind : `${kind}s`}: ${reason}`);
  }
}
