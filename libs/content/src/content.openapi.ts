import { createHash } from 'node:crypto';
import type { ContentOpenapi } from './content.needs';
import type { Block, DocumentNode } from '#document/document.model';
import { leaf, textOf } from '#document/document.nodes';
import type { ComputedSource } from './tree/tree.model';

/** Blocks that name an operation of a spec by slug: `{ ref: { kind: 'openapi', spec }, path, method }`. */
const OPERATION_BLOCKS = new Set(['openapi-operation', 'swagger']);
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
/** Nodes copied while resolving the `$ref`s of one operation, at most: past it, `$ref`s stay as they are. */
const RESOLVE_BUDGET = 20_000;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** An operation as a computed block carries it: its definition in the spec's latest version, local `$ref`s resolved. */
export interface ResolvedOperation {
  specVersion: string;
  path: string;
  method: string;
  summary?: string;
  description?: string;
  operationId?: string;
  deprecated?: boolean;
  tags?: Json;
  parameters: Json[];
  requestBody?: Json;
  responses?: Json;
}

/** The spec a block names, or null. */
function operationRef(block: Block): { spec: string; path: string; method: string } | null {
  if (!OPERATION_BLOCKS.has(block.type)) return null;
  const data = block.data ?? {};
  const ref = data.ref as { kind?: unknown; spec?: unknown } | undefined;
  if (!ref || ref.kind !== 'openapi' || typeof ref.spec !== 'string' || typeof data.path !== 'string' || typeof data.method !== 'string')
    return null;
  return { spec: ref.spec, path: data.path, method: data.method.toLowerCase() };
}

function hasOperationBlocks(nodes: readonly unknown[] | undefined): boolean {
  return (nodes ?? []).some((node) => {
    const block = node as Block;
    return block.object === 'block' && (operationRef(block) !== null || hasOperationBlocks(block.nodes));
  });
}

/**
 * Computed content (read with `computed`, the default): each `openapi-operation` (or `swagger`)
 * block that names a spec of the space's organization by slug gets `data.operation`, the
 * operation's definition in the spec's latest version (summary, description, parameters with the
 * path's own, request body, responses; local `$ref`s resolved, cycles left as `$ref`). A block
 * whose spec, version, path or method is missing is left as stored. A new version of the spec
 * shows in the next read.
 */
export async function resolveOpenapiBlocks(
  document: DocumentNode,
  organizationId: string,
  openapi: Pick<ContentOpenapi, 'latestDocument'>,
): Promise<DocumentNode> {
  if (!hasOperationBlocks(document.nodes)) return document;
  const specs = new Map<string, Promise<{ versionId: string; document: Record<string, unknown> } | null>>();
  const latest = (slug: string) => {
    if (!specs.has(slug)) specs.set(slug, openapi.latestDocument(organizationId, slug));
    return specs.get(slug)!;
  };
  const visit = async (nodes: Block['nodes']): Promise<Block['nodes']> =>
    Promise.all(
      (nodes ?? []).map(async (node) => {
        if (node.object !== 'block') return node;
        const ref = operationRef(node);
        const children = node.nodes === undefined ? {} : { nodes: await visit(node.nodes) };
        if (!ref) return { ...node, ...children };
        const spec = await latest(ref.spec);
        const operation = spec ? operationIn(spec.document, ref.path, ref.method, spec.versionId) : null;
        return operation ? { ...node, ...children, data: { ...node.data, operation } } : { ...node, ...children };
      }),
    );
  return { ...document, nodes: (await visit(document.nodes)) as Block[] };
}

/** Operations one computed page shows, at most: past it, a paragraph says how many more there are. */
export const COMPUTED_PAGE_MAX_OPERATIONS = 200;

/**
 * The body of a computed page, generated from the latest version of the spec it depends on (read
 * with `computed`, the default), or null when the spec or its version is missing (the stored body
 * is shown then). Only `builtin:openapi` exists.
 */
export async function computedDocument(
  source: ComputedSource,
  organizationId: string,
  openapi: Pick<ContentOpenapi, 'latestDocument'>,
): Promise<DocumentNode | null> {
  const slug = source.dependencies.spec.ref.spec;
  const spec = await openapi.latestDocument(organizationId, slug);
  return spec ? openapiPage(slug, spec.document, spec.versionId, source.props) : null;
}

/**
 * `builtin:openapi`: the spec's operations in document order (paths as the spec lists them, the
 * methods of a path as its item lists them), grouped under a `heading-2` per group: the
 * operation's first tag, or its path when it has no tag; groups in the order their first operation
 * comes. Each operation is an `openapi-operation` block `{ ref, path, method }` carrying
 * `data.operation` exactly as a stored block is resolved. `props.tags` keeps the operations with
 * one of those tags, `props.paths` those at one of those paths (both: both must hold); other props
 * are kept and ignored. Block keys derive from what the block shows, so they stay the same from one
 * version to the next. At most `COMPUTED_PAGE_MAX_OPERATIONS` operations.
 */
export function openapiPage(slug: string, spec: Record<string, unknown>, versionId: string, props: Record<string, unknown>): DocumentNode {
  const tags = stringSet(props.tags);
  const paths = stringSet(props.paths);
  const groups = new Map<string, Block[]>();
  let count = 0;
  const specPaths = own(spec, 'paths');
  for (const path of isObject(specPaths) ? Object.keys(specPaths) : []) {
    if (paths && !paths.has(path)) continue;
    const item = own(specPaths, path);
    if (!isObject(item)) continue;
    for (const method of Object.keys(item)) {
      if (!METHODS.has(method)) continue;
      const operation = operationIn(spec, path, method, versionId);
      if (!operation) continue;
      const operationTags = Array.isArray(operation.tags) ? operation.tags.filter((tag): tag is string => typeof tag === 'string') : [];
      if (tags && !operationTags.some((tag) => tags.has(tag))) continue;
      count += 1;
      if (count > COMPUTED_PAGE_MAX_OPERATIONS) continue;
      const group = operationTags[0] ?? path;
      if (!groups.has(group)) groups.set(group, []);
      groups.get(group)!.push({
        object: 'block',
        type: 'openapi-operation',
        key: keyOf(`operation\n${path}\n${method}`),
        isVoid: true,
        data: { ref: { kind: 'openapi', spec: slug }, path, method, operation },
      });
    }
  }
  const nodes: Block[] = [];
  for (const [group, operations] of groups) {
    nodes.push({ object: 'block', type: 'heading-2', key: keyOf(`heading\n${group}`), nodes: [textOf([leaf(group)])] });
    for (const operation of operations) nodes.push(operation);
  }
  if (count > COMPUTED_PAGE_MAX_OPERATIONS) {
    const more = count - COMPUTED_PAGE_MAX_OPERATIONS;
    nodes.push({
      object: 'block',
      type: 'paragraph',
      key: keyOf('more'),
      nodes: [textOf([leaf(`${more} more operation${more === 1 ? '' : 's'} not shown: narrow the page with props.tags or props.paths.`)])],
    });
  }
  return { object: 'document', data: {}, nodes };
}

function stringSet(value: unknown): Set<string> | null {
  return Array.isArray(value) ? new Set(value.filter((item): item is string => typeof item === 'string')) : null;
}

/** A block key of the usual shape (10 base-62 characters) derived from what the block stands for. */
function keyOf(seed: string): string {
  const digest = createHash('sha256').update(seed).digest();
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let key = '';
  for (let index = 0; index < 10; index += 1) key += alphabet[digest[index] % 62];
  return key;
}

/** The operation at `path` and `method` of a parsed spec, or null. */
export function operationIn(spec: Record<string, unknown>, path: string, method: string, specVersion: string): ResolvedOperation | null {
  if (!METHODS.has(method)) return null;
  const paths = own(spec, 'paths');
  const item = own(paths, path);
  const operation = own(item, method);
  if (!isObject(operation) || !isObject(item)) return null;
  const budget = { left: RESOLVE_BUDGET };
  const resolve = (value: unknown) => resolveRefs(value as Json, spec as Json, [], budget);
  const parameters = [
    ...(Array.isArray(item.parameters) ? item.parameters : []),
    ...(Array.isArray(operation.parameters) ? operation.parameters : []),
  ].map(resolve);
  const text = (key: string) => (typeof operation[key] === 'string' ? { [key]: operation[key] as string } : {});
  return {
    specVersion,
    path,
    method,
    ...text('summary'),
    ...text('description'),
    ...text('operationId'),
    ...(typeof operation.deprecated === 'boolean' ? { deprecated: operation.deprecated } : {}),
    ...(Array.isArray(operation.tags) ? { tags: resolve(operation.tags) } : {}),
    parameters,
    ...(operation.requestBody !== undefined ? { requestBody: resolve(operation.requestBody) } : {}),
    ...(operation.responses !== undefined ? { responses: resolve(operation.responses) } : {}),
  };
}

/** A copy of `value` with its local `$ref`s (`#/…`) replaced by what they point at; a `$ref` in a cycle, or past the budget, stays. */
function resolveRefs(value: Json, root: Json, stack: string[], budget: { left: number }): Json {
  if (--budget.left < 0) return value;
  if (Array.isArray(value)) return value.map((item) => resolveRefs(item, root, stack, budget));
  if (!isObject(value)) return value;
  const ref = value.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/') && !stack.includes(ref)) {
    const target = pointer(root, ref);
    if (target !== undefined) return resolveRefs(target, root, [...stack, ref], budget);
  }
  const copy: { [key: string]: Json } = {};
  for (const [key, member] of Object.entries(value)) copy[key] = resolveRefs(member, root, stack, budget);
  return copy;
}

/** The value at a JSON pointer in a fragment (`#/components/schemas/Pet`): own members only. */
function pointer(root: Json, ref: string): Json | undefined {
  let current: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    current = Array.isArray(current) ? (/^\d+$/.test(token) ? current[Number(token)] : undefined) : own(current, token);
    if (current === undefined) return undefined;
  }
  return current as Json;
}

function isObject(value: unknown): value is Record<string, Json> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function own(value: unknown, key: string): unknown {
  return isObject(value) && Object.prototype.hasOwnProperty.call(value, key) ? value[key] : undefined;
}
