/**
 * The size of an OpenAPI document once its local `$ref`s are inlined the way validation inlines
 * them, computed without inlining anything.
 *
 * @apidevtools/swagger-parser validates a document by dereferencing it with `circular: 'ignore'`
 * (@apidevtools/json-schema-ref-parser replaces each `$ref` by its target, except a `$ref` whose
 * target leads into a cycle, which stays a reference) and then walking the result as a tree twice:
 * the dereferencer crawls it again (with `circular: 'ignore'` it skips no object it has seen) and
 * Ajv checks it against the OpenAPI schema. A target referenced from two places is walked twice, so
 * N schemas each referencing the next one twice cost 2^N: 3 KB of JSON, minutes of CPU. This module
 * counts what those walks visit: one pass to index the document, Tarjan's strongly connected
 * components to find the targets that lead into a cycle, and a memoized sum over what is left
 * (acyclic once those `$ref`s are leaves); time and memory linear in the document's size.
 */

type Container = Record<string, unknown> | unknown[];

/** `target` of a container that is not a `{ $ref }` object. */
const NOT_A_REF = -2;
/** `target` of a `$ref` that resolves to no container (a scalar, nothing, another document): a leaf. */
const LEAF = -1;
/** Hops through `$ref`s while resolving one pointer (`#/a/b` where `a` is itself a `$ref`). */
const MAX_POINTER_HOPS = 32;

/**
 * The document's containers (objects and arrays), numbered breadth first from the root, with their
 * members: `scalars[n]` members that are not containers, the containers `children[first[n]] ..
 * children[first[n + 1] - 1]`, and for a `{ $ref: '#…' }` object its target's number in `target[n]`.
 */
interface Graph {
  values: Container[];
  index: Map<object, number>;
  scalars: Int32Array;
  first: Int32Array;
  children: Int32Array;
  target: Int32Array;
}

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

function refOf(value: Container): string | undefined {
  if (Array.isArray(value)) return undefined;
  const ref = (value as { $ref?: unknown }).$ref;
  return typeof ref === 'string' ? ref : undefined;
}

/**
 * The number of values (objects, arrays and scalars) that validation walks in `document`: every
 * local `$ref` counted as its target's expansion, except one whose target leads into a cycle (and a
 * `$ref` that resolves to nothing), counted as the reference object itself. Infinity past 2^1024.
 */
export function expandedSize(document: unknown): number {
  if (!isContainer(document)) return 1;
  const graph = indexContainers(document);
  const resolve = pointerResolver(document, graph);
  for (let at = 0; at < graph.values.length; at++) {
    const ref = refOf(graph.values[at]);
    if (ref !== undefined) graph.target[at] = resolve(ref);
  }
  return sizes(graph, leadsIntoCycle(graph))[0];
}

/** Every container of the document, the root first (shared objects, which parsed JSON has none of, once). */
function indexContainers(root: Container): Graph {
  const values: Container[] = [root];
  const index = new Map<object, number>([[root, 0]]);
  const scalars: number[] = [];
  const first: number[] = [];
  const children: number[] = [];
  for (let at = 0; at < values.length; at++) {
    const value = values[at];
    first.push(children.length);
    let count = 0;
    for (const member of Array.isArray(value) ? value : Object.values(value)) {
      if (!isContainer(member)) {
        count++;
        continue;
      }
      let number = index.get(member);
      if (number === undefined) {
        number = values.length;
        index.set(member, number);
        values.push(member);
      }
      children.push(number);
    }
    scalars.push(count);
  }
  first.push(children.length);
  return {
    values,
    index,
    scalars: Int32Array.from(scalars),
    first: Int32Array.from(first),
    children: Int32Array.from(children),
    target: new Int32Array(values.length).fill(NOT_A_REF),
  };
}

/** Resolves a local reference (`#/components/schemas/Pet`) to a container's number, as the dereferencer does; LEAF when it cannot. */
function pointerResolver(root: Container, graph: Graph): (ref: string) => number {
  const resolved = new Map<string, number>();
  const remember = (ref: string, at: number): number => {
    resolved.set(ref, at);
    return at;
  };
  const resolve = (ref: string, hops: number): number => {
    const known = resolved.get(ref);
    if (known !== undefined) return known;
    if (ref !== '#' && !ref.startsWith('#/')) return remember(ref, LEAF);
    let target: unknown = root;
    for (const token of tokens(ref)) {
      if (token === null || !isContainer(target)) return remember(ref, LEAF);
      // A pointer through a reference (`#/a/b` where `a` is a `$ref`) goes on from that reference's target.
      const through = refOf(target);
      if (through !== undefined) {
        const hop = hops < MAX_POINTER_HOPS ? resolve(through, hops + 1) : LEAF;
        if (hop === LEAF) return remember(ref, LEAF);
        target = graph.values[hop];
      }
      target = Object.prototype.hasOwnProperty.call(target, token) ? (target as Record<string, unknown>)[token] : undefined;
    }
    return remember(ref, isContainer(target) ? (graph.index.get(target) ?? LEAF) : LEAF);
  };
  return (ref) => resolve(ref, 0);
}

/** The tokens of a JSON pointer in a URI fragment (`#/paths/~1pets/get`); null for a token that is not valid percent-encoding. */
function tokens(ref: string): Array<string | null> {
  if (ref === '#') return [];
  return ref
    .slice(2)
    .split('/')
    .map((token) => {
      try {
        return decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~');
      } catch {
        return null;
      }
    });
}

/** The `edge`th edge of a container: its member containers, then its `$ref`'s target (when `withTarget` says so); -1 past the last. */
function edge(graph: Graph, at: number, index: number, withTarget: (at: number) => boolean): number {
  const members = graph.first[at + 1] - graph.first[at];
  if (index < members) return graph.children[graph.first[at] + index];
  return index === members && withTarget(at) ? graph.target[at] : -1;
}

/**
 * For each container, whether a cycle can be reached from it through members and `$ref`s (its
 * strongly connected component has a cycle, or leads to one that does). Tarjan's algorithm,
 * iterative: a document may nest deeper than the call stack.
 */
function leadsIntoCycle(graph: Graph): Uint8Array {
  const count = graph.values.length;
  const resolvedRef = (at: number) => graph.target[at] >= 0;
  const order = new Int32Array(count).fill(-1);
  const low = new Int32Array(count);
  const onStack = new Uint8Array(count);
  const component = new Int32Array(count).fill(-1);
  const leads: number[] = [];
  const stack = new Int32Array(count);
  let stackSize = 0;
  const framesAt = new Int32Array(count);
  const framesNext = new Int32Array(count);
  let counter = 0;
  for (let start = 0; start < count; start++) {
    if (order[start] !== -1) continue;
    let frames = 0;
    order[start] = low[start] = counter++;
    stack[stackSize++] = start;
    onStack[start] = 1;
    framesAt[frames] = start;
    framesNext[frames++] = 0;
    while (frames > 0) {
      const at = framesAt[frames - 1];
      const to = edge(graph, at, framesNext[frames - 1]++, resolvedRef);
      if (to !== -1) {
        if (order[to] === -1) {
          order[to] = low[to] = counter++;
          stack[stackSize++] = to;
          onStack[to] = 1;
          framesAt[frames] = to;
          framesNext[frames++] = 0;
        } else if (onStack[to] && order[to] < low[at]) low[at] = order[to];
        continue;
      }
      frames--;
      if (frames > 0 && low[at] < low[framesAt[frames - 1]]) low[framesAt[frames - 1]] = low[at];
      if (low[at] !== order[at]) continue;
      // The root of a component: its members leave the stack. A component comes out after every one it leads to.
      const id = leads.length;
      let size = 0;
      let member: number;
      do {
        member = stack[--stackSize];
        onStack[member] = 0;
        component[member] = id;
        size++;
      } while (member !== at);
      let leadsIn = size > 1 || graph.target[at] === at;
      for (let each = stackSize; !leadsIn && each < stackSize + size; each++) {
        const from = stack[each];
        for (
          let index = 0, next = edge(graph, from, 0, resolvedRef);
          next !== -1 && !leadsIn;
          next = edge(graph, from, ++index, resolvedRef)
        ) {
          if (component[next] !== id && leads[component[next]] === 1) leadsIn = true;
        }
      }
      leads.push(leadsIn ? 1 : 0);
    }
  }
  const result = new Uint8Array(count);
  for (let at = 0; at < count; at++) result[at] = leads[component[at]];
  return result;
}

/**
 * The expanded size of every container. A `$ref` to a target that leads into no cycle counts as that
 * target; any other stays a reference. What is left is acyclic (a cycle needs a `$ref`, and every
 * `$ref` followed goes where no cycle is), so a memoized depth-first sum ends.
 */
function sizes(graph: Graph, leadsIn: Uint8Array): Float64Array {
  const count = graph.values.length;
  const inlined = (at: number) => graph.target[at] >= 0 && leadsIn[graph.target[at]] === 0;
  const size = new Float64Array(count).fill(-1);
  const framesAt = new Int32Array(count);
  const framesNext = new Int32Array(count);
  for (let start = count - 1; start >= 0; start--) {
    if (size[start] !== -1) continue;
    let frames = 0;
    framesAt[frames] = start;
    framesNext[frames++] = 0;
    while (frames > 0) {
      const at = framesAt[frames - 1];
      const to = edge(graph, at, framesNext[frames - 1]++, inlined);
      if (to !== -1) {
        if (size[to] === -1) {
          framesAt[frames] = to;
          framesNext[frames++] = 0;
        }
        continue;
      }
      frames--;
      let total = 1 + graph.scalars[at];
      for (let index = graph.first[at]; index < graph.first[at + 1]; index++) total += size[graph.children[index]];
      // Inlined: the target's expansion takes the place of the reference object and its `$ref` string.
      if (inlined(at)) total += size[graph.target[at]] - 2;
      size[at] = total;
    }
  }
  return size;
}
