/**
 * Text handling shared by indexing, querying and snippets: one normalization, so that a query term
 * and an indexed term compare equal exactly when a reader would expect them to.
 */

/** Longer terms are cut: nothing useful is that long, and it bounds the cost of fuzzy matching. */
export const MAX_TERM_LENGTH = 64;

const ASCII_ONLY = /^[\x00-\x7f]*$/;
const COMBINING_MARKS = /\p{M}+/gu;
const NON_WORD = /[^\p{L}\p{N}]+/u;
const WORD = /[\p{L}\p{N}]+/gu;
const ASCII_WORD = /[a-z0-9]+/g;

/**
 * Lower case with diacritics folded (`Café` → `cafe`), so that readers find accented words without
 * typing the accents. NFC after stripping the marks recomposes what was not an accent (Hangul).
 */
export function normalizeText(text: string): string {
  if (ASCII_ONLY.test(text)) return text.toLowerCase();
  return text.normalize('NFKD').replace(COMBINING_MARKS, '').normalize('NFC').toLowerCase();
}

/** Terms of a text: normalized runs of letters and digits, cut at MAX_TERM_LENGTH. */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  for (const word of normalizeText(text).split(NON_WORD)) {
    if (word.length === 0) continue;
    terms.push(word.length > MAX_TERM_LENGTH ? word.slice(0, MAX_TERM_LENGTH) : word);
  }
  return terms;
}

/**
 * `text` normalized, with the offset in `text` of every normalized character: snippets find terms
 * in the normalized text and cut the original. Null offsets mean "the same offsets" (ASCII text,
 * where lower-casing keeps every character in place), the common case, which costs no array.
 */
function normalizeWithOffsets(text: string): { normalized: string; offsets: number[] | null } {
  if (ASCII_ONLY.test(text)) return { normalized: text.toLowerCase(), offsets: null };
  let normalized = '';
  const offsets: number[] = [];
  for (let at = 0; at < text.length;) {
    const codePoint = text.codePointAt(at)!;
    const character = String.fromCodePoint(codePoint);
    const folded = codePoint < 0x80 ? character.toLowerCase() : normalizeText(character);
    normalized += folded;
    for (let i = 0; i < folded.length; i++) offsets.push(at);
    at += character.length;
  }
  return { normalized, offsets };
}

/** Where the first word of `text` accepted by `isMatch` starts, in `text`; null when none is. */
export function firstMatchOffset(text: string, isMatch: (term: string) => boolean): number | null {
  const { normalized, offsets } = normalizeWithOffsets(text);
  // The same words either way; the ASCII pattern is several times faster on the common case.
  for (const word of normalized.matchAll(offsets === null ? ASCII_WORD : WORD)) {
    const term = word[0].length > MAX_TERM_LENGTH ? word[0].slice(0, MAX_TERM_LENGTH) : word[0];
    if (isMatch(term)) return offsets === null ? word.index : offsets[word.index];
  }
  return null;
}

export const SNIPPET_LENGTH = 300;
/** Context kept before the match, so that the reader sees the match in its sentence. */
const SNIPPET_LEAD = 60;
const ELLIPSIS = '…';

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * At most SNIPPET_LENGTH characters of `text` around `matchAt` (the start of the text when null),
 * cut at spaces when there are some, whitespace collapsed, an ellipsis where text was left out.
 */
export function snippet(text: string, matchAt: number | null): string {
  const collapsed = (part: string) => part.replace(/\s+/g, ' ').trim();
  if (text.length <= SNIPPET_LENGTH) return collapsed(text);
  const anchor = matchAt ?? 0;
  let start = Math.max(0, anchor - SNIPPET_LEAD);
  if (start > 0) {
    const space = text.slice(start, anchor).search(/\s/);
    if (space >= 0) start += space + 1;
    if (isLowSurrogate(text.charCodeAt(start))) start++;
  }
  // Room for both ellipses, so the result never exceeds SNIPPET_LENGTH.
  let end = Math.min(text.length, start + SNIPPET_LENGTH - 2 * ELLIPSIS.length);
  if (end < text.length) {
    const lastSpace = text.slice(anchor, end).search(/\s\S*$/);
    if (lastSpace > 0) end = anchor + lastSpace;
    if (isHighSurrogate(text.charCodeAt(end - 1))) end--;
  }
  return `${start > 0 ? ELLIPSIS : ''}${collapsed(text.slice(start, end))}${end < text.length ? ELLIPSIS : ''}`;
}
