import type { SectionDoc, SiteDoc, SiteSpaceDoc } from '../site.projections';
import { scopeOf } from '../site.decider';
import { evaluateCondition } from '../site.conditions';
import type { SiteContentRef, SitePage, SiteSpaceContent } from '../sites.needs';
import type { RefTarget } from './site-html.render';

/**
 * The published site's places (pure): which section, site space and page a URL names, the URL of
 * each, and where a content reference goes on the site. URLs: `{base}/{section}/{siteSpace}/{page}`,
 * where the default section and each scope's default site space leave their segment out; `base` is
 * `/sites/{siteId}` (plus `/{basename}` when the site has one) or empty on the site's own hostname.
 */

/** A URL segment the site reserves (search, files, the stylesheet): page slugs cannot start with `~`. */
export const SEARCH_SEGMENT = '~search';
export const FILES_SEGMENT = '~files';
export const STYLESHEET_SEGMENT = '~site.css';

/** Where a request landed: the scope, and what is asked of it. */
export interface SitePlace {
  section: SectionDoc | null;
  siteSpace: SiteSpaceDoc;
  /** What follows the site space: a page path (possibly empty), the search or a file. */
  rest: { kind: 'page'; path: string } | { kind: 'search' } | { kind: 'file'; fileId: string };
}

/** The section and site space a path names (after the base), or null when the reader can see none. */
export function placeOf(site: SiteDoc, segments: readonly string[]): SitePlace | null {
  let rest = [...segments];
  let section: SectionDoc | null = null;
  if (site.sections.length > 0) {
    const named = site.sections.find((candidate) => candidate.path === rest[0]);
    section = named ?? defaultSection(site);
    if (!section) return null;
    if (named) rest = rest.slice(1);
  }
  const scope = section?.id ?? null;
  const inScope = site.siteSpaces.filter((siteSpace) => siteSpace.sectionId === scope);
  const named = inScope.find((candidate) => candidate.path === rest[0]);
  const siteSpace = named ?? inScope.find((candidate) => candidate.id === site.defaultSiteSpace[scopeOf(scope)]) ?? inScope[0];
  if (!siteSpace) return null;
  if (named) rest = rest.slice(1);
  if (rest.length === 1 && rest[0] === SEARCH_SEGMENT) return { section, siteSpace, rest: { kind: 'search' } };
  if (rest.length === 2 && rest[0] === FILES_SEGMENT) return { section, siteSpace, rest: { kind: 'file', fileId: rest[1] } };
  return { section, siteSpace, rest: { kind: 'page', path: rest.join('/') } };
}

export function defaultSection(site: SiteDoc): SectionDoc | null {
  return site.sections.find((section) => section.id === site.defaultSection) ?? site.sections[0] ?? null;
}

/** The URL of a site space's root (no trailing slash; `/` on a hostname's default site space). */
export function siteSpaceUrl(base: string, site: SiteDoc, siteSpace: SiteSpaceDoc): string {
  const parts: string[] = [];
  const section = siteSpace.sectionId === null ? null : site.sections.find((candidate) => candidate.id === siteSpace.sectionId);
  if (section && section.id !== defaultSection(site)?.id) parts.push(section.path);
  const inScope = site.siteSpaces.filter((candidate) => candidate.sectionId === siteSpace.sectionId);
  const scopeDefault = inScope.find((candidate) => candidate.id === site.defaultSiteSpace[scopeOf(siteSpace.sectionId)]) ?? inScope[0];
  if (scopeDefault?.id !== siteSpace.id) parts.push(siteSpace.path);
  return joinUrl(base, ...parts);
}

export function sectionUrl(base: string, site: SiteDoc, section: SectionDoc): string {
  return section.id === defaultSection(site)?.id ? joinUrl(base) : joinUrl(base, section.path);
}

export function pageUrl(spaceUrl: string, page: Pick<SitePage, 'path'>): string {
  return joinUrl(
    spaceUrl,
    ...page.path
      .split('/')
      .filter((part) => part !== '')
      .map(encodeURIComponent),
  );
}

function joinUrl(base: string, ...parts: string[]): string {
  const path = [base, ...parts].join('/').replace(/\/{2,}/g, '/');
  return path === '' ? '/' : path;
}

/** Whether a condition holds for the reader's claims; a condition that does not parse hides what it guards. */
export function conditionHolds(condition: string | null | undefined, claims: Record<string, unknown>): boolean {
  if (condition === null || condition === undefined) return true;
  try {
    return evaluateCondition(condition, claims);
  } catch {
    return false;
  }
}

/** The pages a reader may reach: without those whose condition is false for them, and everything under those. */
export function readablePages(content: SiteSpaceContent, claims: Record<string, unknown>): SitePage[] {
  const excluded = new Set<string>();
  return content.pages.filter((page) => {
    if ((page.parentId !== null && excluded.has(page.parentId)) || !conditionHolds(page.condition, claims)) {
      excluded.add(page.id);
      return false;
    }
    return true;
  });
}

/** The page a path names: a document page, the first document page under a group, the first page for the root. */
export function pageAt(pages: readonly SitePage[], path: string): SitePage | null {
  const navigable = (page: SitePage) => page.type === 'document';
  if (path === '') return pages.find((page) => navigable(page) && !page.hidden) ?? null;
  const page = pages.find((candidate) => candidate.type !== 'link' && candidate.path === path);
  if (!page) return null;
  if (page.type === 'document') return page;
  const index = pages.indexOf(page);
  return (
    pages
      .slice(index + 1)
      .find((candidate) => candidate.depth > page.depth && navigable(candidate) && isUnder(pages, candidate, page.id)) ?? null
  );
}

function isUnder(pages: readonly SitePage[], page: SitePage, ancestorId: string): boolean {
  const byId = new Map(pages.map((candidate) => [candidate.id, candidate]));
  for (let parent = page.parentId; parent !== null; parent = byId.get(parent)?.parentId ?? null) if (parent === ancestorId) return true;
  return false;
}

/** URL schemes a link may use; any other (javascript:, data:, vbscript:, file:, ...) is dropped. */
const SAFE_SCHEMES = new Set(['http', 'https', 'mailto', 'tel']);

/** A URL from content as a link target, or null when its scheme could run code or read local files. */
export function safeUrl(url: string): string | null {
  // Browsers drop tabs and newlines anywhere in a URL and leading controls and spaces before reading its scheme.
  const cleaned = url.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+/, '');
  if (cleaned === '') return null;
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(cleaned);
  return !scheme || SAFE_SCHEMES.has(scheme[1].toLowerCase()) ? cleaned : null;
}

/** A site space's content as the reader sees it, with the URL of its root. */
export interface LoadedSiteSpace {
  siteSpace: SiteSpaceDoc;
  url: string;
  content: SiteSpaceContent;
  pages: SitePage[];
}

/**
 * Where references of a page body go on the site: pages and anchors of the spaces the site shows (the
 * current site space first), files through the site's file route, URLs with a safe scheme. Anything
 * else (users, collections, a space the site does not show, a page the reader cannot see) has no place.
 */
export function siteRefResolver(current: LoadedSiteSpace, others: readonly LoadedSiteSpace[]): (ref: SiteContentRef) => RefTarget | null {
  const spaceOf = (spaceId: string | undefined): LoadedSiteSpace | undefined =>
    spaceId === undefined || spaceId === current.content.spaceId ? current : others.find((loaded) => loaded.content.spaceId === spaceId);
  const pageTarget = (loaded: LoadedSiteSpace | undefined, pageId: string | undefined): RefTarget | null => {
    const page = loaded?.pages.find((candidate) => candidate.id === pageId);
    if (!loaded || !page || page.type === 'link') return null;
    const target = page.type === 'document' ? page : pageAt(loaded.pages, page.path);
    return target ? { href: pageUrl(loaded.url, target), title: page.title } : null;
  };
  return (ref) => {
    switch (ref.kind) {
      case 'url': {
        const url = typeof ref.url === 'string' ? safeUrl(ref.url) : null;
        return url === null ? null : { href: url };
      }
      case 'page':
        return pageTarget(spaceOf(ref.space), ref.page);
      case 'anchor': {
        if (typeof ref.anchor !== 'string' || ref.anchor === '') return null;
        if (ref.page === undefined) return { href: `#${encodeURIComponent(ref.anchor)}` };
        const page = pageTarget(spaceOf(ref.space), ref.page);
        return page ? { ...page, href: `${page.href}#${encodeURIComponent(ref.anchor)}` } : null;
      }
      case 'file': {
        const loaded = spaceOf(ref.space);
        const file = loaded?.content.files.find((candidate) => candidate.id === ref.file);
        return loaded && file ? { href: `${joinUrl(loaded.url, FILES_SEGMENT, encodeURIComponent(file.id))}`, title: file.name } : null;
      }
      case 'space': {
        const loaded =
          others.find((candidate) => candidate.content.spaceId === ref.space) ??
          (ref.space === current.content.spaceId ? current : undefined);
        return loaded ? { href: loaded.url } : null;
      }
      default:
        return null;
    }
  };
}

/** The spaces a body refers to other than its own (loaded before rendering, for links between spaces). */
export function referencedSpaces(document: unknown, ownSpaceId: string): Set<string> {
  const found = new Set<string>();
  const stack: unknown[] = [document];
  let visited = 0;
  while (stack.length > 0 && visited++ < 100_000) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    const record = node as { data?: { ref?: { space?: unknown } }; nodes?: unknown };
    const space = record.data?.ref?.space;
    if (typeof space === 'string' && space !== ownSpaceId) found.add(space);
    if (Array.isArray(record.nodes)) stack.push(...(record.nodes as unknown[]));
  }
  return found;
}
