import { decodeEntities, parseAttributes } from './markdown-html';

/**
 * The platform's block syntax (docs/content.md, "Markdown") is line based and wraps ordinary
 * markdown: `{% hint %}` ... `{% endhint %}`, `<details>` ... `</details>`, `$$` ... `$$`. CommonMark
 * would read those lines as paragraphs and HTML and mix them with their neighbours, so the source
 * is split along them first, one line at a time (code fences respected); the markdown between is
 * then parsed by the real toolchain. Tags that do not close, or close out of order, stay as text.
 *
 * Platform lines start at the left margin: an indented one belongs to the list item or block
 * quote around it, whose text is split again once its own indentation is off (markdown-import.ts).
 */

export type Segment = MarkdownSegment | TagSegment | MathSegment | DetailsSegment;

export interface MarkdownSegment {
  kind: 'markdown';
  text: string;
}

export interface TagSegment {
  kind: 'tag';
  name: string;
  attributes: Record<string, string>;
  children: Segment[];
  /** The opening line as written: the text it becomes where a tag is out of place. */
  line: string;
  endLine?: string;
}

export interface MathSegment {
  kind: 'math';
  formula: string;
}

export interface DetailsSegment {
  kind: 'details';
  title: string;
  children: Segment[];
  line: string;
  endLine?: string;
}

/** Tags that must be closed by `{% end<name> %}`. */
const CONTAINER_TAGS = new Set(['hint', 'tabs', 'tab', 'stepper', 'step', 'columns', 'column', 'swagger', 'code']);
/** Tags that stand alone or wrap a caption (`{% file %}` caption `{% endfile %}`). */
const OPTIONAL_END_TAGS = new Set(['embed', 'file', 'content-ref', 'openapi-operation']);

export function isKnownTag(name: string): boolean {
  return CONTAINER_TAGS.has(name) || OPTIONAL_END_TAGS.has(name);
}

export interface TagLine {
  name: string;
  end: boolean;
  attributes: Record<string, string>;
}

/** Tag lines longer than this are text: no real tag is that long. */
const MAX_TAG_LINE = 8192;

/** A whole line that is one `{% name attributes %}` or `{% endname %}` of a known tag, else null. */
export function readTagLine(line: string): TagLine | null {
  if (line.length > MAX_TAG_LINE) return null;
  const trimmed = line.trimEnd();
  if (!trimmed.startsWith('{%') || !trimmed.endsWith('%}') || trimmed.length < 4) return null;
  const body = trimmed.slice(2, -2);
  const name = /^\s*([a-zA-Z][\w-]*)/.exec(body);
  if (!name) return null;
  const word = name[1].toLowerCase();
  if (word.startsWith('end') && isKnownTag(word.slice(3))) {
    return body.slice(name[0].length).trim() === '' ? { name: word.slice(3), end: true, attributes: {} } : null;
  }
  if (!isKnownTag(word)) return null;
  return { name: word, end: false, attributes: parseAttributes(body.slice(name[0].length)) };
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const MATH_FENCE = /^\$\$[ \t]*$/;
const DETAILS_OPEN = /^<details(?:\s[^<>]*)?>[ \t]*(?:<summary>(.*)<\/summary>[ \t]*)?$/i;
const SUMMARY = /^ {0,3}<summary>(.*)<\/summary>[ \t]*$/i;
const DETAILS_CLOSE = /^<\/details>[ \t]*$/i;

/** Whether a line opens a code fence; what closes it. */
function fenceOpening(line: string): { marker: string; length: number } | null {
  const match = FENCE_OPEN.exec(line);
  if (!match) return null;
  // A backtick fence's info string cannot hold a backtick (CommonMark).
  if (match[1][0] === '`' && match[2].includes('`')) return null;
  return { marker: match[1][0], length: match[1].length };
}

function closesFence(line: string, fence: { marker: string; length: number }): boolean {
  const match = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
  return match !== null && match[1][0] === fence.marker && match[1].length >= fence.length;
}

/**
 * Whether some line of the text, at any indentation or quote depth, is platform block syntax: a
 * known tag, a `$$` line or `<details>`. Then a list item's or quote's text is split again.
 */
export function hasPlatformLines(text: string): boolean {
  for (const line of text.split(/\r\n|\r|\n/)) {
    const content = line.replace(/^[ \t>]+/, '');
    if (MATH_FENCE.test(content) || DETAILS_OPEN.test(content) || DETAILS_CLOSE.test(content) || readTagLine(content) !== null) return true;
  }
  return false;
}

interface Frame {
  segment: TagSegment | DetailsSegment | null;
  /** The tag name or 'details' its end must name. */
  name: string;
  pending: string[];
  expectSummary: boolean;
}

/**
 * Splits markdown into its platform containers, at most `maxDepth` deep (deeper tags are text).
 * Linear in the number of lines: an optional end tag is looked for once, up to the next tag line.
 */
export function splitContainers(source: string, maxDepth: number): Segment[] {
  const lines = source.split(/\r\n|\r|\n/);
  const root: TagSegment = { kind: 'tag', name: '', attributes: {}, children: [], line: '' };
  const stack: Frame[] = [{ segment: root, name: '', pending: [], expectSummary: false }];
  const top = () => stack[stack.length - 1];
  const childrenOf = (frame: Frame) => frame.segment!.children;

  const flush = (frame: Frame) => {
    if (frame.pending.length === 0) return;
    appendMarkdown(childrenOf(frame), frame.pending.join('\n'));
    frame.pending = [];
  };
  /** A frame that never closed: its opening line becomes text again (a lone optional tag stays a block). */
  const unwind = () => {
    const frame = stack.pop()!;
    flush(frame);
    const parent = top();
    flush(parent);
    const segment = frame.segment!;
    const into = childrenOf(parent);
    if (segment.kind === 'tag' && OPTIONAL_END_TAGS.has(segment.name)) into.push({ ...segment, children: [] });
    else appendMarkdown(into, segment.line);
    for (const child of segment.children) {
      if (child.kind === 'markdown') appendMarkdown(into, child.text);
      else into.push(child);
    }
  };
  const close = (name: string, line: string): boolean => {
    let index = stack.length - 1;
    while (index > 0 && stack[index].name !== name) index--;
    if (index === 0) return false;
    while (stack.length - 1 > index) unwind();
    const frame = stack.pop()!;
    flush(frame);
    frame.segment!.endLine = line;
    const parent = top();
    flush(parent);
    childrenOf(parent).push(frame.segment!);
    return true;
  };
  const open = (segment: TagSegment | DetailsSegment, name: string, expectSummary: boolean) => {
    flush(top());
    stack.push({ segment, name, pending: [], expectSummary });
  };

  let fence: { marker: string; length: number } | null = null;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    const frame = top();
    if (fence) {
      frame.pending.push(line);
      if (closesFence(line, fence)) fence = null;
      continue;
    }
    if (frame.expectSummary) {
      if (line.trim() === '') continue;
      frame.expectSummary = false;
      const summary = SUMMARY.exec(line);
      if (summary && frame.segment?.kind === 'details') {
        frame.segment.title = decodeEntities(summary[1]);
        continue;
      }
    }
    fence = fenceOpening(line);
    if (fence) {
      frame.pending.push(line);
      continue;
    }
    const tag = readTagLine(line);
    if (tag) {
      if (tag.end) {
        if (!close(tag.name, line)) frame.pending.push(line);
      } else if (stack.length > maxDepth) {
        frame.pending.push(line);
      } else if (OPTIONAL_END_TAGS.has(tag.name) && !endFollows(lines, index, tag.name)) {
        flush(frame);
        childrenOf(frame).push({ kind: 'tag', name: tag.name, attributes: tag.attributes, children: [], line });
      } else {
        open({ kind: 'tag', name: tag.name, attributes: tag.attributes, children: [], line }, tag.name, false);
      }
      continue;
    }
    if (MATH_FENCE.test(line)) {
      const end = mathEnd(lines, index);
      if (end !== null) {
        flush(frame);
        childrenOf(frame).push({ kind: 'math', formula: lines.slice(index + 1, end).join('\n') });
        index = end;
      } else frame.pending.push(line);
      continue;
    }
    const details = stack.length <= maxDepth ? DETAILS_OPEN.exec(line) : null;
    if (details) {
      const title = details[1] !== undefined ? decodeEntities(details[1]) : '';
      open({ kind: 'details', title, children: [], line }, 'details', details[1] === undefined);
      continue;
    }
    if (DETAILS_CLOSE.test(line) && close('details', line)) continue;
    frame.pending.push(line);
  }
  while (stack.length > 1) unwind();
  flush(stack[0]);
  return root.children;
}

function appendMarkdown(into: Segment[], text: string): void {
  const last = into[into.length - 1];
  if (last?.kind === 'markdown') last.text += `\n${text}`;
  else into.push({ kind: 'markdown', text });
}

/**
 * Whether an optional end tag (`{% endfile %}`) closes the tag opened at `index` before any other
 * platform line: then the lines between are its caption. Code fences end the search.
 */
function endFollows(lines: readonly string[], index: number, name: string): boolean {
  for (let next = index + 1; next < lines.length; next++) {
    const line = lines[next];
    if (fenceOpening(line) || MATH_FENCE.test(line) || DETAILS_OPEN.test(line) || DETAILS_CLOSE.test(line)) return false;
    const tag = readTagLine(line);
    if (tag) return tag.end && tag.name === name;
  }
  return false;
}

/** The index of the `$$` line closing the math block opened at `index`, else null. */
function mathEnd(lines: readonly string[], index: number): number | null {
  for (let next = index + 1; next < lines.length; next++) if (MATH_FENCE.test(lines[next])) return next;
  return null;
}
