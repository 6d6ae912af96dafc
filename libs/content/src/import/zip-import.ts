import type { List, ListItem, Nodes } from 'mdast';
import { TextDecoder } from 'node:util';
import { contentTypeOf, extensionOf } from './content-types';
import { ImportFailure } from './import-failure';
import {
  type ImportDeps,
  type ImportLimits,
  type ImportPlan,
  type NewId,
  type PlannedFile,
  type PlannedPage,
  importLimits,
} from './import-plan';
import { checkedMarkdown, isMarkdownPath, MAX_MARKDOWN_BYTES } from './markdown-import';
import {
  collapseWhitespace,
  parseMarkdown,
  plainText,
  rewriteUrls,
  serializeMarkdown,
  splitFrontMatter,
  titleFromFileName,
  titleOf,
} from './markdown-source';
import { type ContentTypeRule, safeFetch } from './safe-fetch';
import { type ZipEntry, inflateEntry, readZipDirectory } from './zip-reader';

const ZIP_MEDIA_TYPES = new Set([
  'application/zip',
  'application/x-zip',
  'application/x-zip-compressed',
  'multipart/x-zip',
  'application/octet-stream',
]);

export const ZIP_CONTENT: ContentTypeRule = {
  label: 'a zip archive',
  accept: 'application/zip, application/octet-stream;q=0.5',
  matches: (mediaType, url) => ZIP_MEDIA_TYPES.has(mediaType) || (extensionOf(url.pathname) === 'zip' && mediaType !== 'text/html'),
};

/** Downloads a zip archive and imports it (see importZipBytes, run by deps.conversions). */
export async function importZip(url: string, limits: Partial<ImportLimits>, deps: ImportDeps): Promise<ImportPlan> {
  const resolved = importLimits(limits);
  const fetched = await safeFetch(url, {
    allowPrivateNetworks: deps.allowPrivateNetworks,
    lookup: deps.lookup,
    maxBytes: resolved.maxArchiveBytes,
    timeMs: resolved.timeMs,
    accept: ZIP_CONTENT,
  });
  return deps.conversions.zip(fetched.bytes, resolved);
}

/**
 * Imports a zip archive of markdown files (a GitBook export, a docs folder): markdown files become
 * pages, folders become pages (their README.md is the body), ordered by the root SUMMARY.md when
 * there is one, else alphabetically with README first. Relative links between the files become
 * page links; the other files they link to (images, attachments) are imported as files.
 */
export function importZipBytes(bytes: Uint8Array, limits: Partial<ImportLimits>, newId: NewId): ImportPlan {
  const resolved = importLimits(limits);
  const warnings: string[] = [];
  const archive = openArchive(bytes, resolved, warnings);
  const markdownPaths = [...archive.entries.keys()].filter(
    (path) => isMarkdownPath(path) && !path.split('/').some((segment) => segment.startsWith('.')),
  );
  const summaryPath = markdownPaths.find((path) => path.toLowerCase() === 'summary.md');
  const outline = summaryPath ? summaryOutline(archive, summaryPath, markdownPaths, warnings) : folderOutline(markdownPaths);

  const kept = keepWithinPageLimit(outline, resolved.maxPages, newId);
  if (kept.leftOut > 0)
    warnings.push(`left out ${kept.leftOut} ${kept.leftOut === 1 ? 'page' : 'pages'}: page limit ${resolved.maxPages} reached`);
  const files = new ArchiveFiles(archive, newId, resolved.maxFileBytes);
  const pages = kept.nodes.map((node) => plannedPage(node, archive, kept.pageIdByPath, files));
  return {
    pages,
    files: files.planned,
    importedResources: kept.pageCount + files.planned.length,
    totalResources: kept.pageCount + kept.leftOut + files.planned.length,
    warnings,
  };
}

// ---------------------------------------------------------------------------------------------
// The archive: entries by normalised path, size limits checked before anything is inflated.

interface Archive {
  bytes: Uint8Array;
  /** By normalised path, without a single folder wrapping everything. */
  entries: Map<string, ZipEntry>;
}

function openArchive(bytes: Uint8Array, limits: ImportLimits, warnings: string[]): Archive {
  const entries = new Map<string, ZipEntry>();
  const unsafe: string[] = [];
  const unreadable: string[] = [];
  let declaredTotal = 0;
  for (const entry of readZipDirectory(bytes, limits.maxArchiveEntries)) {
    if (entry.isDirectory) continue;
    const normalised = normaliseEntryPath(entry.name);
    if (normalised.refused === 'unsafe') unsafe.push(entry.name);
    if (normalised.path === undefined || entries.has(normalised.path)) continue;
    const path = normalised.path;
    if (entry.encrypted || (entry.method !== 0 && entry.method !== 8)) {
      unreadable.push(entry.name);
      continue;
    }
    if (entry.uncompressedSize > limits.maxEntryBytes) {
      throw new ImportFailure(413, `the archive entry ${entry.name} is larger than ${limits.maxEntryBytes} bytes uncompressed`);
    }
    declaredTotal += entry.uncompressedSize;
    if (declaredTotal > limits.maxUncompressedBytes) {
      throw new ImportFailure(413, `the archive is larger than ${limits.maxUncompressedBytes} bytes uncompressed`);
    }
    entries.set(path, entry);
  }
  if (unsafe.length > 0)
    warnings.push(`ignored ${describeCount(unsafe.length, 'entry', 'entries')} with an unsafe path: ${sample(unsafe)}`);
  if (unreadable.length > 0)
    warnings.push(
      `ignored ${describeCount(unreadable.length, 'entry', 'entries')} that are encrypted or compressed with an unsupported method: ${sample(unreadable)}`,
    );
  return { bytes, entries: withoutWrappingFolder(entries) };
}

export type NormalisedEntryPath = { path: string; refused?: undefined } | { path?: undefined; refused: 'unsafe' | 'ignored' };

/**
 * An entry name as a safe relative path: backslashes become slashes, `.` and empty segments go.
 * Refused as unsafe: absolute paths and paths with `..` (they could escape the archive); ignored:
 * macOS resource forks (`__MACOSX/`) and Finder files.
 */
export function normaliseEntryPath(name: string): NormalisedEntryPath {
  const slashed = name.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[a-zA-Z]:/.test(slashed)) return { refused: 'unsafe' };
  const segments = slashed.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) return { refused: 'unsafe' };
  if (segments.length === 0 || segments[0] === '__MACOSX' || segments.at(-1) === '.DS_Store') return { refused: 'ignored' };
  return { path: segments.join('/') };
}

/** Archives of a folder usually hold one top-level folder (`docs-main/…`): its content is the root. */
function withoutWrappingFolder(entries: Map<string, ZipEntry>): Map<string, ZipEntry> {
  const paths = [...entries.keys()];
  const top = paths[0]?.split('/')[0];
  if (top === undefined || !paths.every((path) => path.startsWith(`${top}/`))) return entries;
  return new Map([...entries].map(([path, entry]) => [path.slice(top.length + 1), entry]));
}

/**
 * A markdown entry's text, refused with 413 as soon as it is larger than a page may be: by its
 * declared size before inflating, by its real size while inflating, by its length before parsing.
 */
function readText(archive: Archive, path: string): string {
  const entry = archive.entries.get(path)!;
  if (entry.uncompressedSize > MAX_MARKDOWN_BYTES) {
    throw new ImportFailure(
      413,
      `the archive entry ${entry.name} is larger than the ${MAX_MARKDOWN_BYTES} bytes a page's markdown may have`,
    );
  }
  return checkedMarkdown(
    new TextDecoder('utf-8').decode(inflateEntry(archive.bytes, entry, entry.uncompressedSize)),
    `the archive entry ${entry.name}`,
  );
}

/** The files pages link to, inflated and given ids on first use. */
class ArchiveFiles {
  readonly planned: PlannedFile[] = [];
  private readonly byPath = new Map<string, PlannedFile>();
  private bytesLeft: number;

  constructor(
    private readonly archive: Archive,
    private readonly newId: NewId,
    private readonly maxFileBytes: number,
  ) {
    this.bytesLeft = maxFileBytes;
  }

  fileFor(path: string): PlannedFile | undefined {
    const known = this.byPath.get(path);
    if (known) return known;
    const entry = this.archive.entries.get(path);
    if (!entry) return undefined;
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (entry.uncompressedSize > this.bytesLeft) {
      throw new ImportFailure(413, `the files the archive's pages link to are larger than ${this.maxFileBytes} bytes together`);
    }
    const bytes = inflateEntry(this.archive.bytes, entry, entry.uncompressedSize);
    this.bytesLeft -= bytes.length;
    const file: PlannedFile = {
      id: this.newId(),
      name,
      contentType: contentTypeOf(name),
      bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    };
    this.byPath.set(path, file);
    this.planned.push(file);
    return file;
  }
}

// ---------------------------------------------------------------------------------------------
// The outline: which pages, in which order, before any page is read.

interface OutlineNode {
  /** A title that wins over the file's own (SUMMARY.md entries, group headings). */
  title?: string;
  /** The title when neither the entry nor the file gives one: the file or folder name. */
  fallbackTitle: string;
  /** The markdown file with the page's body. */
  sourcePath?: string;
  /** The folder the page stands for, so links to the folder reach it. */
  folderPath?: string;
  children: OutlineNode[];
}

interface Folder {
  name: string;
  path: string;
  markdownFiles: string[];
  folders: Map<string, Folder>;
}

/** Without SUMMARY.md: the folder structure, alphabetically, README first. */
function folderOutline(markdownPaths: readonly string[]): OutlineNode[] {
  const root: Folder = { name: '', path: '', markdownFiles: [], folders: new Map() };
  for (const path of markdownPaths) {
    const segments = path.split('/');
    let folder = root;
    for (const segment of segments.slice(0, -1)) {
      let child = folder.folders.get(segment);
      if (!child) {
        child = { name: segment, path: folder.path ? `${folder.path}/${segment}` : segment, markdownFiles: [], folders: new Map() };
        folder.folders.set(segment, child);
      }
      folder = child;
    }
    folder.markdownFiles.push(path);
  }
  return folderContents(root, true);
}

function folderContents(folder: Folder, isRoot: boolean): OutlineNode[] {
  const readme = readmeIn(folder);
  const named: Array<{ sortName: string; node: OutlineNode }> = [];
  for (const path of folder.markdownFiles) {
    if (path === readme && !isRoot) continue; // the folder page's body
    named.push({ sortName: titleFromFileName(path), node: { fallbackTitle: titleFromFileName(path), sourcePath: path, children: [] } });
  }
  for (const child of folder.folders.values()) {
    const node: OutlineNode = {
      fallbackTitle: child.name,
      sourcePath: readmeIn(child),
      folderPath: child.path,
      children: folderContents(child, false),
    };
    named.push({ sortName: child.name, node });
  }
  const isRootReadme = (node: OutlineNode): number => Number(isRoot && node.sourcePath !== undefined && node.sourcePath === readme);
  named.sort(
    (a, b) =>
      isRootReadme(b.node) - isRootReadme(a.node) ||
      a.sortName.localeCompare(b.sortName, 'en', { numeric: true, sensitivity: 'base' }) ||
      (a.sortName < b.sortName ? -1 : a.sortName > b.sortName ? 1 : 0),
  );
  return named.map(({ node }) => node);
}

function readmeIn(folder: Folder): string | undefined {
  return folder.markdownFiles.find((path) => path.slice(path.lastIndexOf('/') + 1).toLowerCase() === 'readme.md');
}

/**
 * With SUMMARY.md (GitBook's table of contents): its lists of `[Title](path.md)` links, nested for
 * sub-pages, and its `## Group` headings, which become pages with an empty body holding the group.
 * Markdown files it does not list are left out, as GitBook leaves them out.
 */
function summaryOutline(archive: Archive, summaryPath: string, markdownPaths: readonly string[], warnings: string[]): OutlineNode[] {
  const markdown = new Set(markdownPaths);
  const used = new Set<string>([summaryPath]);
  const tree = parseMarkdown(splitFrontMatter(readText(archive, summaryPath)).body);

  const entryNodes = (list: List): OutlineNode[] => list.children.flatMap((item) => entryNode(item));
  const entryNode = (item: ListItem): OutlineNode[] => {
    const children = item.children.flatMap((child) => (child.type === 'list' ? entryNodes(child) : []));
    const paragraph = item.children.find((child) => child.type === 'paragraph');
    if (!paragraph) return children;
    const link = firstLink(paragraph);
    const title = collapseWhitespace(plainText(link ?? paragraph));
    if (!link) return [{ title, fallbackTitle: title, children }];
    const target = archiveTarget(link.url, summaryPath);
    const path = target && (markdown.has(target.path) ? target.path : readmeFor(target.path, markdown));
    if (!target) {
      warnings.push(`SUMMARY.md links to ${link.url}, which is not a file of the archive: left out`);
      return children;
    }
    if (!path) {
      warnings.push(`SUMMARY.md lists ${link.url}, which is not in the archive: imported as an empty page`);
      return [{ title, fallbackTitle: title, children }];
    }
    if (used.has(path)) {
      warnings.push(`SUMMARY.md lists ${path} more than once: imported once`);
      return children;
    }
    used.add(path);
    return [{ title: title || undefined, fallbackTitle: titleFromFileName(path), sourcePath: path, children }];
  };

  const outline: OutlineNode[] = [];
  let group: OutlineNode | undefined;
  for (const block of tree.children) {
    if (block.type === 'heading' && block.depth >= 2) {
      const title = collapseWhitespace(plainText(block));
      group = { title, fallbackTitle: title, children: [] };
      outline.push(group);
    } else if (block.type === 'list') {
      (group?.children ?? outline).push(...entryNodes(block));
    }
  }
  const unlisted = markdownPaths.filter((path) => !used.has(path));
  if (unlisted.length > 0) {
    warnings.push(
      `left out ${describeCount(unlisted.length, 'markdown file', 'markdown files')} not listed in SUMMARY.md: ${sample(unlisted)}`,
    );
  }
  return outline;
}

function firstLink(node: Nodes): Extract<Nodes, { type: 'link' }> | undefined {
  if (node.type === 'link') return node;
  if (!('children' in node)) return undefined;
  for (const child of node.children as Nodes[]) {
    const link = firstLink(child);
    if (link) return link;
  }
  return undefined;
}

function readmeFor(folderPath: string, markdown: ReadonlySet<string>): string | undefined {
  const prefix = folderPath === '' ? '' : `${folderPath}/`;
  return [...markdown].find((path) => path.toLowerCase() === `${prefix}readme.md`.toLowerCase());
}

interface KeptOutline {
  nodes: KeptNode[];
  /** Page ids by source file path and by folder path. */
  pageIdByPath: Map<string, string>;
  pageCount: number;
  leftOut: number;
}

interface KeptNode extends OutlineNode {
  id: string;
  children: KeptNode[];
}

/** The first `maxPages` pages in tree order get ids; the rest (and so their sub-pages) are left out. */
function keepWithinPageLimit(outline: readonly OutlineNode[], maxPages: number, newId: NewId): KeptOutline {
  const kept: KeptOutline = { nodes: [], pageIdByPath: new Map(), pageCount: 0, leftOut: 0 };
  const keep = (nodes: readonly OutlineNode[]): KeptNode[] =>
    nodes.flatMap((node) => {
      if (kept.pageCount >= maxPages) {
        kept.leftOut += countNodes([node]);
        return [];
      }
      kept.pageCount++;
      const id = newId();
      if (node.sourcePath !== undefined) kept.pageIdByPath.set(node.sourcePath, id);
      if (node.folderPath !== undefined) kept.pageIdByPath.set(node.folderPath, id);
      // A README is its folder's page: a link to the folder (`guide/`) reaches it.
      const readmeFolder = node.sourcePath?.match(/^(?:(.*)\/)?readme\.md$/i);
      if (readmeFolder && !kept.pageIdByPath.has(readmeFolder[1] ?? '')) kept.pageIdByPath.set(readmeFolder[1] ?? '', id);
      return [{ ...node, id, children: keep(node.children) }];
    });
  kept.nodes = keep(outline);
  return kept;
}

function countNodes(nodes: readonly OutlineNode[]): number {
  return nodes.reduce((count, node) => count + 1 + countNodes(node.children), 0);
}

// ---------------------------------------------------------------------------------------------
// Pages: the markdown read, titled, its links rewritten.

function plannedPage(node: KeptNode, archive: Archive, pageIdByPath: ReadonlyMap<string, string>, files: ArchiveFiles): PlannedPage {
  const children = node.children.map((child) => plannedPage(child, archive, pageIdByPath, files));
  if (node.sourcePath === undefined) {
    return { id: node.id, title: node.title || node.fallbackTitle, markdown: '', pages: children };
  }
  const sourcePath = node.sourcePath;
  const { frontMatter, body } = splitFrontMatter(readText(archive, sourcePath));
  const tree = parseMarkdown(body);
  const { title, leadingHeadingIsTitle } = titleOf(tree, frontMatter, node.fallbackTitle, node.title);
  if (leadingHeadingIsTitle) tree.children.shift();
  rewriteUrls(tree, (written) => {
    const target = archiveTarget(written, sourcePath);
    if (!target) return undefined;
    const pageId = pageIdByPath.get(target.path);
    if (pageId) return `/pages/${pageId}${target.fragment}`;
    if (isMarkdownPath(target.path)) return undefined; // a page left out: the link stays as written
    const file = files.fileFor(target.path);
    return file ? `/files/${file.id}` : undefined;
  });
  return {
    id: node.id,
    title,
    markdown: serializeMarkdown(tree),
    ...(frontMatter.description === undefined ? {} : { description: frontMatter.description }),
    pages: children,
  };
}

/**
 * Where a link written in the archive's file `fromPath` points inside the archive: undefined for
 * URLs with a scheme, same-page anchors, and relative paths that climb out of the archive.
 * `/path` counts from the archive's root.
 */
export function archiveTarget(written: string, fromPath: string): { path: string; fragment: string } | undefined {
  const trimmed = written.trim();
  if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('//') || /^[a-z][a-z0-9+.-]*:/i.test(trimmed)) return undefined;
  const hashAt = trimmed.indexOf('#');
  const fragment = hashAt >= 0 ? trimmed.slice(hashAt) : '';
  const pathPart = (hashAt >= 0 ? trimmed.slice(0, hashAt) : trimmed).split('?')[0];
  const segments = pathPart.startsWith('/') ? [] : fromPath.split('/').slice(0, -1);
  for (const raw of pathPart.split('/')) {
    const segment = decodeSegment(raw);
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) return undefined;
      segments.pop();
    } else {
      segments.push(segment);
    }
  }
  return { path: segments.join('/'), fragment };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function describeCount(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** A few names for a warning, not thousands. */
function sample(names: readonly string[]): string {
  const shown = names.slice(0, 5).join(', ');
  return names.length > 5 ? `${shown} and ${names.length - 5} more` : shown;
}
