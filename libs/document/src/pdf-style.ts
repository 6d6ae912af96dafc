/** Sizes, colours and the standard fonts the PDF renderer draws with (no font files). */

export const MARGIN = 56;
export const MIN_TEXT_WIDTH = 160;
export const BODY_SIZE = 10.5;
export const BODY_LINE_GAP = 2;
export const SMALL_SIZE = 9;
export const CODE_SIZE = 9;
export const CODE_LINE_HEIGHT = 12;
export const CODE_PADDING = 5;
export const LIST_INDENT = 18;
export const QUOTE_INDENT = 16;
export const BLOCK_GAP = 6;
export const HEADING_SIZES = { 'heading-1': 17, 'heading-2': 14.5, 'heading-3': 12.5 } as const;
export const DOCUMENT_TITLE_SIZE = 24;
export const PAGE_TITLE_SIZE = 20;
/** Characters of text given to pdfkit at once: its line breaking is quadratic in the length of a word. */
export const MAX_PIECE = 400;
/** Characters of a table cell (cells are measured as one piece). */
export const MAX_CELL_TEXT = 2_000;
export const MAX_TABLE_COLUMNS = 8;
/** Inline nesting followed (inlines hold texts only; deeper ones are hostile). */
export const MAX_INLINE_DEPTH = 8;
export const IMAGE_CONCURRENCY = 4;
/** CSS pixels to points: an image is never drawn larger than its natural size. */
export const PIXEL = 0.75;

export const COLORS = {
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

export interface Style {
  bold: boolean;
  italic: boolean;
  mono: boolean;
  underline: boolean;
  strike: boolean;
  link: string | null;
  color: string;
}

export const PLAIN: Style = { bold: false, italic: false, mono: false, underline: false, strike: false, link: null, color: COLORS.text };

export function fontOf(style: Pick<Style, 'bold' | 'italic' | 'mono'>): FontName {
  const family = style.mono ? 'Courier' : 'Helvetica';
  if (style.bold && style.italic) return `${family}-BoldOblique`;
  if (style.bold) return `${family}-Bold`;
  if (style.italic) return `${family}-Oblique`;
  return family;
}

export interface Run {
  text: string;
  style: Style;
}
