import { Global, Module, type DynamicModule, type Provider, type Type } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { combineAuditCatalogs, type AuditCatalog } from '#platform/audit-catalog';
import type { JsonSchema } from '#platform/platform.schemas';
import type { Projection } from '#read-store/projections/projection';
import type { Reactor } from './reactor';
import { RuntimeModule, type Runtime } from './runtime.module';

/**
 * A port: a token (with its interface) declared by the context that consumes it, in its own folder.
 * The consumer injects the token; the composition root binds it to a class another context provides.
 */
export type PortToken = symbol;

/** A port the context needs. `many`: it injects a list, to which any number of contexts (none included) contribute. */
export type PortNeed = PortToken | { port: PortToken; many: true };

/** What the composition root knows about the whole service when it builds projections that span every context. */
export interface WholeService {
  /** Every context's audit catalog, combined. */
  auditCatalog: AuditCatalog;
}

/**
 * What a bounded context brings to the service: its folder's `index.ts` exports one of these, and
 * the composition root lists it. Everything the entry points (API, projector, CLI) need of a context
 * comes from here, so adding a context touches no entry point.
 */
export interface ContextManifest {
  /** Names the context in start-up errors. */
  name: string;
  /** Its Nest module: controllers and providers; it exports the classes listed in `provides`. */
  module: Type | DynamicModule;
  /**
   * Its projections. A projection sees only its own collections, so the order of projections (within
   * and across contexts) does not matter. A function when it needs the whole service (the audit log
   * is built from every context's catalog).
   */
  projections: readonly Projection[] | ((whole: WholeService) => readonly Projection[]);
  reactors?: readonly Reactor[];
  /** How its events read in the organization audit log. */
  audit?: AuditCatalog;
  /** Ports it consumes (declared in its folder), bound at the composition root. */
  needs?: readonly PortNeed[];
  /** Classes its module exports that implement other contexts' ports. */
  provides?: readonly Type[];
  /** Response schemas of its resources, for the OpenAPI document (`components.schemas`). */
  schemas?: Readonly<Record<string, JsonSchema>>;
  /** What its routes need of the HTTP server beyond the JSON conventions (a content-type parser), set up before the routes serve. */
  configureHttp?: (fastify: FastifyInstance) => void;
}

/** What the composition root binds a port to. */
export type PortBinding =
  /** One implementation, a class a context provides. */
  | { port: PortToken; use: Type }
  /** A list-valued port: every listed class (possibly none), each provided by some context. */
  | { port: PortToken; useAll: readonly Type[] }
  /** A value computed at start from the process's secrets (not a context's class). */
  | { port: PortToken; value: (secrets: CompositionSecrets) => unknown };

/** What value bindings may derive from. */
export interface CompositionSecrets {
  adminToken: string;
}

const portName = (port: PortToken) => port.description ?? String(port);
const needOf = (need: PortNeed) => (typeof need === 'symbol' ? { port: need, many: false } : need);

/**
 * Checks that every port a context needs is bound once, the right way (one implementation or a
 * list), to classes some context provides: a wiring mistake stops the start with a message naming the
 * context and the port, rather than surfacing as a Nest resolution error or a request failing later.
 */
export function checkBindings(
  contexts: readonly ContextManifest[],
  bindings: readonly PortBinding[],
  hostNeeds: readonly PortNeed[] = [],
): void {
  const names = new Set<string>();
  for (const context of contexts) {
    if (names.has(context.name)) throw new Error(`two contexts are named '${context.name}'`);
    names.add(context.name);
  }
  const byPort = new Map<PortToken, PortBinding>();
  for (const binding of bindings) {
    if (byPort.has(binding.port)) throw new Error(`port ${portName(binding.port)} is bound twice`);
    byPort.set(binding.port, binding);
  }
  const provided = new Map<Type, string>();
  for (const context of contexts) for (const type of context.provides ?? []) provided.set(type, context.name);
  const consumers = [
    ...contexts.map((context) => ({ what: `context '${context.name}'`, needs: context.needs ?? [] })),
    { what: 'the service itself', needs: hostNeeds },
  ];
  for (const { what, needs } of consumers) {
    for (const need of needs.map(needOf)) {
      const binding = byPort.get(need.port);
      const port = portName(need.port);
      if (!binding) throw new Error(`${what} needs port ${port}, which nothing binds: bind it in the composition root's BINDINGS`);
      if (need.many && !('useAll' in binding)) throw new Error(`${what} needs port ${port} as a list: bind it with useAll`);
      if (!need.many && 'useAll' in binding) throw new Error(`${what} needs port ${port} as one implementation: bind it with use`);
    }
  }
  for (const binding of bindings) {
    const types = 'use' in binding ? [binding.use] : 'useAll' in binding ? binding.useAll : [];
    for (const type of types) {
      if (!provided.has(type))
        throw new Error(`port ${portName(binding.port)} is bound to ${type.name}, which no context lists in 'provides'`);
    }
  }
}

/** Every context's projections, the cross-context ones built from the whole service. */
export function projectionsOf(contexts: readonly ContextManifest[], whole: WholeService): Projection[] {
  return contexts.flatMap((context) => (typeof context.projections === 'function' ? context.projections(whole) : context.projections));
}

/**
 * The bindings as one global Nest module: it imports the contexts' modules (for the classes they
 * export) and gives each port token to every module. Contexts then import no other context's module.
 */
@Global()
@Module({})
export class PortBindingsModule {
  static bind(contexts: readonly ContextManifest[], bindings: readonly PortBinding[], secrets: CompositionSecrets): DynamicModule {
    const providers: Provider[] = bindings.map((binding) => {
      if ('use' in binding) return { provide: binding.port, useExisting: binding.use };
      if ('useAll' in binding) return { provide: binding.port, useFactory: (...all: unknown[]) => all, inject: [...binding.useAll] };
      return { provide: binding.port, useValue: binding.value(secrets) };
    });
    return {
      module: PortBindingsModule,
      imports: contexts.map((context) => context.module),
      providers,
      exports: bindings.map((binding) => binding.port),
    };
  }
}

/** The service assembled from its contexts: what each entry point iterates. */
export interface Composition {
  contexts: readonly ContextManifest[];
  /** Every context's projections, in one list (order does not matter: each sees only its own collections). */
  projections: readonly Projection[];
  reactors: readonly Reactor[];
  auditCatalog: AuditCatalog;
  /** The Nest modules of a process hosting the contexts: the runtime's parts, the port bindings, every context's module. */
  modules(runtime: Runtime, secrets: CompositionSecrets): Array<Type | DynamicModule>;
}

/**
 * Assembles the contexts; throws (at start) on a wiring mistake: an unbound port, two contexts with
 * one name, two catalogs describing one event type. `hostNeeds`: ports the entry points themselves
 * inject (the front door's token verifier).
 */
export function compose(
  contexts: readonly ContextManifest[],
  bindings: readonly PortBinding[],
  hostNeeds: readonly PortNeed[] = [],
): Composition {
  checkBindings(contexts, bindings, hostNeeds);
  const auditCatalog = combineAuditCatalogs(...contexts.flatMap((context) => (context.audit ? [context.audit] : [])));
  return {
    contexts,
    projections: projectionsOf(contexts, { auditCatalog }),
    reactors: contexts.flatMap((context) => context.reactors ?? []),
    auditCatalog,
    modules: (runtime, secrets) => [
      RuntimeModule.forRuntime(runtime),
      PortBindingsModule.bind(contexts, bindings, secrets),
      ...contexts.map((context) => context.module),
    ],
  };
}
