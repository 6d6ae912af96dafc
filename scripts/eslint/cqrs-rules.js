/**
 * The command and query path's lint rules (docs/architecture.md, Commands and Queries):
 * - `handler-beside-message`: a `@CommandHandler(X)` / `@QueryHandler(X)` handles a class declared
 *   in the same file, and every class extending `Command<…>` or `Query<…>` has its handler there,
 *   so go-to-definition from a route's `execute(new X(…))` lands beside the code that runs it.
 * - `controller-buses-only`: a controller's constructor takes only the `CommandBus` and the `QueryBus`.
 */
const HANDLER_DECORATORS = { CommandHandler: 'Command', QueryHandler: 'Query' };

function superName(node) {
  const callee = node.superClass;
  return callee && callee.type === 'Identifier' ? callee.name : null;
}

const handlerBesideMessage = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      elsewhere: "{{decorator}}({{name}}) handles a class declared in another file: declare the {{kind}} '{{name}}' beside its handler",
      unhandled: "{{kind}} '{{name}}' has no @{{decorator}} in this file: its handler goes beside it",
    },
  },
  create(context) {
    const declared = new Map(); // class name -> { node, kind }
    const handled = new Set();
    const handlers = [];
    return {
      ClassDeclaration(node) {
        const base = superName(node);
        if (node.id && (base === 'Command' || base === 'Query')) declared.set(node.id.name, { node, kind: base });
        for (const decorator of node.decorators ?? []) {
          const call = decorator.expression;
          if (call.type !== 'CallExpression' || call.callee.type !== 'Identifier' || !(call.callee.name in HANDLER_DECORATORS)) continue;
          const target = call.arguments[0];
          handlers.push({ decorator: call.callee.name, target });
        }
      },
      'Program:exit'() {
        for (const { decorator, target } of handlers) {
          const kind = HANDLER_DECORATORS[decorator];
          const name = target && target.type === 'Identifier' ? target.name : '?';
          if (!declared.has(name) || declared.get(name).kind !== kind) {
            context.report({
              node: target ?? context.sourceCode.ast,
              messageId: 'elsewhere',
              data: { decorator, name, kind: kind.toLowerCase() },
            });
          } else handled.add(name);
        }
        for (const [name, { node, kind }] of declared) {
          if (!handled.has(name))
            context.report({ node: node.id, messageId: 'unhandled', data: { name, kind, decorator: `${kind}Handler` } });
        }
      },
    };
  },
};

const BUSES = new Set(['CommandBus', 'QueryBus']);

const controllerBusesOnly = {
  meta: {
    type: 'problem',
    schema: [],
    messages: { other: "a controller takes only the CommandBus and the QueryBus: '{{name}}' belongs in a command or query handler" },
  },
  create(context) {
    return {
      "ClassDeclaration MethodDefinition[kind='constructor'] > FunctionExpression"(node) {
        for (const param of node.params) {
          const target = param.type === 'TSParameterProperty' ? param.parameter : param;
          const annotation = target.typeAnnotation?.typeAnnotation;
          const name =
            annotation?.type === 'TSTypeReference' && annotation.typeName.type === 'Identifier' ? annotation.typeName.name : null;
          if (!name || !BUSES.has(name)) context.report({ node: param, messageId: 'other', data: { name: target.name ?? name ?? '?' } });
        }
      },
    };
  },
};

module.exports = { rules: { 'handler-beside-message': handlerBesideMessage, 'controller-buses-only': controllerBusesOnly } };
