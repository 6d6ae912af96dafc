/** Inline content for the PDF renderer: runs of styled text, and plain text of nodes. */
import { hasSafeScheme } from './content-refs';
import type { ContentRef } from './document.model';
import { emojiCharacter } from './document.nodes';
import { PDF_LIMITS } from './pdf-limits';
import { childrenOf, dataOf, refOf, type Node } from './pdf-nodes';
import { COLORS, MAX_INLINE_DEPTH, type Run, type Style } from './pdf-style';

export function inlineRuns(nodes: readonly Node[], style: Style): Run[] {
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
export function linkStyle(style: Style, ref: ContentRef): Style {
  if (ref.kind !== 'url') return style;
  const url = ref.url.trim();
  const clickable = /^(https?|mailto|tel):[\x21-\x7e]+$/i.test(url) && hasSafeScheme(url);
  return { ...style, underline: true, color: COLORS.link, link: clickable ? url : null };
}

/** Plain text of nodes: leaves, link texts, emoji, formulas; block children line by line. Bounded in depth. */
export function plainText(nodes: readonly Node[], depth = 0): string {
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

export function refName(value: unknown): string {
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
