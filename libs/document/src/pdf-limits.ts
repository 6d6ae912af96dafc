/** Bounds of the PDF renderer: what it draws at most, and what it refuses to start on. */
import type { DocumentNode } from './document.model';
import { childrenOf, isDocument } from './pdf-nodes';

/** Bounds on what one PDF renders; beyond them the rest is left out silently. */
export const PDF_LIMITS = {
  /** Nesting of blocks (a valid body never goes deeper: DOCUMENT_LIMITS.depth counts every node). */
  depth: 32,
  /** Blocks rendered per page body (list items, code lines, rows and cells count). */
  blocksPerPage: 50_000,
  /** PDF pages one page body may fill. */
  pdfPagesPerPage: 1_000,
  /** PDF pages in all. */
  pdfPages: 20_000,
  /** Images embedded per page body, and the bytes fetched for them. */
  imagesPerPage: 500,
  imageBytesPerPage: 64 * 1024 * 1024,
  /** One image: its bytes and its pixels. */
  imageBytes: 20 * 1024 * 1024,
  imagePixels: 16 * 1024 * 1024,
} as const;

/**
 * What one PDF may be made of, checked before it is generated: past these it is refused (422)
 * rather than generated, since its generation could not finish within its time budget.
 */
export const PDF_INPUT_LIMITS = {
  /** Content pages: each starts a PDF page, and no more than PDF_LIMITS.pdfPages are drawn. */
  pages: PDF_LIMITS.pdfPages,
  /** Bytes of the pages' bodies as stored (JSON), all together: parsed, a few times that in a thread's heap. */
  documentBytes: 32 * 1024 * 1024,
  /** Nodes (blocks, inlines and texts) of the pages' bodies, all together. */
  nodes: 1_000_000,
  /** Bytes of the images handed to the renderer, all together: images past it show as their name. */
  imageBytes: 64 * 1024 * 1024,
} as const;

export interface PdfSize {
  pages?: number;
  documentBytes?: number;
  nodes?: number;
}

/** Why a PDF of this size is refused before it is generated; null when it is within PDF_INPUT_LIMITS. */
export function pdfTooLarge(size: PdfSize): string | null {
  const ask = 'ask for the PDF of a page and its subpages (page=<id>)';
  if (size.pages !== undefined && size.pages > PDF_INPUT_LIMITS.pages)
    return `the PDF would have ${size.pages} pages, over the limit of ${PDF_INPUT_LIMITS.pages}: ${ask}`;
  if (size.documentBytes !== undefined && size.documentBytes > PDF_INPUT_LIMITS.documentBytes) {
    return `the pages of the PDF hold over ${PDF_INPUT_LIMITS.documentBytes} bytes of content, over the limit: ${ask}`;
  }
  if (size.nodes !== undefined && size.nodes > PDF_INPUT_LIMITS.nodes)
    return `the pages of the PDF hold over ${PDF_INPUT_LIMITS.nodes} nodes of content, over the limit: ${ask}`;
  return null;
}

/** The nodes of a body (blocks, inlines and texts), counted up to `limit` (then `limit + 1`). */
export function documentNodeCount(document: DocumentNode | null, limit: number = PDF_INPUT_LIMITS.nodes): number {
  if (!isDocument(document)) return 0;
  let count = 0;
  const stack: unknown[][] = [document.nodes];
  while (stack.length > 0) {
    const nodes = stack.pop()!;
    for (const node of childrenOf(nodes)) {
      if (++count > limit) return count;
      if (node.object !== 'text') stack.push(node.nodes as unknown[]);
    }
  }
  return count;
}
