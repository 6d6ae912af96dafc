/** Layout of the PDF renderer: frames, bounds, paging, and the paragraphs, rules and monospaced text every block kind is made of. */
import { PDF_LIMITS } from './pdf-limits';
import type { Node } from './pdf-nodes';
import { inlineRuns } from './pdf-inlines';
import { expandTabs, pdfText, splitText } from './pdf-text';
import {
  BLOCK_GAP,
  BODY_LINE_GAP,
  BODY_SIZE,
  CODE_LINE_HEIGHT,
  CODE_PADDING,
  CODE_SIZE,
  COLORS,
  fontOf,
  MARGIN,
  MAX_PIECE,
  MIN_TEXT_WIDTH,
  PLAIN,
  SMALL_SIZE,
  type Run,
} from './pdf-style';

/** Where blocks go: a column `width` wide at `left`, `depth` blocks and `lists` lists deep. */
export interface Frame {
  left: number;
  width: number;
  depth: number;
  lists: number;
}

/** A PDF being drawn: where the text is, how much has been drawn, and the drawing primitives the block kinds share. */
export abstract class PdfLayout {
  protected pdfPages = 0;
  protected pagePdfPagesStart = 0;
  protected blocks = 0;

  constructor(protected readonly doc: PDFKit.PDFDocument) {
    doc.on('pageAdded', () => this.pdfPages++);
  }

  protected rootFrame(): Frame {
    return { left: MARGIN, width: this.doc.page.width - 2 * MARGIN, depth: 0, lists: 0 };
  }

  // ---- Bounds ----

  /** Counts a block; false when it is too deep or the page body or the PDF is full. */
  protected admit(frame: Frame): boolean {
    if (frame.depth >= PDF_LIMITS.depth || this.full()) return false;
    this.blocks++;
    return true;
  }

  /** No further block fits within the limits. */
  protected full(): boolean {
    return this.blocks >= PDF_LIMITS.blocksPerPage || this.pagesFull();
  }

  /** The page body or the PDF has all the PDF pages it may have: text stops even mid-paragraph. */
  protected pagesFull(): boolean {
    return this.pdfPages - this.pagePdfPagesStart >= PDF_LIMITS.pdfPagesPerPage || this.pdfPages >= PDF_LIMITS.pdfPages;
  }

  /** Starts a new PDF page unless `height` more points fit on this one (or this one is still empty). */
  protected ensureRoom(height: number): void {
    const { doc } = this;
    if (doc.y + height > doc.page.maxY() && doc.y > doc.page.margins.top + 1) doc.addPage();
  }

  protected contentHeight(): number {
    return this.doc.page.maxY() - this.doc.page.margins.top;
  }

  /** Runs as one wrapped paragraph, in pieces pdfkit lays out quickly; then a gap. */
  protected paragraph(runs: readonly Run[], frame: Frame, size = BODY_SIZE, gap = BLOCK_GAP): void {
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

  protected caption(nodes: readonly Node[], frame: Frame): void {
    const runs = inlineRuns(nodes, { ...PLAIN, italic: true, color: COLORS.muted });
    if (runs.length > 0) this.paragraph(runs, frame, SMALL_SIZE);
  }

  protected rule(frame: Frame): void {
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

  /**
   * Text in Courier, wrapped here (Courier is monospaced: 0.6 em a character), so every visual
   * line is placed and paged by hand, on a grey background when `shaded`.
   */
  protected monospace(source: string, frame: Frame, shaded: boolean): void {
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
}

export function indented(frame: Frame, by: number): Frame {
  // Past a point nesting stops indenting, so text never gets too narrow to lay out.
  if (frame.width - by < MIN_TEXT_WIDTH) return frame;
  return { ...frame, left: frame.left + by, width: frame.width - by };
}
