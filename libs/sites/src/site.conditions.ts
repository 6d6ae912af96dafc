import jsepModule from 'jsep';
import { DomainError } from '#platform/errors';

type Node = { type: string; [member: string]: unknown };
const jsep = ((jsepModule as unknown as { default?: typeof jsepModule }).default ?? jsepModule) as unknown as (text: string) => Node;

/** How deep an expression may nest. */
const MAX_DEPTH = 32;
const COMPARISONS = new Set(['==', '!=', '===', '!==', '<', '<=', '>', '>=']);
const LOGICAL = new Set(['&&', '||']);

/**
 * Adaptive content conditions (`condition` on sections, site spaces and pages): a small expression
 * language over `visitor.claims`, parsed by jsep and evaluated here, never with `eval`. Allowed:
 * literals (strings, numbers, booleans, null), `visitor.claims.<name>` paths (dots or ['quoted']
 * names), `!`, comparisons (`==`, `!=`, `===`, `!==`, `<`, `<=`, `>`, `>=`), `&&`, `||`, parentheses.
 * A visitor sees what a condition holds true for; a missing claim is undefined.
 */
export function parseCondition(text: string): Node {
  let ast: Node;
  try {
    ast = jsep(text);
  } catch (error) {
    throw DomainError.invalid(`condition is not a valid expression: ${(error as Error).message}`);
  }
  check(ast, 0);
  return ast;
}

function check(node: Node, depth: number): void {
  if (depth > MAX_DEPTH) throw DomainError.invalid(`condition nests deeper than ${MAX_DEPTH} levels`);
  switch (node.type) {
    case 'Literal':
      return;
    case 'MemberExpression':
    case 'Identifier':
      pathOf(node);
      return;
    case 'UnaryExpression':
      if (node.operator !== '!') throw DomainError.invalid(`condition may not use the operator ${String(node.operator)}`);
      return check(node.argument as Node, depth + 1);
    case 'BinaryExpression':
    case 'LogicalExpression':
      if (!COMPARISONS.has(node.operator as string) && !LOGICAL.has(node.operator as string))
        throw DomainError.invalid(`condition may not use the operator ${String(node.operator)}`);
      check(node.left as Node, depth + 1);
      return check(node.right as Node, depth + 1);
    default:
      throw DomainError.invalid(`condition may only use claims, literals, !, comparisons, && and || (found ${node.type})`);
  }
}

/** The claim path of `visitor.claims.a.b` as ['a', 'b']; anything else is refused. */
function pathOf(node: Node): string[] {
  const names: string[] = [];
  let current = node;
  while (current.type === 'MemberExpression') {
    const property = current.property as Node;
    if (current.computed) {
      if (property.type !== 'Literal' || typeof property.value !== 'string')
        throw DomainError.invalid('condition may index claims with quoted names only');
      names.unshift(property.value);
    } else {
      names.unshift(String(property.name));
    }
    current = current.object as Node;
  }
  if (current.type !== 'Identifier' || current.name !== 'visitor' || names[0] !== 'claims')
    throw DomainError.invalid('condition may only read visitor.claims');
  return names.slice(1);
}

/** Whether the condition holds for the visitor's claims (own members only: `__proto__` and the like read nothing). */
export function evaluateCondition(text: string, claims: Record<string, unknown>): boolean {
  return Boolean(evaluate(parseCondition(text), claims));
}

function evaluate(node: Node, claims: Record<string, unknown>): unknown {
  switch (node.type) {
    case 'Literal':
      return node.value;
    case 'MemberExpression':
    case 'Identifier': {
      let value: unknown = claims;
      for (const name of pathOf(node)) {
        value =
          value !== null && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, name)
            ? (value as Record<string, unknown>)[name]
            : undefined;
      }
      return value;
    }
    case 'UnaryExpression':
      return !evaluate(node.argument as Node, claims);
    default: {
      const operator = node.operator as string;
      if (operator === '&&') return evaluate(node.left as Node, claims) && evaluate(node.right as Node, claims);
      if (operator === '||') return evaluate(node.left as Node, claims) || evaluate(node.right as Node, claims);
      const left = evaluate(node.left as Node, claims);
      const right = evaluate(node.right as Node, claims);
      switch (operator) {
        case '==':
        case '===':
          return left === right;
        case '!=':
        case '!==':
          return left !== right;
        default: {
          // Ordering compares numbers with numbers and strings with strings only.
          if (typeof left !== typeof right || (typeof left !== 'number' && typeof left !== 'string')) return false;
          const [a, b] = [left as number | string, right as number | string];
          return operator === '<' ? a < b : operator === '<=' ? a <= b : operator === '>' ? a > b : a >= b;
        }
      }
    }
  }
}
