import type { Block, DocumentNode, Inline, Text } from './document.model';
import { normalizeLeaves, textOf } from './document.nodes';

/**
 * Variables in text (docs/content.md, "Variables"): `{{ space.vars.NAME }}` and
 * `{{ page.vars.NAME }}`, spaces inside the braces optional. An expression is replaced only when it
 * sits within one leaf (a mark change in the middle leaves it as written).
 */

export interface DocumentVariables {
  space: Record<string, string>;
  page: Record<string, string>;
}

const EXPRESSION = /\{\{\s*(space|page)\.vars\.([A-Za-z0-9_-]+)\s*\}\}/g;

/** A copy of the document with its variables' values in place; unknown names become ''. */
export function evaluateDocument(document: DocumentNode, variables: DocumentVariables): DocumentNode {
  const value = (scope: 'space' | 'page', name: string): string => {
    const values = variables[scope];
    // Own properties only: `{{ page.vars.constructor }}` is an unknown name, not Object's constructor.
    return Object.hasOwn(values, name) && typeof values[name] === 'string' ? values[name] : '';
  };
  const evaluateText = (text: Text): Text => {
    const leaves = text.leaves.map((part) => ({
      ...part,
      marks: part.marks.map((mark) => ({ ...mark })),
      text: part.text.replace(EXPRESSION, (_, scope: 'space' | 'page', name: string) => value(scope, name)),
    }));
    const evaluated = textOf(normalizeLeaves(leaves));
    return text.key !== undefined ? { ...evaluated, key: text.key } : evaluated;
  };
  const evaluateInline = (node: Inline): Inline => ({
    ...node,
    ...(node.data ? { data: structuredClone(node.data) } : {}),
    ...(node.nodes ? { nodes: node.nodes.map(evaluateText) } : {}),
  });
  const evaluateBlock = (node: Block): Block => ({
    ...node,
    ...(node.data ? { data: structuredClone(node.data) } : {}),
    ...(node.nodes
      ? {
          nodes: node.nodes.map((child) =>
            child.object === 'block' ? evaluateBlock(child) : child.object === 'inline' ? evaluateInline(child) : evaluateText(child),
          ),
        }
      : {}),
  });
  return { object: 'document', data: structuredClone(document.data), nodes: document.nodes.map(evaluateBlock) };
}
