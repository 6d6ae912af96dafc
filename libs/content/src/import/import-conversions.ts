import type { ImportConversions, NewId } from './import-plan';
import { markdownPage } from './markdown-import';
import { htmlPageMarkdown, outlineHtmlPage } from './website-import';
import { importZipBytes } from './zip-import';

/**
 * The conversions of an import run in place, on the calling thread: for the specs, and inside a
 * thread of the untrusted-work pool (content.work.ts). The service's request thread never runs
 * them (ContentBuilder hands them to the pool).
 */
export function localImportConversions(newId: NewId): ImportConversions {
  return {
    zip: async (bytes, limits) => importZipBytes(bytes, limits, newId),
    markdownPage: async (text, fallbackTitle) => markdownPage(text, fallbackTitle, newId),
    htmlOutline: async (html, url) => outlineHtmlPage(html, url),
    htmlBodies: async (pages, targets) => pages.map((page) => htmlPageMarkdown(page.html, page.url, targets)),
  };
}
