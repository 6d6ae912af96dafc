/** Markdown parsed into mdast: GFM (less its quadratic literal autolinks) and inline math, long texts a part at a time. */
import type { Definition, Nodes, Root } from 'mdast';
import type { Construct, Extension as MicromarkExtension } from 'micromark-util-types';
import { lazyPackage } from '#platform/lazy-package';
import { appendAll } from './document.nodes';
import { PART_MIN_CHARS, topLevelParts } from './markdown-guards';
import { inlineMathFromMarkdown, inlineMathSyntax } from './markdown-math';
import { mdastFromMarkdown, mdastGfm, micromarkGfm } from './packages';

/**
 * GFM without micromark's literal-autolink constructs: they look back over the whole paragraph at
 * every word when a `[` is open before it (and often across lines), which is quadratic in the
 * paragraph. mdast-util-gfm's transform still finds literal URLs and emails afterwards, in linear
 * time, in the text of the tree.
 */
const LITERAL_AUTOLINKS = new Set(['wwwAutolink', 'protocolAutolink', 'emailAutolink']);
const gfmExtensions = lazyPackage(() => ({
  syntax: withoutLiteralAutolinks(micromarkGfm().gfm()),
  fromMarkdown: mdastGfm().gfmFromMarkdown(),
}));

function withoutLiteralAutolinks(extension: MicromarkExtension): MicromarkExtension {
  const text: NonNullable<MicromarkExtension['text']> = {};
  for (const [code, constructs] of Object.entries(extension.text ?? {})) {
    const kept = (Array.isArray(constructs) ? constructs : [constructs]).filter(
      (construct): construct is Construct => construct !== undefined && !LITERAL_AUTOLINKS.has(construct.name ?? ''),
    );
    if (kept.length > 0) text[Number(code)] = kept;
  }
  return { ...extension, text };
}

/** Reads markdown with micromark: `extensions` are added to the reader's own. */
export type MarkdownReader = (source: string, extensions: readonly MicromarkExtension[]) => Root;

function parseMarkdown(source: string, extensions: readonly MicromarkExtension[] = []): Root {
  const gfm = gfmExtensions();
  return mdastFromMarkdown().fromMarkdown(source, {
    extensions: [gfm.syntax, inlineMathSyntax(), ...extensions],
    mdastExtensions: [...gfm.fromMarkdown, inlineMathFromMarkdown()],
  });
}

/**
 * The parts of a long text (topLevelParts), each parsed on its own, so that parsing stays linear.
 * A reference link (`[text][label]`, `[label]`) or a footnote reference (`[^label]`) is only read
 * as one when its label is defined, anywhere in the text: a part that may use a definition of
 * another part is parsed again with those labels declared to micromark.
 */
export function parseMarkdownParts(
  markdown: string,
  minPartChars = PART_MIN_CHARS,
  read: MarkdownReader = parseMarkdown,
): Array<{ text: string; root: Root }> {
  const parts = topLevelParts(markdown, minPartChars);
  const roots = parts.map((part) => read(part, []));
  if (roots.length === 1) return [{ text: parts[0], root: roots[0] }];
  const declaredByPart = roots.map(declaredLabels);
  const all = {
    links: new Set(declaredByPart.flatMap((declared) => [...declared.links])),
    footnotes: new Set(declaredByPart.flatMap((declared) => [...declared.footnotes])),
  };
  return roots.map((root, index) => {
    const elsewhere = {
      links: [...all.links].filter((label) => !declaredByPart[index].links.has(label)),
      footnotes: [...all.footnotes].filter((label) => !declaredByPart[index].footnotes.has(label)),
    };
    const text = parts[index];
    const reread = (elsewhere.links.length > 0 || elsewhere.footnotes.length > 0) && text.includes('[');
    return { text, root: reread ? read(text, [definedElsewhere(elsewhere)]) : root };
  });
}

/** The labels a tree defines, as micromark keeps them (micromark-util-normalize-identifier). */
function declaredLabels(root: Root): { links: Set<string>; footnotes: Set<string> } {
  const links = new Set<string>();
  const footnotes = new Set<string>();
  const normalized = (label: string) =>
    label
      .replace(/[\t\n\r ]+/g, ' ')
      .replace(/^ | $/g, '')
      .toLowerCase()
      .toUpperCase();
  const stack: Nodes[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'definition') links.add(normalized(node.label ?? node.identifier));
    else if (node.type === 'footnoteDefinition') footnotes.add(normalized(node.label ?? node.identifier));
    if ('children' in node && node.type !== 'paragraph' && node.type !== 'heading' && node.type !== 'table')
      appendAll(stack, node.children as Nodes[]);
  }
  return { links, footnotes };
}

/**
 * Declares labels defined in other parts of the text: micromark keeps the labels it has seen
 * defined in its parser (`defined`, and GFM's `gfmFootnotes`, filled while the blocks are read,
 * before any text is), so a construct tried at the first block start adds them there, and
 * matches nothing.
 */
function definedElsewhere(labels: { links: readonly string[]; footnotes: readonly string[] }): MicromarkExtension {
  const declared = new WeakSet<object>();
  const construct: Construct = {
    name: 'definedElsewhere',
    tokenize(_effects, _ok, nok) {
      const parser = this.parser as typeof this.parser & { gfmFootnotes?: string[] };
      if (!declared.has(parser)) {
        declared.add(parser);
        for (const label of labels.links) parser.defined.push(label);
        const footnotes = (parser.gfmFootnotes ??= []);
        for (const label of labels.footnotes) footnotes.push(label);
      }
      return nok;
    },
  };
  return { flow: { null: [construct] } };
}

export function collectDefinitions(root: Root): Map<string, Definition> {
  const definitions = new Map<string, Definition>();
  const stack: Nodes[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'definition') {
      if (!definitions.has(node.identifier)) definitions.set(node.identifier, node);
    } else if ('children' in node && node.type !== 'paragraph' && node.type !== 'heading' && node.type !== 'table') {
      appendAll(stack, node.children as Nodes[]);
    }
  }
  return definitions;
}
