import { pdfkit } from './packages';
import type { ContentRef, DocumentNode } from './document.model';
import { PDF_LIMITS } from './pdf-limits';
import { dataOf, imageBlocks, isDocument, refOf } from './pdf-nodes';
import { metadataText } from './pdf-text';
import { MARGIN } from './pdf-style';
import { PdfRenderer } from './pdf-renderer';

/**
 * A PDF of pages (docs/content.md, "Documents"): every page on a new PDF page, its title as a
 * heading and its body below it, with pdfkit's standard fonts only (no font files). Hostile bodies
 * cannot crash or hang it: text is reduced to what the standard fonts encode (WinAnsi), nesting,
 * blocks, pages and images are bounded, and images are decoded here before pdfkit sees them.
 * Here the entry; the bounds are in pdf-limits.ts, the block kinds in pdf-renderer.ts on top of
 * pdf-layout.ts, inline content in pdf-inlines.ts, text in pdf-text.ts, images in pdf-images.ts.
 */

export interface PdfPage {
  title: string;
  depth: number;
  document: DocumentNode | null;
}

export interface PdfImage {
  bytes: Buffer;
  contentType: string;
}

export interface PdfInput {
  /** Document title (PDF metadata + a title line on the first page). */
  title: string;
  /** In reading order. */
  pages: PdfPage[];
  /** Bytes of an image a block references (a file ref or URL ref); null when unavailable. Never fetch URLs here. */
  image: (ref: ContentRef) => Promise<PdfImage | null>;
}

export interface RenderPdfOptions {
  /** Deflate page contents (default true); specs turn it off to read the text back. */
  compress?: boolean;
  /** The PDF's CreationDate (default: now); the file ID derives from it, so a fixed date gives identical bytes. */
  creationDate?: Date;
}

export { documentNodeCount, PDF_INPUT_LIMITS, PDF_LIMITS, pdfTooLarge, type PdfSize } from './pdf-limits';

/**
 * The files the renderer would draw as images (file refs of image blocks), each once, in the order
 * the pages name them: the bytes a PDF needs, gathered before it is generated.
 */
export function pdfImageFiles(documents: ReadonlyArray<DocumentNode | null>): string[] {
  const files = new Set<string>();
  for (const document of documents) {
    if (!isDocument(document)) continue;
    const wanted = new Set<string>();
    for (const block of imageBlocks(document)) {
      const ref = refOf(dataOf(block).ref);
      if (ref?.kind !== 'file' || wanted.size >= PDF_LIMITS.imagesPerPage) continue;
      wanted.add(ref.file);
    }
    for (const file of wanted) files.add(file);
  }
  return [...files];
}

export async function renderPdf(input: PdfInput, options: RenderPdfOptions = {}): Promise<Buffer> {
  const PDFDocument = pdfkit();
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    autoFirstPage: false,
    compress: options.compress ?? true,
    info: {
      Title: metadataText(input.title),
      Creator: 'docs-platform',
      Producer: 'docs-platform',
      CreationDate: options.creationDate ?? new Date(),
    },
  });
  const chunks: Buffer[] = [];
  const output = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  // Should rendering fail, the stream is abandoned: its late errors must not be unhandled rejections.
  output.catch(() => undefined);
  await new PdfRenderer(doc, input).render();
  doc.end();
  return output;
}
