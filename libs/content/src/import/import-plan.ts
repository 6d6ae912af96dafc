import type { LookupAddresses } from './safe-fetch';

/**
 * What an import produces: pages and files with ids already assigned, links between them already
 * rewritten to `/pages/<id>` and `/files/<id>`. The endpoint turns the plan into pages; nothing here
 * touches the space.
 */
export interface ImportPlan {
  /** A tree, in order. */
  pages: PlannedPage[];
  files: PlannedFile[];
  /** Pages and files actually imported. */
  importedResources: number;
  /** Resources discovered, including those left out by limits. */
  totalResources: number;
  /** What was left out or could not be read, in words, e.g. 'left out 12 pages: page limit 200 reached'. */
  warnings: string[];
}

export interface PlannedPage {
  id: string;
  title: string;
  markdown: string;
  description?: string;
  pages: PlannedPage[];
}

export interface PlannedFile {
  id: string;
  name: string;
  contentType: string;
  bytes: Buffer;
}

export type ImportSource = 'website' | 'markdown' | 'zip';

export interface ImportLimits {
  /** Pages imported at most (website crawl and zip archive). */
  maxPages: number;
  /** Links followed away from the start page, at most (website crawl). */
  maxDepth: number;
  /** Bytes downloaded in total: every page and image of a website, or the one markdown file. */
  maxBytes: number;
  /** Time for all the fetching of one import, in milliseconds. */
  timeMs: number;
  /** Bytes of the downloaded zip archive. */
  maxArchiveBytes: number;
  /** Entries in a zip archive, folders included. */
  maxArchiveEntries: number;
  /** Uncompressed bytes of all entries of a zip archive together. */
  maxUncompressedBytes: number;
  /** Uncompressed bytes of one zip entry. */
  maxEntryBytes: number;
  /** Bytes of all the files (images, attachments) one import brings, together (CONTENT_UPLOAD_MAX_BYTES). */
  maxFileBytes: number;
}

const MB = 1024 * 1024;

export const DEFAULT_IMPORT_LIMITS: Readonly<ImportLimits> = Object.freeze({
  maxPages: 100,
  maxDepth: 3,
  maxBytes: 20 * MB,
  timeMs: 30_000,
  maxArchiveBytes: 50 * MB,
  maxArchiveEntries: 5_000,
  maxUncompressedBytes: 200 * MB,
  maxEntryBytes: 50 * MB,
  maxFileBytes: 100 * MB,
});

/** The defaults with the given overrides; undefined overrides keep the default. */
export function importLimits(overrides: Partial<ImportLimits> = {}): ImportLimits {
  const limits: ImportLimits = { ...DEFAULT_IMPORT_LIMITS };
  for (const key of Object.keys(limits) as Array<keyof ImportLimits>) {
    const value = overrides[key];
    if (value !== undefined) limits[key] = value;
  }
  return limits;
}

/** Page and file ids come from the caller: the service's ids are 20 base-62 characters. */
export type NewId = () => string;

/** What a crawl needs of an HTML page: read off the request thread, as plain data. */
export interface HtmlPageOutline {
  /** The first level-1 heading of the content, else the document's <title>. */
  title?: string;
  /** <meta name="description">. */
  description?: string;
  /** Every <a href>, navigation included, as absolute URLs. */
  links: string[];
  /** The images the content shows, as absolute URLs. */
  images: string[];
}

/** Where the links of crawled pages go once imported: page ids by page key (origin and path), file ids by URL without fragment. */
export interface ImportedTargets {
  pages: Array<[string, string]>;
  files: Array<[string, string]>;
}

/**
 * The steps of an import that cost CPU in proportion to what was downloaded (inflating, parsing,
 * converting): the service runs them on the untrusted-work pool within the import's conversion
 * budget (content.work.ts); `localImportConversions` runs them in place.
 */
export interface ImportConversions {
  /** A zip archive's pages and files (importZipBytes). */
  zip(bytes: Uint8Array, limits: ImportLimits): Promise<ImportPlan>;
  /** One markdown file (already checked against the page size) as one page. */
  markdownPage(text: string, fallbackTitle: string): Promise<PlannedPage>;
  /** An HTML page's title, description, links and images. */
  htmlOutline(html: string, url: string): Promise<HtmlPageOutline>;
  /** The content of crawled HTML pages as markdown, their links to imported pages and images rewritten, in order. */
  htmlBodies(pages: Array<{ html: string; url: string }>, targets: ImportedTargets): Promise<string[]>;
}

/** What fetching imports need from the service. */
export interface ImportDeps {
  newId: NewId;
  conversions: ImportConversions;
  /** IMPORT_ALLOW_PRIVATE_NETWORKS: lets imports reach loopback and private addresses (tests, closed networks). */
  allowPrivateNetworks: boolean;
  /** Resolves host names; DNS unless given. */
  lookup?: LookupAddresses;
}
