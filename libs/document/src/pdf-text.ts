/** Text the standard PDF fonts can write (WinAnsi), and text cut to the pieces the renderer lays out. */

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
export function pdfText(text: string, newlines: boolean): string {
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
export function metadataText(text: unknown): string {
  if (typeof text !== 'string') return '';
  return truncate(
    text
      .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
      .trim(),
    500,
  );
}

export function expandTabs(text: string): string {
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

export function truncate(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}\u2026`;
}

/** Text in pieces of at most `max` characters, cut after a space or line break when one is near. */
export function splitText(text: string, max: number): string[] {
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
