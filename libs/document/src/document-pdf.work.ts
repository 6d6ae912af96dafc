import { DomainError } from '#platform/errors';
import { untrustedTask } from '#platform/untrusted-work/untrusted-work';
import type { DocumentNode } from './document.model';
import { documentNodeCount, PDF_INPUT_LIMITS, pdfImageFiles, pdfTooLarge, renderPdf, type PdfImage } from './document-pdf';

/**
 * The PDF of pages as tasks of the untrusted-work pool (loaded inside a worker thread: plain modules
 * only). Rendering a large PDF computes for seconds; on a worker thread it holds only that thread.
 *
 * The pages' bodies cross the threads as their stored bytes (JSON), parsed here rather than on the
 * thread that answers requests, and the images as bytes: the renderer never reads a store.
 */

export interface PdfPageSource {
  title: string;
  depth: number;
  /** The body as stored (a document blob's JSON); null for a page without a body. */
  document: Uint8Array | null;
}

export interface PdfImageSource {
  /** The file id image blocks name. */
  file: string;
  bytes: Uint8Array;
  contentType: string;
}

export interface PdfRun {
  title: string;
  /** ISO 8601: the PDF's creation date (the revision's), so that the same revision gives the same bytes. */
  creationDate: string;
  pages: PdfPageSource[];
  images: PdfImageSource[];
}

/** The files the pages show as images (pdfImageFiles), once the bodies are known to be within the limits. */
export function pdfImageFilesTask(input: { documents: Array<Uint8Array | null> }): string[] {
  return pdfImageFiles(withinLimits(input.documents.map(parseBody)));
}

/** The PDF's bytes. */
export async function renderPdfTask(run: PdfRun): Promise<Uint8Array> {
  const documents = withinLimits(run.pages.map((page) => parseBody(page.document)));
  const images = new Map<string, PdfImage>(
    run.images.map((image) => [image.file, { bytes: asBuffer(image.bytes), contentType: image.contentType }]),
  );
  return renderPdf(
    {
      title: run.title,
      pages: run.pages.map((page, index) => ({ title: page.title, depth: page.depth, document: documents[index] })),
      image: async (ref) => (ref.kind === 'file' ? (images.get(ref.file) ?? null) : null),
    },
    { creationDate: new Date(run.creationDate) },
  );
}

export const PDF_IMAGE_FILES = untrustedTask<{ documents: Array<Uint8Array | null> }, string[]>(
  __filename,
  'pdfImageFilesTask',
  "reading the PDF's pages",
);
export const RENDER_PDF = untrustedTask<PdfRun, Uint8Array>(__filename, 'renderPdfTask', 'rendering the PDF');

/** A stored body, or null when it is not a document's JSON (the page is drawn with its title only). */
function parseBody(bytes: Uint8Array | null): DocumentNode | null {
  if (bytes === null) return null;
  try {
    const value: unknown = JSON.parse(asBuffer(bytes).toString('utf8'));
    return value !== null && typeof value === 'object' && (value as { object?: unknown }).object === 'document'
      ? (value as DocumentNode)
      : null;
  } catch {
    return null;
  }
}

/** The bodies, unless together they hold more nodes than a PDF may (422). */
function withinLimits(documents: Array<DocumentNode | null>): Array<DocumentNode | null> {
  let nodes = 0;
  for (const document of documents) {
    nodes += documentNodeCount(document, PDF_INPUT_LIMITS.nodes - nodes);
    const refusal = pdfTooLarge({ nodes });
    if (refusal !== null) throw new DomainError(422, refusal);
  }
  return documents;
}

/** A Buffer over the bytes (a Buffer arrives from another thread as a plain Uint8Array). */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
