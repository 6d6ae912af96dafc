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

/** What fetching imports need from the service. */
export interface ImportDeps {
  newId: NewId;
  /** IMPORT_ALLOW_PRIVATE_NETWORKS: lets imports reach loopback and private addresses (tests, closed networks). */
  allowPrivateNetworks: boolean;
  /** Resolves host names; DNS unless given. */
  lookup?: LookupAddresses;
}
