/**
 * Rewrites of hostile markdown before micromark reads it (docs/content.md, "Limits"). micromark is
 * quadratic in a few places a page can reach:
 * - many container markers on one line (`> > > > ...`, `- - - - ...`): each re-checks the ones
 *   before. Lines with more markers than any real page nests keep the first ones, the rest of the
 *   line becomes their content;
 * - deep indentation (lists nested hundreds of levels): every line re-checks every level.
 *   Indentation beyond a budget is cut to it, so deeper items stay at the deepest level;
 * - many lines in one paragraph (GFM's literal autolinks look back over the paragraph at every
 *   word), worse when the lines are lazy (continuing a quoted or listed paragraph without its `>`
 *   or indentation: each one re-reads the paragraph). Past a budget of lines a blank line (a `>`
 *   line in a quote) ends the paragraph and the next one starts;
 * - many list items holding blocks quotes or lists in one list: each new item re-reads the
 *   containers of the ones before. Past a budget an HTML comment (read as nothing) ends the list
 *   and the next item starts another;
 * - many emphasis or bracket delimiters in one paragraph: each closer looks back over all the
 *   openers. Delimiters beyond a paragraph's budget are escaped and so read as text.
 * Code fences, HTML blocks and tables are left alone; an indented code block longer than the
 * paragraph budget gets an empty line. No real page reaches these budgets.
 *
 * micromark is also quadratic in the length of a document whose containers close often (a long
 * nested list, a list in a quote): each close rewrites the list of the whole document's container
 * events so far. topLevelParts cuts a long text where one top-level block ends and the next
 * begins, so that each part is parsed on its own.
 */

/** Container markers (`>`, list bullets) one line may open; deeper ones are flattened. */
export const MAX_LINE_CONTAINERS = 12;
/** Emphasis, strikethrough and bracket delimiter runs one paragraph may hold before the rest is text. */
export const MAX_PARAGRAPH_DELIMITERS = 400;
/** Lines of one paragraph before a blank line ends it. */
export const MAX_PARAGRAPH_LINES = 200;
/** Columns of leading whitespace a line keeps (64 levels of a two-space list). */
export const MAX_INDENT = 128;
/** Lazy continuation lines in a row before a blank line ends the paragraph. */
export const MAX_LAZY_LINES = 64;
/** Nested quotes and lists in the items of one list before the list is ended. */
export const MAX_LIST_NESTING_LINES = 200;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const TABLE_DELIMITER_ROW = /^[ \t>]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
/** After its container prefix, a line that starts a new inline context: a list item, a heading. */
const BLOCK_START = /^(?:[-+*][ \t]|\d{1,9}[.)][ \t]|#{1,6}(?:[ \t]|$))/;
const LIST_MARKER = /^[ \t]*(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)/;
/** CommonMark's HTML block starts (a block runs to the next blank line and is not parsed inline). */
const HTML_BLOCK_START =
  /^ {0,3}<(?:!--|\?|![A-Za-z]|!\[CDATA\[|(?:script|pre|style|textarea)(?:\s|>|$)|\/?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?:\s|\/?>|$)|\/?[a-zA-Z][a-zA-Z0-9-]*(?:\s[^<>]*)?\/?>[ \t]*$)/i;
const QUOTE_PREFIX = /^(?:[ \t]{0,3}>[ \t]?)*/;
const TOP_LIST_ITEM = /^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)/;
/** A quote or list inside a list item: on the item's own line or indented under it. */
const NESTED_CONTAINER =
  /^(?: {0,3}(?:[-+*]|\d{1,9}[.)])[ \t]+(?:>|(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$))|[ \t]{2,}(?:>|(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)))/;
const CONTAINER_PREFIX = /^(?:[ \t]*(?:>|[-+*]|\d{1,9}[.)])[ \t])*/;

/** The state of the run of non-blank lines being read. */
interface Run {
  /** What the run's first line starts: HTML blocks and tables are not cut. */
  kind: 'paragraph' | 'html' | 'table';
  lines: number;
  delimiters: number;
  quoted: boolean;
  listed: boolean;
  lazyLines: number;
}

export function guardMarkdown(source: string): string {
  const lines = source.split(/\r\n|\r|\n/);
  const out: string[] = [];
  let changed = false;
  let fence: { marker: string; length: number } | null = null;
  let run: Run | null = null;
  const lists = new ListBudget();
  /** Ends the current paragraph before `line`: a blank line, or a bare `>` inside a quote. */
  const cut = (line: string) => {
    const quote = /^[ \t]*(?:>[ \t]?)+/.exec(line);
    out.push(quote ? quote[0].trimEnd() : '');
    changed = true;
    run = { kind: 'paragraph', lines: 0, delimiters: 0, quoted: false, listed: false, lazyLines: 0 };
  };
  for (const original of lines) {
    let line = original;
    const fenceMatch = FENCE.exec(line.replace(CONTAINER_PREFIX, ''));
    if (fence) {
      if (fenceMatch && fenceMatch[1][0] === fence.marker && fenceMatch[1].length >= fence.length) fence = null;
      out.push(line);
      continue;
    }
    if (fenceMatch) {
      fence = { marker: fenceMatch[1][0], length: fenceMatch[1].length };
      run = null;
      out.push(line);
      continue;
    }
    if (line.trim() === '') {
      run = null;
      lists.blank();
      out.push(line);
      continue;
    }
    const separator = lists.separatorBefore(line);
    if (separator) {
      out.push(...separator);
      changed = true;
      run = null;
    }
    const capped = capIndent(capContainers(line));
    if (capped !== line) {
      line = capped;
      changed = true;
    }
    const content = line.replace(/^[ \t>]*/, '');
    if (!run)
      run = {
        kind: HTML_BLOCK_START.test(line) ? 'html' : 'paragraph',
        lines: 0,
        delimiters: 0,
        quoted: false,
        listed: false,
        lazyLines: 0,
      };
    const current: Run = run;
    if (/^[ \t]*>/.test(line)) {
      current.quoted = true;
      current.lazyLines = 0;
    } else if (LIST_MARKER.test(line)) {
      current.listed = true;
      current.lazyLines = 0;
    } else if (current.quoted || (current.listed && !/^[ \t]/.test(line))) {
      current.lazyLines++;
    }
    if (BLOCK_START.test(content)) {
      current.lines = 0;
      current.delimiters = 0;
    } else if (
      current.kind !== 'table' &&
      line.length < 4096 &&
      line.includes('|') &&
      line.includes('-') &&
      TABLE_DELIMITER_ROW.test(line)
    ) {
      current.kind = 'table';
    }
    if (current.kind === 'paragraph' && (current.lines >= MAX_PARAGRAPH_LINES || current.lazyLines > MAX_LAZY_LINES)) cut(line);
    const target: Run = run;
    target.lines++;
    // Each table row is its own inline content.
    if (target.kind === 'table') target.delimiters = 0;
    const escaped = escapeDelimitersBeyond(line, MAX_PARAGRAPH_DELIMITERS - target.delimiters);
    target.delimiters += escaped.counted;
    if (escaped.line !== line) {
      line = escaped.line;
      changed = true;
    }
    out.push(line);
  }
  return changed ? out.join('\n') : source;
}

/** Counts the nested containers of the current list; answers the lines that end it when too many. */
class ListBudget {
  private prefix = '';
  private nested = 0;
  private afterBlank = true;

  blank(): void {
    this.afterBlank = true;
  }

  separatorBefore(line: string): string[] | null {
    const prefix = QUOTE_PREFIX.exec(line)![0];
    const rest = line.slice(prefix.length);
    const quote = prefix.replace(/[ \t]/g, '');
    const afterBlank = this.afterBlank;
    this.afterBlank = false;
    if (quote !== this.prefix) {
      this.prefix = quote;
      this.nested = 0;
    }
    const topItem = TOP_LIST_ITEM.test(rest);
    // Text at the margin after a blank line ends the list.
    if (!topItem && afterBlank && !/^[ \t]/.test(rest)) this.nested = 0;
    if (NESTED_CONTAINER.test(rest)) this.nested++;
    if (!topItem || this.nested <= MAX_LIST_NESTING_LINES) return null;
    this.nested = NESTED_CONTAINER.test(rest) ? 1 : 0;
    // At the margin, so it ends any quote around the list as well: the parts between such breaks
    // are parsed apart (topLevelParts), and the list's next item starts a new quote.
    return ['', '<!-- -->', ''];
  }
}

/** The line with at most `MAX_INDENT` columns of leading whitespace (tabs to the next multiple of 4). */
function capIndent(line: string): string {
  let column = 0;
  let index = 0;
  while (index < line.length && (line[index] === ' ' || line[index] === '\t')) {
    column = line[index] === '\t' ? column + 4 - (column % 4) : column + 1;
    index++;
  }
  return column > MAX_INDENT ? ' '.repeat(MAX_INDENT) + line.slice(index) : line;
}

/** The line with at most `MAX_LINE_CONTAINERS` leading container markers. */
function capContainers(line: string): string {
  if (THEMATIC_BREAK.test(line)) return line;
  let position = 0;
  let count = 0;
  let keep = -1;
  for (;;) {
    let next = position;
    while (line[next] === ' ' || line[next] === '\t') next++;
    const char = line[next];
    let end = -1;
    if (char === '>') end = next + 1;
    else if ((char === '-' || char === '+' || char === '*') && (line[next + 1] === ' ' || line[next + 1] === '\t')) end = next + 1;
    else {
      let digits = next;
      while (digits < line.length && digits - next < 9 && line[digits] >= '0' && line[digits] <= '9') digits++;
      if (digits > next && (line[digits] === '.' || line[digits] === ')') && (line[digits + 1] === ' ' || line[digits + 1] === '\t'))
        end = digits + 1;
    }
    if (end < 0) break;
    count++;
    if (count === MAX_LINE_CONTAINERS) keep = end;
    position = end;
  }
  if (count <= MAX_LINE_CONTAINERS) return line;
  return `${line.slice(0, keep)} ${line.slice(position).trimStart()}`;
}

const DELIMITERS = new Set(['*', '_', '~', '[', ']']);
const isWordCharacter = (char: string | undefined) => char !== undefined && /[\p{L}\p{N}]/u.test(char);

/** Counts the line's delimiter runs; those beyond the budget are escaped with backslashes. */
function escapeDelimitersBeyond(line: string, budget: number): { line: string; counted: number } {
  let counted = 0;
  let out = '';
  let index = 0;
  let changed = false;
  while (index < line.length) {
    const char = line[index];
    if (char === '\\') {
      out += line.slice(index, index + 2);
      index += 2;
      continue;
    }
    if (!DELIMITERS.has(char)) {
      out += char;
      index++;
      continue;
    }
    let end = index + 1;
    if (char !== '[' && char !== ']') while (line[end] === char) end++;
    const run = line.slice(index, end);
    // An underscore inside a word can neither open nor close emphasis: not a delimiter.
    const intraword = char === '_' && isWordCharacter(line[index - 1]) && isWordCharacter(line[end]);
    if (!intraword) {
      counted++;
      if (counted > budget) {
        out += run.replace(/./g, '\\$&');
        changed = true;
        index = end;
        continue;
      }
    }
    out += run;
    index = end;
  }
  return { line: changed ? out : line, counted };
}

/** Texts shorter than this are parsed whole: the split only pays for itself on long ones. */
export const PART_MIN_CHARS = 8 * 1024;

const ATX_HEADING = /^#{1,6}(?:[ \t]|$)/;
const MARGIN_LIST_ITEM = /^(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)/;
/** CommonMark's HTML blocks that run across blank lines (kinds 1-5), with what ends each. */
const RAW_HTML_BLOCKS: ReadonlyArray<{ start: RegExp; end: RegExp }> = [
  { start: /^ {0,3}<(?:script|pre|style|textarea)(?:\s|>|$)/i, end: /<\/(?:script|pre|style|textarea)>/i },
  { start: /^ {0,3}<!--/, end: /-->/ },
  { start: /^ {0,3}<\?/, end: /\?>/ },
  { start: /^ {0,3}<![A-Za-z]/, end: />/ },
  { start: /^ {0,3}<!\[CDATA\[/, end: /\]\]>/ },
];

/** A block that a blank line does not end, opened at the top level or inside a list item or a quote. */
interface OpenBlock {
  closes(line: string): boolean;
  /** Where it was opened: a list item or a quote ends it with themselves. */
  scope: 'top' | 'list' | 'quote';
}

/**
 * A long markdown text (after guardMarkdown) cut into parts that parse alone as they parse
 * together: each cut is before a line at the margin that follows a blank line, where every block
 * before has ended (no code fence or HTML block open, and the line does not continue a list), so
 * a part's blocks are the blocks the whole text has there. Parts are at least `minChars` long;
 * shorter texts are one part. Links to a reference definition of another part need that part's
 * definitions (the caller passes them to the parser).
 */
export function topLevelParts(markdown: string, minChars = PART_MIN_CHARS): string[] {
  if (markdown.length < 2 * minChars) return [markdown];
  const lines = markdown.split(/\r\n|\r|\n/);
  const parts: string[] = [];
  let partStart = 0;
  let partChars = 0;
  let open: OpenBlock | null = null;
  let inList = false;
  let previousBlank = true;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    const blank = line.trim() === '';
    const atMargin = !blank && line[0] !== ' ' && line[0] !== '\t';
    // A block opened in a list item ends at a line left of the item; one opened in a quote at a line without `>`.
    if (open && ((open.scope === 'list' && atMargin) || (open.scope === 'quote' && !/^ {0,3}>/.test(line)))) open = null;
    if (open) {
      if (open.closes(line)) open = null;
      partChars += line.length + 1;
      previousBlank = false;
      continue;
    }
    if (atMargin && previousBlank && !(inList && MARGIN_LIST_ITEM.test(line)) && partChars >= minChars) {
      parts.push(lines.slice(partStart, index).join('\n'));
      partStart = index;
      partChars = 0;
    }
    if (atMargin) {
      // Without a blank line before, only a line that starts a block ends the list (else it continues a paragraph in it).
      if (MARGIN_LIST_ITEM.test(line)) inList = true;
      else if (
        previousBlank ||
        ATX_HEADING.test(line) ||
        line[0] === '>' ||
        THEMATIC_BREAK.test(line) ||
        HTML_BLOCK_START.test(line) ||
        FENCE.test(line)
      )
        inList = false;
    }
    if (!blank) open = openedBlock(line, inList);
    partChars += line.length + 1;
    previousBlank = blank;
  }
  parts.push(lines.slice(partStart).join('\n'));
  // A last part too short to stand alone joins the one before.
  if (parts.length > 1 && parts[parts.length - 1].length < minChars / 2) {
    const last = parts.pop()!;
    parts[parts.length - 1] += `\n${last}`;
  }
  return parts;
}

/**
 * The code fence or raw HTML block the line opens (and does not close on itself), if any. One
 * opened in a list item (on an item's line, or indented while a list is open) is taken to end
 * with the item, at the next line at the margin; one in a quote with the quote.
 */
function openedBlock(line: string, inList: boolean): OpenBlock | null {
  const quoted = /^ {0,3}>/.test(line);
  const content = line.replace(CONTAINER_PREFIX, '');
  const nested = content.length !== line.length || line[0] === ' ' || line[0] === '\t';
  const scope: OpenBlock['scope'] = quoted ? 'quote' : nested && inList ? 'list' : 'top';
  // At the top level everything up to the closing line is the block's, container markers included.
  const inner = (next: string) => (scope === 'top' ? next : next.replace(CONTAINER_PREFIX, ''));
  const fenceLine = scope === 'top' ? line : content;
  const fence = FENCE.exec(fenceLine);
  // A backtick fence's info string has no backtick (CommonMark): "```js```" is a code span.
  if (fence && !(fence[1][0] === '`' && fenceLine.slice(fence[0].length).includes('`'))) {
    const marker = fence[1][0];
    const length = fence[1].length;
    return { scope, closes: (next) => closesFence(inner(next), marker, length) };
  }
  for (const block of RAW_HTML_BLOCKS) {
    const start = block.start.exec(scope === 'top' ? line : content);
    if (!start) continue;
    if (block.end.test((scope === 'top' ? line : content).slice(start[0].length))) return null;
    return { scope, closes: (next) => block.end.test(next) };
  }
  return null;
}

function closesFence(line: string, marker: string, length: number): boolean {
  const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
  return close !== null && close[1][0] === marker && close[1].length >= length;
}
