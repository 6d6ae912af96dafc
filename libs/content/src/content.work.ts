import { newId } from '#platform/ids';
import { untrustedTask } from '#platform/untrusted-work/untrusted-work';
import { batchLinkResolver, type BatchRef } from './content.changes';
import { carryKeys } from '#document/carry-keys';
import type { DocumentNode } from '#document/document.model';
import { documentToMarkdown } from '#document/markdown-export';
import { markdownToDocument, type MarkdownDocument } from '#document/markdown-import';
import { parseDocument } from '#document/parse-document';
import { localImportConversions } from './import/import-conversions';
import type { HtmlPageOutline, ImportedTargets, ImportLimits, ImportPlan, PlannedPage } from './import/import-plan';

/**
 * Content work for the untrusted-work pool (loaded inside its worker threads: pure code only).
 * Converting markdown and HTML, and reading zip archives, cost CPU in proportion to what a caller
 * sent or a site served, so they run off the thread that answers requests. Each task answers the
 * time it ran, which the write or import charges to its one conversion budget
 * (CONTENT_CONVERSION_TIME_MS, ConversionBudget): fifty pages share one budget, not fifty.
 */

/** A task's result and how long it ran, in ms. */
export interface Timed<T> {
  result: T;
  ms: number;
}

async function timed<T>(run: () => T | Promise<T>): Promise<Timed<T>> {
  const start = performance.now();
  const result = await run();
  return { result, ms: performance.now() - start };
}

export interface ConvertMarkdownInput {
  /** Page bodies, each already within the page's length. */
  bodies: string[];
  /** The batch's refs, whose links become links to what they name. */
  refs: Array<[string, BatchRef]>;
}

export function convertMarkdownTask({ bodies, refs }: ConvertMarkdownInput): Promise<Timed<MarkdownDocument[]>> {
  return timed(() => {
    const options = refs.length > 0 ? { resolveLink: batchLinkResolver(new Map(refs)) } : {};
    return bodies.map((markdown) => markdownToDocument(markdown, options));
  });
}

/** A page body written again keeps the keys of what did not change (carry-keys.ts): fingerprinting both bodies costs in proportion to their size. */
export function carryKeysTask({ previous, next }: { previous: DocumentNode; next: DocumentNode }): Promise<Timed<DocumentNode>> {
  return timed(() => carryKeys(previous, next));
}

/** A comment body as sent: markdown, or a JSON document. */
export type CommentBodyInput = { markdown: string } | { document: unknown };

/** A comment body as stored: the document, and its markdown rendered once (reads answer it as stored). */
export interface ConvertedCommentBody {
  document: DocumentNode;
  markdown: string;
}

/**
 * Markdown converted to a document, or a JSON document validated (a DomainError 400 naming what is
 * wrong), then rendered back to markdown: both cost CPU in proportion to the body (a 16 KiB nested
 * list takes hundreds of ms), so both run here, once, when the body is written.
 */
export async function commentBodyTask(body: CommentBodyInput): Promise<ConvertedCommentBody> {
  const document = 'markdown' in body ? markdownToDocument(body.markdown).document : parseDocument(body.document);
  return { document, markdown: documentToMarkdown(document) };
}

const imports = localImportConversions(() => newId());

export function readZipTask({ bytes, limits }: { bytes: Uint8Array; limits: ImportLimits }): Promise<Timed<ImportPlan>> {
  return timed(() => imports.zip(bytes, limits));
}

export function readMarkdownFileTask({ text, fallbackTitle }: { text: string; fallbackTitle: string }): Promise<Timed<PlannedPage>> {
  return timed(() => imports.markdownPage(text, fallbackTitle));
}

export function outlineHtmlTask({ html, url }: { html: string; url: string }): Promise<Timed<HtmlPageOutline>> {
  return timed(() => imports.htmlOutline(html, url));
}

export function htmlBodiesTask({
  pages,
  targets,
}: {
  pages: Array<{ html: string; url: string }>;
  targets: ImportedTargets;
}): Promise<Timed<string[]>> {
  return timed(() => imports.htmlBodies(pages, targets));
}

export const CONVERT_MARKDOWN = untrustedTask<ConvertMarkdownInput, Timed<MarkdownDocument[]>>(
  __filename,
  'convertMarkdownTask',
  'converting markdown',
);
export const CARRY_KEYS = untrustedTask<{ previous: DocumentNode; next: DocumentNode }, Timed<DocumentNode>>(
  __filename,
  'carryKeysTask',
  'carrying block keys across a page body',
);
export const CONVERT_COMMENT_BODY = untrustedTask<CommentBodyInput, ConvertedCommentBody>(
  __filename,
  'commentBodyTask',
  'converting a comment body',
);
export const READ_ZIP = untrustedTask<{ bytes: Uint8Array; limits: ImportLimits }, Timed<ImportPlan>>(
  __filename,
  'readZipTask',
  'reading a zip archive',
);
export const READ_MARKDOWN_FILE = untrustedTask<{ text: string; fallbackTitle: string }, Timed<PlannedPage>>(
  __filename,
  'readMarkdownFileTask',
  'reading a markdown file',
);
export const OUTLINE_HTML = untrustedTask<{ html: string; url: string }, Timed<HtmlPageOutline>>(
  __filename,
  'outlineHtmlTask',
  'reading an HTML page',
);
export const HTML_BODIES = untrustedTask<{ pages: Array<{ html: string; url: string }>; targets: ImportedTargets }, Timed<string[]>>(
  __filename,
  'htmlBodiesTask',
  'converting HTML pages to markdown',
);
