/** Bodies as the PDF renderer meets them: untrusted shapes, read defensively. */
import type { Block, ContentRef, DocumentNode, Inline, Text } from './document.model';
import { PDF_LIMITS } from './pdf-limits';

export type Node = Block | Inline | Text;

export function isDocument(value: unknown): value is DocumentNode {
  return value !== null && typeof value === 'object' && Array.isArray((value as DocumentNode).nodes);
}

export function childrenOf(nodes: unknown): Node[] {
  if (!Array.isArray(nodes)) return [];
  return nodes.filter(
    (node): node is Node =>
      node !== null &&
      typeof node === 'object' &&
      ((node as Node).object === 'block' || (node as Node).object === 'inline' || (node as Node).object === 'text'),
  );
}

export function dataOf(node: Block | Inline): Record<string, unknown> {
  return node.data !== null && typeof node.data === 'object' ? node.data : {};
}

export function refOf(value: unknown): ContentRef | null {
  if (value === null || typeof value !== 'object') return null;
  const ref = value as Record<string, unknown>;
  switch (ref.kind) {
    case 'file':
      return typeof ref.file === 'string' ? (ref as unknown as ContentRef) : null;
    case 'url':
      return typeof ref.url === 'string' ? (ref as unknown as ContentRef) : null;
    default:
      return typeof ref.kind === 'string' ? (ref as unknown as ContentRef) : null;
  }
}

/** Image blocks of a body (in `images` or alone), as far as the renderer goes. */
export function imageBlocks(document: DocumentNode): Block[] {
  const found: Block[] = [];
  const stack: Array<{ node: Node; depth: number }> = childrenOf(document.nodes)
    .map((node) => ({ node, depth: 0 }))
    .reverse();
  let visited = 0;
  while (stack.length > 0 && visited++ < PDF_LIMITS.blocksPerPage * 2) {
    const { node, depth } = stack.pop()!;
    if (node.object !== 'block' || depth >= PDF_LIMITS.depth) continue;
    if (node.type === 'image') found.push(node);
    const children = childrenOf(node.nodes);
    for (let index = Math.min(children.length, PDF_LIMITS.blocksPerPage) - 1; index >= 0; index--)
      stack.push({ node: children[index], depth: depth + 1 });
  }
  return found;
}
