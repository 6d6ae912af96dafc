/** The PDF renderer: pages with their titles and bookmarks, and each kind of block. */
import type { Block, ContentRef, DocumentNode } from './document.model';
import type { PdfInput, PdfPage } from './document-pdf';
import { PDF_LIMITS } from './pdf-limits';
import { childrenOf, dataOf, imageBlocks, isDocument, refOf, type Node } from './pdf-nodes';
import { inlineRuns, linkStyle, plainText, refName } from './pdf-inlines';
import { metadataText, pdfText, truncate } from './pdf-text';
import { prepareImage, type PreparedImage } from './pdf-images';
import { indented, PdfLayout, type Frame } from './pdf-layout';
import {
  BLOCK_GAP,
  BODY_SIZE,
  COLORS,
  DOCUMENT_TITLE_SIZE,
  HEADING_SIZES,
  IMAGE_CONCURRENCY,
  LIST_INDENT,
  MARGIN,
  MAX_CELL_TEXT,
  MAX_TABLE_COLUMNS,
  PAGE_TITLE_SIZE,
  PIXEL,
  PLAIN,
  QUOTE_INDENT,
  SMALL_SIZE,
} from './pdf-style';

export class PdfRenderer extends PdfLayout {
  private images = new Map<Block, PreparedImage | null>();
  private readonly outline: PDFKit.PDFOutline[] = [];

  constructor(
    doc: PDFKit.PDFDocument,
    private readonly input: PdfInput,
  ) {
    super(doc);
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
