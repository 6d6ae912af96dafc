import { constants as zlibConstants, crc32, deflateSync, inflateSync } from 'node:zlib';
import { hasSafeScheme } from './content-refs';
import type { Block, ContentRef, DocumentNode, Inline, Text } from './document.model';
import { emojiCharacter } from './document.nodes';
import { pdfkit } from './packages';

/**
 * A PDF of pages (docs/content.md, "Documents"): every page on a new PDF page, its title as a
 * heading and its body below it, with pdfkit's standard fonts only (no font files). Hostile bodies
 * cannot crash or hang it: text is reduced to what the standard fonts encode (WinAnsi), nesting,
 * blocks, pages and images are bounded, and images are decoded here before pdfkit sees them.
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

// ---------------------------------------------------------------------------------------------
// Layout

const MARGIN = 56;
const MIN_TEXT_WIDTH = 160;
const BODY_SIZE = 10.5;
const BODY_LINE_GAP = 2;
const SMALL_SIZE = 9;
const CODE_SIZE = 9;
const CODE_LINE_HEIGHT = 12;
const CODE_PADDING = 5;
const LIST_INDENT = 18;
const QUOTE_INDENT = 16;
const BLOCK_GAP = 6;
const HEADING_SIZES = { 'heading-1': 17, 'heading-2': 14.5, 'heading-3': 12.5 } as const;
const DOCUMENT_TITLE_SIZE = 24;
const PAGE_TITLE_SIZE = 20;
/** Characters of text given to pdfkit at once: its line breaking is quadratic in the length of a word. */
const MAX_PIECE = 400;
/** Characters of a table cell (cells are measured as one piece). */
const MAX_CELL_TEXT = 2_000;
const MAX_TABLE_COLUMNS = 8;
/** Inline nesting followed (inlines hold texts only; deeper ones are hostile). */
const MAX_INLINE_DEPTH = 8;
const IMAGE_CONCURRENCY = 4;
/** CSS pixels to points: an image is never drawn larger than its natural size. */
const PIXEL = 0.75;

const COLORS = {
  text: '#1f2328',
  muted: '#59636e',
  link: '#0b57d0',
  rule: '#c8ccd0',
  codeBackground: '#f2f3f5',
  tableHeader: '#eceef1',
};

type FontName =
  | 'Helvetica'
  | 'Helvetica-Bold'
  | 'Helvetica-Oblique'
  | 'Helvetica-BoldOblique'
  | 'Courier'
  | 'Courier-Bold'
  | 'Courier-Oblique'
  | 'Courier-BoldOblique';

interface Style {
  bold: boolean;
  italic: boolean;
  mono: boolean;
  underline: boolean;
  strike: boolean;
  link: string | null;
  color: string;
}

const PLAIN: Style = { bold: false, italic: false, mono: false, underline: false, strike: false, link: null, color: COLORS.text };

function fontOf(style: Pick<Style, 'bold' | 'italic' | 'mono'>): FontName {
  const family = style.mono ? 'Courier' : 'Helvetica';
  if (style.bold && style.italic) return `${family}-BoldOblique`;
  if (style.bold) return `${family}-Bold`;
  if (style.italic) return `${family}-Oblique`;
  return family;
}

interface Run {
  text: string;
  style: Style;
}

/** Where blocks go: a column `width` wide at `left`, `depth` blocks and `lists` lists deep. */
interface Frame {
  left: number;
  width: number;
  depth: number;
  lists: number;
}

interface PreparedImage {
  /** PNG (re-encoded here) or JPEG bytes for pdfkit. */
  bytes: Buffer;
  /** Size as displayed, in pixels (a JPEG's EXIF orientation applied). */
  width: number;
  height: number;
}

type Node = Block | Inline | Text;

class PdfRenderer {
  private pdfPages = 0;
  private pagePdfPagesStart = 0;
  private blocks = 0;
  private images = new Map<Block, PreparedImage | null>();
  private readonly outline: PDFKit.PDFOutline[] = [];

  constructor(
    private readonly doc: PDFKit.PDFDocument,
    private readonly input: PdfInput,
  ) {
    doc.on('pageAdded', () => this.pdfPages++);
  }

  async render(): Promise<void> {
    const pages = Array.isArray(this.input.pages) ? this.input.pages : [];
    if (pages.length === 0) {
      this.doc.addPage();
      this.documentTitle();
      return;
    }
    for (const [index, page] of pages.entries()) {
      if (this.pdfPages >= PDF_LIMITS.pdfPages) return;
      const document = isDocument(page?.document) ? page.document : null;
      this.images = document ? await this.prepareImages(document) : new Map();
      this.doc.addPage();
      this.pagePdfPagesStart = this.pdfPages;
      this.blocks = 0;
      if (index === 0) this.documentTitle();
      this.pageTitle(page);
      if (document) this.flow(document.nodes, this.rootFrame());
      this.images = new Map();
    }
  }

  // ---- Page furniture ----

  private rootFrame(): Frame {
    return { left: MARGIN, width: this.doc.page.width - 2 * MARGIN, depth: 0, lists: 0 };
  }

  private documentTitle(): void {
    const title = pdfText(typeof this.input.title === 'string' ? this.input.title : '', false).trim();
    if (title === '') return;
    const frame = this.rootFrame();
    this.paragraph([{ text: title, style: { ...PLAIN, bold: true } }], frame, DOCUMENT_TITLE_SIZE, 2);
    this.doc.y += 4;
    this.rule(frame);
    this.doc.y += 8;
  }

  private pageTitle(page: PdfPage | null | undefined): void {
    const raw = typeof page?.title === 'string' ? page.title : '';
    this.addOutlineItem(raw, page?.depth);
    const title = pdfText(raw, false).trim();
    if (title === '') return;
    this.paragraph([{ text: title, style: { ...PLAIN, bold: true } }], this.rootFrame(), PAGE_TITLE_SIZE, 2);
    this.doc.y += 10;
  }

  /** A bookmark for the page, nested as the page tree is. */
  private addOutlineItem(title: string, depth: unknown): void {
    const level = Math.min(
      typeof depth === 'number' && Number.isInteger(depth) && depth > 0 ? depth : 0,
      this.outline.length,
      PDF_LIMITS.depth,
    );
    const parent = level === 0 ? this.doc.outline : this.outline[level - 1];
    const label = metadataText(title) || 'Untitled';
    this.outline.length = level;
    this.outline.push(parent.addItem(label));
  }

  // ---- Bounds ----

  /** Counts a block; false when it is too deep or the page body or the PDF is full. */
  private admit(frame: Frame): boolean {
    if (frame.depth >= PDF_LIMITS.depth || this.full()) return false;
    this.blocks++;
    return true;
  }

  /** No further block fits within the limits. */
  private full(): boolean {
    return this.blocks >= PDF_LIMITS.blocksPerPage || this.pagesFull();
  }

  /** The page body or the PDF has all the PDF pages it may have: text stops even mid-paragraph. */
  private pagesFull(): boolean {
    return this.pdfPages - this.pagePdfPagesStart >= PDF_LIMITS.pdfPagesPerPage || this.pdfPages >= PDF_LIMITS.pdfPages;
  }

  /** Starts a new PDF page unless `height` more points fit on this one (or this one is still empty). */
  private ensureRoom(height: number): void {
    const { doc } = this;
    if (doc.y + height > doc.page.maxY() && doc.y > doc.page.margins.top + 1) doc.addPage();
  }

  private contentHeight(): number {
    return this.doc.page.maxY() - this.doc.page.margins.top;
  }

  // ---- Blocks ----

  /** Blocks in order; texts and inlines among them (only in unvalidated bodies) as paragraphs. */
  private flow(nodes: unknown, frame: Frame): void {
    let loose: Node[] = [];
    const flush = () => {
      if (loose.length > 0 && this.admit(frame)) this.paragraphBlock(loose, frame);
      loose = [];
    };
    for (const node of childrenOf(nodes)) {
      if (this.full()) return;
      if (node.object === 'block') {
        flush();
        this.block(node, frame);
      } else {
        loose.push(node);
      }
    }
    flush();
  }

  private block(block: Block, frame: Frame): void {
    if (!this.admit(frame)) return;
    const inner: Frame = { ...frame, depth: frame.depth + 1 };
    const data = dataOf(block);
    switch (block.type) {
      case 'paragraph':
      case 'code-line':
      case 'table-cell':
        return this.paragraphBlock(childrenOf(block.nodes), frame);
      case 'heading-1':
      case 'heading-2':
      case 'heading-3':
        return this.heading(block, frame);
      case 'list-unordered':
      case 'list-ordered':
      case 'list-tasks':
        return this.list(block, inner);
      case 'code':
        return this.code(block, frame);
      case 'hint':
      case 'blockquote':
        return this.flow(block.nodes, indented(inner, QUOTE_INDENT));
      case 'divider':
        this.ensureRoom(12);
        this.doc.y += 3;
        this.rule(frame);
        this.doc.y += BLOCK_GAP + 3;
        return;
      case 'table':
        return this.table(block, frame);
      case 'images':
        return this.flow(block.nodes, inner);
      case 'image':
        return this.image(block, frame);
      case 'file': {
        const caption = childrenOf(block.nodes);
        const name = plainText(caption).trim() || refName(data.ref) || 'file';
        return this.paragraph([{ text: `[file: ${name}]`, style: { ...PLAIN, italic: true, color: COLORS.muted } }], frame);
      }
      case 'embed': {
        const url = typeof data.url === 'string' ? data.url : '';
        if (url !== '') this.paragraph([{ text: url, style: linkStyle(PLAIN, { kind: 'url', url }) }], frame);
        return this.caption(childrenOf(block.nodes), frame);
      }
      case 'content-ref': {
        const ref = refOf(data.ref);
        if (ref?.kind === 'url') this.paragraph([{ text: ref.url, style: linkStyle(PLAIN, ref) }], frame);
        return;
      }
      case 'math':
        return this.monospace(typeof data.formula === 'string' ? data.formula : '', frame, false);
      case 'openapi-operation':
      case 'swagger': {
        const method = typeof data.method === 'string' ? data.method.toUpperCase() : '';
        const operation = [method, typeof data.path === 'string' ? data.path : ''].filter((part) => part !== '').join(' ');
        if (operation !== '') this.monospace(operation, frame, false);
        return this.flow(block.nodes, inner);
      }
      case 'expandable':
      case 'tabs-item':
        if (typeof data.title === 'string' && data.title.trim() !== '')
          this.paragraph([{ text: data.title, style: { ...PLAIN, bold: true } }], frame);
        return this.flow(block.nodes, inner);
      default:
        // tabs, stepper(-step), columns/column, a list item out of its list, unknown types: the
        // children in order, or the inline content as a paragraph.
        if (childrenOf(block.nodes).some((child) => child.object === 'block')) return this.flow(block.nodes, inner);
        return this.paragraphBlock(childrenOf(block.nodes), frame);
    }
  }

  private paragraphBlock(nodes: readonly Node[], frame: Frame): void {
    const runs = inlineRuns(nodes, PLAIN);
    if (runs.length === 0) {
      // An empty paragraph is a blank line.
      this.doc.y += BODY_SIZE;
      return;
    }
    this.paragraph(runs, frame);
  }

  private heading(block: Block, frame: Frame): void {
    const size = HEADING_SIZES[block.type as keyof typeof HEADING_SIZES];
    const runs = inlineRuns(childrenOf(block.nodes), { ...PLAIN, bold: true });
    if (runs.length === 0) return;
    if (this.doc.y > this.doc.page.margins.top + 1) this.doc.y += size * 0.5;
    // Keep the heading with a few lines of what follows it.
    this.ensureRoom(size * 1.3 + 3 * BODY_SIZE * 1.3);
    this.paragraph(runs, frame, size, 4);
  }

  /** Runs as one wrapped paragraph, in pieces pdfkit lays out quickly; then a gap. */
  private paragraph(runs: readonly Run[], frame: Frame, size = BODY_SIZE, gap = BLOCK_GAP): void {
    const { doc } = this;
    const pieces: Run[] = [];
    for (const run of runs) for (const text of splitText(pdfText(run.text, true), MAX_PIECE)) pieces.push({ text, style: run.style });
    if (pieces.length === 0) return;
    for (const [index, piece] of pieces.entries()) {
      // Stopping early still ends the paragraph: pdfkit carries a continued text into the next one.
      const last = index === pieces.length - 1 || this.pagesFull();
      doc.font(fontOf(piece.style)).fontSize(size).fillColor(piece.style.color);
      const options: PDFKit.Mixins.TextOptions = {
        width: frame.width,
        lineGap: BODY_LINE_GAP,
        continued: !last,
        link: piece.style.link,
        underline: piece.style.underline,
        strike: piece.style.strike,
      };
      if (index === 0) doc.text(piece.text, frame.left, doc.y, options);
      else doc.text(piece.text, options);
      if (last) break;
    }
    doc.fillColor(COLORS.text);
    doc.x = frame.left;
    doc.y += gap;
  }

  private caption(nodes: readonly Node[], frame: Frame): void {
    const runs = inlineRuns(nodes, { ...PLAIN, italic: true, color: COLORS.muted });
    if (runs.length > 0) this.paragraph(runs, frame, SMALL_SIZE);
  }

  private rule(frame: Frame): void {
    const y = this.doc.y;
    this.doc
      .save()
      .moveTo(frame.left, y)
      .lineTo(frame.left + frame.width, y)
      .lineWidth(0.75)
      .strokeColor(COLORS.rule)
      .stroke()
      .restore();
  }

  // ---- Lists ----

  private list(list: Block, frame: Frame): void {
    const { doc } = this;
    const data = dataOf(list);
    const start = typeof data.start === 'number' && Number.isSafeInteger(data.start) && data.start >= 0 ? data.start : 1;
    const items = childrenOf(list.nodes);
    // The list is one level, its items the next (`frame` is already inside the list), their content the next.
    const itemFrame: Frame = { ...frame, lists: frame.lists + 1 };
    // Items whose content would be too deep to render are left out with it, markers included.
    if (itemFrame.depth + 1 >= PDF_LIMITS.depth) return;
    let number = start;
    for (const item of items) {
      if (this.full()) return;
      if (item.object !== 'block') continue;
      if (!this.admit(itemFrame)) return;
      doc.font('Helvetica').fontSize(BODY_SIZE);
      const label = list.type === 'list-ordered' ? `${number++}.` : '';
      const markerWidth = Math.max(LIST_INDENT, Math.min(60, doc.widthOfString(label) + 6));
      const body = indented({ ...itemFrame, depth: itemFrame.depth + 1 }, markerWidth);
      const markerX = Math.max(body.left - markerWidth, MARGIN / 2);
      this.ensureRoom(BODY_SIZE * 1.5);
      const y = doc.y;
      const page = this.pdfPages;
      this.marker(list.type, label, dataOf(item).checked === true, markerX, y, frame.lists);
      doc.x = body.left;
      doc.y = y;
      const content = childrenOf(item.nodes);
      if (content.length === 0) doc.y += BODY_SIZE * 1.3;
      else if (content.some((child) => child.object === 'block')) this.flow(content, body);
      else this.paragraphBlock(content, body);
      // Items are closer together than paragraphs.
      doc.y = page === this.pdfPages ? Math.max(doc.y - BLOCK_GAP + 2, y + BODY_SIZE) : doc.y - BLOCK_GAP + 2;
    }
    doc.y += BLOCK_GAP - 2;
  }

  private marker(type: Block['type'], label: string, checked: boolean, x: number, y: number, level: number): void {
    const { doc } = this;
    const middle = y + BODY_SIZE * 0.6;
    doc.save();
    if (type === 'list-ordered') {
      doc.font('Helvetica').fontSize(BODY_SIZE).fillColor(COLORS.text).text(label, x, y, { lineBreak: false });
    } else if (type === 'list-tasks') {
      const size = 8;
      doc
        .lineWidth(0.8)
        .strokeColor(COLORS.text)
        .rect(x + 1, middle - size / 2, size, size)
        .stroke();
      if (checked) {
        doc
          .lineWidth(1.2)
          .moveTo(x + 2.5, middle)
          .lineTo(x + 4.5, middle + 2.5)
          .lineTo(x + 8, middle - 2.5)
          .stroke();
      }
    } else if (level % 3 === 1) {
      doc
        .lineWidth(0.8)
        .strokeColor(COLORS.text)
        .circle(x + 4, middle, 2)
        .stroke();
    } else if (level % 3 === 2) {
      doc
        .fillColor(COLORS.text)
        .rect(x + 2.2, middle - 1.8, 3.6, 3.6)
        .fill();
    } else {
      doc
        .fillColor(COLORS.text)
        .circle(x + 4, middle, 2)
        .fill();
    }
    doc.restore();
  }

  // ---- Code and math ----

  private code(block: Block, frame: Frame): void {
    const data = dataOf(block);
    if (typeof data.title === 'string' && data.title.trim() !== '') {
      this.paragraph([{ text: data.title, style: { ...PLAIN, bold: true, color: COLORS.muted } }], frame, SMALL_SIZE, 2);
    }
    const lines: string[] = [];
    const inner: Frame = { ...frame, depth: frame.depth + 1 };
    for (const line of childrenOf(block.nodes)) {
      if (!this.admit(inner)) break;
      lines.push(line.object === 'block' ? plainText(childrenOf(line.nodes)) : plainText([line]));
    }
    this.monospace(lines.join('\n'), frame, true);
  }

  /**
   * Text in Courier, wrapped here (Courier is monospaced: 0.6 em a character), so every visual
   * line is placed and paged by hand, on a grey background when `shaded`.
   */
  private monospace(source: string, frame: Frame, shaded: boolean): void {
    const { doc } = this;
    const padding = shaded ? CODE_PADDING : 0;
    const columns = Math.max(8, Math.floor((frame.width - 2 * padding) / (CODE_SIZE * 0.6)));
    const lines = pdfText(expandTabs(source), true).split('\n');
    doc.font('Courier').fontSize(CODE_SIZE);
    const band = (height: number) => {
      if (shaded) doc.save().rect(frame.left, doc.y, frame.width, height).fill(COLORS.codeBackground).restore();
      doc.y += height;
    };
    this.ensureRoom(padding + CODE_LINE_HEIGHT);
    band(padding);
    for (const line of lines) {
      for (let start = 0; start === 0 || start < line.length; start += columns) {
        if (this.pagesFull()) break;
        if (doc.y + CODE_LINE_HEIGHT > doc.page.maxY()) {
          doc.addPage();
          band(padding);
        }
        const y = doc.y;
        band(CODE_LINE_HEIGHT);
        const text = line.slice(start, start + columns);
        if (text !== '') doc.fillColor(COLORS.text).text(text, frame.left + padding, y + 1.5, { lineBreak: false });
        doc.y = y + CODE_LINE_HEIGHT;
      }
    }
    band(padding);
    doc.x = frame.left;
    doc.y += BLOCK_GAP;
  }

  // ---- Tables ----

  private table(table: Block, frame: Frame): void {
    const rowFrame: Frame = { ...frame, depth: frame.depth + 1 };
    const cellFrame: Frame = { ...frame, depth: frame.depth + 2 };
    let header = true;
    for (const row of childrenOf(table.nodes)) {
      if (row.object !== 'block' || !this.admit(rowFrame)) continue;
      const cells: string[] = [];
      for (const cell of childrenOf(row.nodes)) {
        if (cell.object === 'block' && this.admit(cellFrame))
          cells.push(truncate(pdfText(plainText(childrenOf(cell.nodes)), true), MAX_CELL_TEXT));
      }
      if (this.pagesFull()) return;
      this.tableRow(cells, frame, header);
      header = false;
    }
    this.doc.y += BLOCK_GAP;
  }

  /** A row of cells side by side; a row too wide or too tall for a page is its cells one under another. */
  private tableRow(cells: readonly string[], frame: Frame, header: boolean): void {
    const { doc } = this;
    if (cells.length === 0) return;
    const padding = 4;
    const font = header ? 'Helvetica-Bold' : 'Helvetica';
    const columnWidth = frame.width / cells.length;
    doc.font(font).fontSize(SMALL_SIZE);
    const heights =
      cells.length <= MAX_TABLE_COLUMNS
        ? cells.map((cell) => (cell === '' ? 0 : doc.heightOfString(cell, { width: columnWidth - 2 * padding, lineGap: 1 })))
        : [];
    const height = Math.max(SMALL_SIZE * 1.2, ...heights) + 2 * padding;
    if (cells.length > MAX_TABLE_COLUMNS || height > this.contentHeight()) {
      this.paragraph([{ text: cells.join('  |  '), style: { ...PLAIN, bold: header } }], frame, SMALL_SIZE, 2);
      this.rule(frame);
      doc.y += 3;
      return;
    }
    this.ensureRoom(height);
    const y = doc.y;
    doc.save();
    if (header) doc.rect(frame.left, y, frame.width, height).fill(COLORS.tableHeader);
    doc.lineWidth(0.5).strokeColor(COLORS.rule);
    for (let index = 0; index < cells.length; index++) doc.rect(frame.left + index * columnWidth, y, columnWidth, height).stroke();
    doc.restore();
    doc.font(font).fontSize(SMALL_SIZE).fillColor(COLORS.text);
    for (const [index, cell] of cells.entries()) {
      if (cell !== '')
        doc.text(cell, frame.left + index * columnWidth + padding, y + padding, { width: columnWidth - 2 * padding, lineGap: 1 });
    }
    doc.x = frame.left;
    doc.y = y + height;
  }

  // ---- Images ----

  private image(block: Block, frame: Frame): void {
    const { doc } = this;
    const data = dataOf(block);
    const prepared = this.images.get(block);
    const caption = childrenOf(block.nodes);
    if (prepared) {
      const scale = Math.min(PIXEL, frame.width / prepared.width, this.contentHeight() / prepared.height);
      const width = Math.max(1, prepared.width * scale);
      const height = Math.max(1, prepared.height * scale);
      this.ensureRoom(height);
      const y = doc.y;
      try {
        doc.image(prepared.bytes, frame.left, y, { width, height });
        doc.x = frame.left;
        doc.y = y + height + 4;
        this.caption(caption, frame);
        doc.y += BLOCK_GAP - 4;
        return;
      } catch {
        doc.y = y;
      }
    }
    const name = (typeof data.alt === 'string' && data.alt.trim()) || plainText(caption).trim() || refName(data.ref) || 'image';
    this.paragraph([{ text: `[image: ${name}]`, style: { ...PLAIN, italic: true, color: COLORS.muted } }], frame);
  }

  /** Fetches and decodes the images of a page body, a few at a time, before it is laid out. */
  private async prepareImages(document: DocumentNode): Promise<Map<Block, PreparedImage | null>> {
    const wanted = new Map<string, { ref: ContentRef; blocks: Block[] }>();
    for (const block of imageBlocks(document)) {
      const ref = refOf(dataOf(block).ref);
      if (!ref || (ref.kind !== 'file' && ref.kind !== 'url')) continue;
      const key = JSON.stringify(ref);
      const entry = wanted.get(key);
      if (entry) entry.blocks.push(block);
      else if (wanted.size < PDF_LIMITS.imagesPerPage) wanted.set(key, { ref, blocks: [block] });
    }
    const prepared = new Map<Block, PreparedImage | null>();
    const queue = [...wanted.values()];
    let bytes = 0;
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        let image: PreparedImage | null = null;
        if (bytes < PDF_LIMITS.imageBytesPerPage) {
          image = await this.loadImage(next.ref);
          if (image) bytes += image.bytes.length;
        }
        for (const block of next.blocks) prepared.set(block, image);
      }
    };
    await Promise.all(Array.from({ length: Math.min(IMAGE_CONCURRENCY, queue.length) }, worker));
    return prepared;
  }

  private async loadImage(ref: ContentRef): Promise<PreparedImage | null> {
    try {
      const image = await this.input.image(ref);
      if (!image || !Buffer.isBuffer(image.bytes) || image.bytes.length > PDF_LIMITS.imageBytes) return null;
      return prepareImage(image.bytes);
    } catch {
      return null;
    }
  }
}

function indented(frame: Frame, by: number): Frame {
  // Past a point nesting stops indenting, so text never gets too narrow to lay out.
  if (frame.width - by < MIN_TEXT_WIDTH) return frame;
  return { ...frame, left: frame.left + by, width: frame.width - by };
}

/** Image blocks of a body (in `images` or alone), as far as the renderer goes. */
function imageBlocks(document: DocumentNode): Block[] {
  const found: Block[] = [];
  const stack: Array<{ node: Node; depth: number }> = childrenOf(document.nodes)
    .map((node) => ({ node, depth: 0 }))
    .reverse();
  let visited = 0;
  while (stack.length > 0 && visited++ < PDF_LIMITS.blocksPerPage * 2) {
    const { node, depth } = stack.pop()!;
    if (node.object !== 'block' || depth >= PDF_LIMITS.depth) continue;
    if (node.type === 'image') found.push(node);
    const children = childrenOf(node.nodes);
    for (let index = Math.min(children.length, PDF_LIMITS.blocksPerPage) - 1; index >= 0; index--)
      stack.push({ node: children[index], depth: depth + 1 });
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Inline content

function inlineRuns(nodes: readonly Node[], style: Style): Run[] {
  const runs: Run[] = [];
  collectRuns(nodes, style, runs, 0);
  return runs.filter((run) => run.text !== '');
}

function collectRuns(nodes: readonly Node[], style: Style, runs: Run[], depth: number): void {
  if (depth > MAX_INLINE_DEPTH) return;
  for (const node of nodes) {
    if (node.object === 'text') {
      for (const leaf of Array.isArray(node.leaves) ? node.leaves : []) {
        if (typeof leaf?.text !== 'string' || leaf.text === '') continue;
        runs.push({ text: leaf.text, style: withMarks(style, leaf.marks) });
      }
      continue;
    }
    if (node.object === 'block') {
      // A block inside inline content (unvalidated bodies): its text.
      runs.push({ text: plainText([node]), style });
      continue;
    }
    const data = dataOf(node);
    switch (node.type) {
      case 'link': {
        const ref = refOf(data.ref);
        collectRuns(childrenOf(node.nodes), ref ? linkStyle(style, ref) : style, runs, depth + 1);
        break;
      }
      case 'emoji':
        runs.push({ text: emojiCharacter(data), style });
        break;
      case 'inline-math':
        runs.push({ text: typeof data.formula === 'string' ? data.formula : '', style: { ...style, mono: true } });
        break;
      case 'inline-image': {
        const name = (typeof data.alt === 'string' && data.alt.trim()) || refName(data.ref) || 'image';
        runs.push({ text: `[image: ${name}]`, style: { ...style, italic: true, color: COLORS.muted } });
        break;
      }
      default:
        // mention, annotation, unknown inlines: their text.
        collectRuns(childrenOf(node.nodes), style, runs, depth + 1);
    }
  }
}

function withMarks(style: Style, marks: unknown): Style {
  if (!Array.isArray(marks) || marks.length === 0) return style;
  const next = { ...style };
  for (const value of marks as unknown[]) {
    switch ((value as { type?: unknown } | null)?.type) {
      case 'bold':
        next.bold = true;
        break;
      case 'italic':
        next.italic = true;
        break;
      case 'code':
      case 'keyboard':
        next.mono = true;
        break;
      case 'strikethrough':
        next.strike = true;
        break;
    }
  }
  return next;
}

/** Links to URLs are blue, underlined and clickable; other references keep their text's style. */
function linkStyle(style: Style, ref: ContentRef): Style {
  if (ref.kind !== 'url') return style;
  const url = ref.url.trim();
  const clickable = /^(https?|mailto|tel):[\x21-\x7e]+$/i.test(url) && hasSafeScheme(url);
  return { ...style, underline: true, color: COLORS.link, link: clickable ? url : null };
}

/** Plain text of nodes: leaves, link texts, emoji, formulas; block children line by line. Bounded in depth. */
function plainText(nodes: readonly Node[], depth = 0): string {
  if (depth > PDF_LIMITS.depth) return '';
  let text = '';
  for (const node of nodes) {
    if (node.object === 'text') {
      for (const leaf of Array.isArray(node.leaves) ? node.leaves : []) if (typeof leaf?.text === 'string') text += leaf.text;
    } else if (node.object === 'inline') {
      const data = dataOf(node);
      if (node.type === 'emoji') text += emojiCharacter(data);
      else if (node.type === 'inline-math') text += typeof data.formula === 'string' ? data.formula : '';
      else text += plainText(childrenOf(node.nodes), depth + 1);
    } else if (node.object === 'block') {
      const inner = plainText(childrenOf(node.nodes), depth + 1);
      text += text === '' || inner === '' ? inner : `\n${inner}`;
    }
  }
  return text;
}

function refName(value: unknown): string {
  const ref = refOf(value);
  if (!ref) return '';
  if (ref.kind === 'file') return ref.file;
  if (ref.kind === 'url')
    return (
      ref.url
        .replace(/[?#].*$/, '')
        .split('/')
        .filter(Boolean)
        .pop() ?? ref.url
    );
  return '';
}

// ---------------------------------------------------------------------------------------------
// Untrusted shapes

function isDocument(value: unknown): value is DocumentNode {
  return value !== null && typeof value === 'object' && Array.isArray((value as DocumentNode).nodes);
}

function childrenOf(nodes: unknown): Node[] {
  if (!Array.isArray(nodes)) return [];
  return nodes.filter(
    (node): node is Node =>
      node !== null &&
      typeof node === 'object' &&
      ((node as Node).object === 'block' || (node as Node).object === 'inline' || (node as Node).object === 'text'),
  );
}

function dataOf(node: Block | Inline): Record<string, unknown> {
  return node.data !== null && typeof node.data === 'object' ? node.data : {};
}

function refOf(value: unknown): ContentRef | null {
  if (value === null || typeof value !== 'object') return null;
  const ref = value as Record<string, unknown>;
  switch (ref.kind) {
    case 'file':
      return typeof ref.file === 'string' ? (ref as unknown as ContentRef) : null;
    case 'url':
      return typeof ref.url === 'string' ? (ref as unknown as ContentRef) : null;
    default:
      return typeof ref.kind === 'string' ? (ref as unknown as ContentRef) : null;
  }
}

// ---------------------------------------------------------------------------------------------
// Text the standard fonts can write

/** Code points WinAnsiEncoding holds beyond Latin-1 (its 0x80-0x9F row). */
const WIN_ANSI_EXTRA = new Set([
  0x152, 0x153, 0x160, 0x161, 0x178, 0x17d, 0x17e, 0x192, 0x2c6, 0x2dc, 0x2013, 0x2014, 0x2018, 0x2019, 0x201a, 0x201c, 0x201d, 0x201e,
  0x2020, 0x2021, 0x2022, 0x2026, 0x2030, 0x2039, 0x203a, 0x20ac, 0x2122,
]);

/** Look-alikes that WinAnsi lacks. */
const SUBSTITUTES = new Map<number, string>([
  [0x2010, '-'],
  [0x2011, '-'],
  [0x2012, '-'],
  [0x2212, '-'],
  [0x2032, "'"],
  [0x2033, '"'],
]);

/** Characters that show nothing: joiners, variation selectors, byte order marks, tags. */
function isInvisible(point: number): boolean {
  return (
    (point >= 0x200b && point <= 0x200f) ||
    point === 0x2060 ||
    point === 0xfeff ||
    (point >= 0xfe00 && point <= 0xfe0f) ||
    (point >= 0xe0000 && point <= 0xe007f) ||
    (point >= 0xe0100 && point <= 0xe01ef)
  );
}

/**
 * Text the standard PDF fonts can encode (WinAnsi): composed (NFC), invisible characters dropped,
 * odd spaces and dashes made plain, everything else outside WinAnsi (emoji, CJK, lone surrogates,
 * control characters) a '?'. Line breaks are '\n' when `newlines`, else spaces; tabs are spaces.
 */
function pdfText(text: string, newlines: boolean): string {
  if (/^[\x20-\x7e]*$/.test(text)) return text;
  let normalized: string;
  try {
    normalized = text.normalize('NFC');
  } catch {
    normalized = text;
  }
  const out: string[] = [];
  let previous = -1;
  for (const character of normalized) {
    const point = character.codePointAt(0)!;
    let replacement: string;
    if ((point >= 0x20 && point <= 0x7e) || (point >= 0xa0 && point <= 0xff) || WIN_ANSI_EXTRA.has(point)) replacement = character;
    else if (point === 0x0a || point === 0x0d || point === 0x2028 || point === 0x2029)
      replacement = point === 0x0a && previous === 0x0d ? '' : newlines ? '\n' : ' ';
    else if (point === 0x09 || (point >= 0x2000 && point <= 0x200a) || point === 0x202f || point === 0x205f || point === 0x3000)
      replacement = ' ';
    else if (isInvisible(point)) replacement = '';
    else replacement = SUBSTITUTES.get(point) ?? '?';
    previous = point;
    out.push(replacement);
  }
  return out.join('');
}

/** Text for PDF metadata and bookmarks (UTF-16 there): well formed, no control characters, bounded. */
function metadataText(text: unknown): string {
  if (typeof text !== 'string') return '';
  return truncate(
    text
      .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
      .trim(),
    500,
  );
}

function expandTabs(text: string): string {
  if (!text.includes('\t')) return text;
  return text
    .split('\n')
    .map((line) => {
      let column = 0;
      let out = '';
      for (const character of line) {
        if (character === '\t') {
          const spaces = 4 - (column % 4);
          out += ' '.repeat(spaces);
          column += spaces;
        } else {
          out += character;
          column++;
        }
      }
      return out;
    })
    .join('\n');
}

function truncate(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}\u2026`;
}

/** Text in pieces of at most `max` characters, cut after a space or line break when one is near. */
function splitText(text: string, max: number): string[] {
  if (text.length <= max) return text === '' ? [] : [text];
  const pieces: string[] = [];
  let start = 0;
  while (text.length - start > max) {
    let cut = start + max;
    for (let index = start + max - 1; index > start + max / 2; index--) {
      const code = text.charCodeAt(index);
      if (code === 0x20 || code === 0x0a) {
        cut = index + 1;
        break;
      }
    }
    // Keep a surrogate pair together (text for pdfkit has none, but stay safe for any caller).
    const code = text.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff && cut - 1 > start) cut--;
    pieces.push(text.slice(start, cut));
    start = cut;
  }
  pieces.push(text.slice(start));
  return pieces;
}

// ---------------------------------------------------------------------------------------------
// Images: PNG decoded here and re-encoded plainly; JPEG checked and passed through.

/** An image ready for pdfkit, or null when its bytes are neither a sound PNG nor a sound JPEG. */
function prepareImage(bytes: Buffer): PreparedImage | null {
  try {
    if (bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return decodePng(bytes);
    if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) return checkJpeg(bytes);
  } catch {
    return null;
  }
  return null;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PNG_CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const PNG_DEPTHS: Readonly<Record<number, readonly number[]>> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};
const ADAM7: ReadonlyArray<readonly [number, number, number, number]> = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
];

/**
 * Decodes a PNG (every colour type, bit depth and interlacing), lays transparency over white and
 * re-encodes it as 8-bit grey or RGB without interlacing: pdfkit embeds such a PNG as it is, while
 * it decodes others asynchronously and a corrupt one would throw outside any caller's reach.
 */
function decodePng(bytes: Buffer): PreparedImage | null {
  let header: { width: number; height: number; depth: number; colorType: number; interlaced: boolean } | null = null;
  let palette: Buffer | null = null;
  let transparency: Buffer | null = null;
  const idat: Buffer[] = [];
  let position = 8;
  while (position + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(position);
    const type = bytes.toString('latin1', position + 4, position + 8);
    const start = position + 8;
    const end = start + length;
    if (end + 4 > bytes.length) return null;
    const data = bytes.subarray(start, end);
    position = end + 4;
    if (!header && type !== 'IHDR') return null;
    if (type === 'IHDR') {
      if (length !== 13 || header) return null;
      const width = data.readUInt32BE(0);
      const height = data.readUInt32BE(4);
      const [depth, colorType, compression, filter, interlace] = [data[8], data[9], data[10], data[11], data[12]];
      if (width === 0 || height === 0 || width * height > PDF_LIMITS.imagePixels) return null;
      if (!PNG_DEPTHS[colorType]?.includes(depth) || compression !== 0 || filter !== 0 || interlace > 1) return null;
      header = { width, height, depth, colorType, interlaced: interlace === 1 };
    } else if (type === 'PLTE') {
      if (length % 3 !== 0 || length === 0 || length > 768) return null;
      palette = data;
    } else if (type === 'tRNS') {
      transparency = data;
    } else if (type === 'IDAT') {
      idat.push(data);
    } else if (type === 'IEND') {
      break;
    }
  }
  if (!header || idat.length === 0) return null;
  const { width, height, depth, colorType, interlaced } = header;
  if (colorType === 3 && !palette) return null;
  const channels = PNG_CHANNELS[colorType];
  const bitsPerPixel = channels * depth;
  const filterStep = Math.max(1, bitsPerPixel >> 3);
  const passes = (interlaced ? ADAM7 : [[0, 0, 1, 1] as const]).map(([x0, y0, dx, dy]) => {
    const columns = width > x0 ? Math.ceil((width - x0) / dx) : 0;
    const rows = height > y0 ? Math.ceil((height - y0) / dy) : 0;
    return { x0, y0, dx, dy, columns, rows, rowBytes: Math.ceil((columns * bitsPerPixel) / 8) };
  });
  const expected = passes.reduce((sum, pass) => sum + (pass.columns > 0 ? pass.rows * (pass.rowBytes + 1) : 0), 0);
  if (expected > 4 * PDF_LIMITS.imagePixels) return null;
  const raw = inflateSync(Buffer.concat(idat), { maxOutputLength: expected, finishFlush: zlibConstants.Z_SYNC_FLUSH });
  if (raw.length < expected) return null;

  const gray = colorType === 0 || colorType === 4;
  const outChannels = gray ? 1 : 3;
  const out = Buffer.alloc(width * height * outChannels);
  const maxSample = (1 << depth) - 1;
  const grayKey = colorType === 0 && transparency && transparency.length >= 2 ? transparency.readUInt16BE(0) : -1;
  const rgbKey =
    colorType === 2 && transparency && transparency.length >= 6
      ? [transparency.readUInt16BE(0), transparency.readUInt16BE(2), transparency.readUInt16BE(4)]
      : null;
  const sample = (row: Buffer, index: number): number => {
    if (depth === 8) return row[index];
    if (depth === 16) return (row[2 * index] << 8) | row[2 * index + 1];
    const bit = index * depth;
    return (row[bit >> 3] >> (8 - depth - (bit & 7))) & maxSample;
  };
  const to8 = (value: number) => (depth === 16 ? value >> 8 : depth === 8 ? value : Math.round((value * 255) / maxSample));
  const over = (color: number, alpha: number) => (alpha === 255 ? color : Math.round((color * alpha + 255 * (255 - alpha)) / 255));

  let offset = 0;
  for (const pass of passes) {
    if (pass.columns === 0 || pass.rows === 0) continue;
    let previous = Buffer.alloc(pass.rowBytes);
    for (let r = 0; r < pass.rows; r++) {
      const filter = raw[offset];
      const row = Buffer.from(raw.subarray(offset + 1, offset + 1 + pass.rowBytes));
      offset += pass.rowBytes + 1;
      unfilter(filter, row, previous, filterStep);
      previous = row;
      const y = pass.y0 + r * pass.dy;
      for (let c = 0; c < pass.columns; c++) {
        const target = (y * width + pass.x0 + c * pass.dx) * outChannels;
        const base = c * channels;
        if (colorType === 3) {
          const index = sample(row, c);
          const alpha = transparency && index < transparency.length ? transparency[index] : 255;
          for (let k = 0; k < 3; k++) out[target + k] = over(palette![index * 3 + k] ?? 0, alpha);
        } else if (gray) {
          const value = sample(row, base);
          const alpha = colorType === 4 ? to8(sample(row, base + 1)) : value === grayKey ? 0 : 255;
          out[target] = over(to8(value), alpha);
        } else {
          const rgb = [sample(row, base), sample(row, base + 1), sample(row, base + 2)];
          const alpha = colorType === 6 ? to8(sample(row, base + 3)) : rgbKey && rgb.every((value, k) => value === rgbKey[k]) ? 0 : 255;
          for (let k = 0; k < 3; k++) out[target + k] = over(to8(rgb[k]), alpha);
        }
      }
    }
  }
  return { bytes: encodePng(out, width, height, gray ? 0 : 2), width, height };
}

function unfilter(filter: number, row: Buffer, previous: Buffer, step: number): void {
  switch (filter) {
    case 0:
      return;
    case 1:
      for (let i = step; i < row.length; i++) row[i] = (row[i] + row[i - step]) & 0xff;
      return;
    case 2:
      for (let i = 0; i < row.length; i++) row[i] = (row[i] + previous[i]) & 0xff;
      return;
    case 3:
      for (let i = 0; i < row.length; i++) row[i] = (row[i] + (((i >= step ? row[i - step] : 0) + previous[i]) >> 1)) & 0xff;
      return;
    case 4:
      for (let i = 0; i < row.length; i++) {
        const a = i >= step ? row[i - step] : 0;
        const b = previous[i];
        const c = i >= step ? previous[i - step] : 0;
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        row[i] = (row[i] + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 0xff;
      }
      return;
    default:
      throw new Error(`PNG filter ${filter}`);
  }
}

function encodePng(pixels: Buffer, width: number, height: number, colorType: 0 | 2): Buffer {
  const channels = colorType === 0 ? 1 : 3;
  const stride = width * channels;
  const rows = Buffer.alloc(height * (stride + 1));
  for (let y = 0; y < height; y++) pixels.copy(rows, y * (stride + 1) + 1, y * stride, (y + 1) * stride);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = colorType;
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(rows)), pngChunk('IEND', Buffer.alloc(0))]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write(type, 4, 'latin1');
  data.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  return chunk;
}

/** The frame markers pdfkit reads a JPEG's size from (its own list, so both agree on the size). */
const JPEG_FRAMES = new Set([
  0xffc0, 0xffc1, 0xffc2, 0xffc3, 0xffc5, 0xffc6, 0xffc7, 0xffc8, 0xffc9, 0xffca, 0xffcb, 0xffcc, 0xffcd, 0xffce, 0xffcf,
]);

/** A JPEG whose frame header pdfkit will read as a sane 8-bit grey, RGB or CMYK image; the pixels are the viewer's to decode. */
function checkJpeg(bytes: Buffer): PreparedImage | null {
  const u16 = (at: number) => (at + 1 < bytes.length ? bytes.readUInt16BE(at) : 0);
  let position = 2;
  let marker = 0;
  while (position < bytes.length) {
    while (position < bytes.length && bytes[position] !== 0xff) position++;
    if (position >= bytes.length) break;
    marker = u16(position);
    position += 2;
    if (JPEG_FRAMES.has(marker)) break;
    position += u16(position);
  }
  if (!JPEG_FRAMES.has(marker) || position + 8 > bytes.length) return null;
  const bits = bytes[position + 2];
  const height = bytes.readUInt16BE(position + 3);
  const width = bytes.readUInt16BE(position + 5);
  const components = bytes[position + 7];
  if (bits !== 8 || width === 0 || height === 0 || ![1, 3, 4].includes(components) || width * height > PDF_LIMITS.imagePixels) return null;
  // pdfkit turns the image by its EXIF orientation: 5 to 8 swap width and height.
  return jpegOrientation(bytes) > 4 ? { bytes, width: height, height: width } : { bytes, width, height };
}

/** The EXIF orientation as pdfkit reads it (1 when absent). */
function jpegOrientation(data: Buffer): number {
  if (data.length < 20) return 1;
  const u16be = (at: number) => (at + 1 < data.length ? data.readUInt16BE(at) : 0);
  let position = 2;
  while (position < data.length - 4) {
    while (position < data.length && data[position] !== 0xff) position++;
    if (position >= data.length - 4) return 1;
    const marker = u16be(position);
    position += 2;
    if (marker === 0xffda) return 1;
    if ((marker >= 0xffd0 && marker <= 0xffd9) || marker === 0xff01) continue;
    if (position + 2 > data.length) return 1;
    const length = u16be(position);
    if (marker === 0xffe1 && position + 8 <= data.length && data.toString('latin1', position + 2, position + 8) === 'Exif\0\0') {
      const tiff = position + 8;
      if (tiff + 8 > data.length) return 1;
      const order = data.toString('latin1', tiff, tiff + 2);
      if (order !== 'II' && order !== 'MM') return 1;
      const little = order === 'II';
      const read16 = (at: number) => (at + 2 <= data.length ? (little ? data.readUInt16LE(at) : data.readUInt16BE(at)) : 0);
      const read32 = (at: number) => (at + 4 <= data.length ? (little ? data.readUInt32LE(at) : data.readUInt32BE(at)) : 0);
      if (read16(tiff + 2) !== 42) return 1;
      const ifd = tiff + read32(tiff + 4);
      if (ifd + 2 > data.length) return 1;
      const entries = read16(ifd);
      for (let index = 0; index < entries; index++) {
        const entry = ifd + 2 + index * 12;
        if (entry + 12 > data.length) return 1;
        if (read16(entry) === 0x0112) {
          const value = read16(entry + 8);
          return value >= 1 && value <= 8 ? value : 1;
        }
      }
      return 1;
    }
    position += length;
  }
  return 1;
}
