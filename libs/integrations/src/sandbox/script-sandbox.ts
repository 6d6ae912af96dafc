/**
 * Runs an integration's untrusted `script` in a QuickJS (WebAssembly) sandbox: one fresh runtime and
 * context per run, disposed afterwards, with a time, memory and stack limit; values cross the
 * boundary only as JSON text. The script API, the globals and the limits: docs/api/integration-scripts.md.
 */
import { dirname } from 'node:path';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  RELEASE_SYNC,
  type QuickJSContext,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten';
import { SANDBOX_PRELUDE } from './sandbox-prelude';

export interface SandboxLimits {
  timeMs: number;
  memoryBytes: number;
  stackBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = Object.freeze({ timeMs: 1000, memoryBytes: 32 * 1024 * 1024, stackBytes: 64 * 1024 });

export interface SandboxLog {
  message: string;
  timestamp: string;
  level: 'debug' | 'info' | 'warn' | 'error';
}

export type SandboxFetch = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
) => Promise<{ status: number; headers: Record<string, string>; body: string }>;

export interface SandboxOutcome<T> {
  ok: boolean;
  result?: T;
  /** 'time limit exceeded' | 'memory limit exceeded' | 'stack overflow' | the script's error message */
  error?: string;
  logs: SandboxLog[];
  durationMs: number;
}

export interface SandboxOptions {
  fetch: SandboxFetch;
  limits?: Partial<SandboxLimits>;
  /** The clock for log timestamps (limits always use the real monotonic clock). */
  now?: () => Date;
}

export interface ComponentRequest {
  componentId: string;
  props: Record<string, unknown>;
  state: Record<string, unknown>;
  context: Record<string, unknown>;
  action?: unknown;
}

export const MAX_FETCHES_PER_RUN = 20;
export const MAX_LOG_ENTRIES = 200;
export const MAX_LOG_MESSAGE_CHARS = 2000;
export const MAX_RESULT_BYTES = 1024 * 1024;
/** The largest stack limit accepted: the larger it is, the more often deep recursion exhausts Node's own stack before QuickJS notices. */
export const MAX_STACK_BYTES = 256 * 1024;

export const TIME_LIMIT_EXCEEDED = 'time limit exceeded';
export const MEMORY_LIMIT_EXCEEDED = 'memory limit exceeded';
export const STACK_OVERFLOW = 'stack overflow';

/**
 * Runs the script's handler for an event (JSON-serialisable); ok:true with result undefined when the
 * script has no handler for that type (then a log entry says so).
 */
export async function runEventHandler(
  script: string,
  event: { type: string; [k: string]: unknown },
  context: Record<string, unknown>,
  options: SandboxOptions,
): Promise<SandboxOutcome<unknown>> {
  if (typeof event?.type !== 'string') throw new TypeError('runEventHandler: event.type must be a string');
  const run = await SandboxRun.start(script, options);
  const answer = await run.execute('event', event.type, () => JSON.stringify({ event, context }));
  if (answer.kind === 'none') {
    run.log('info', `no handler for event ${event.type}: the script exports no events.${event.type} function`);
    return run.outcome({ ok: true });
  }
  if (answer.kind === 'value') return run.outcome({ ok: true, result: answer.value });
  return run.outcome({ ok: false, error: answer.error });
}

/** Runs a UI component: returns the element tree it renders and its new state. */
export async function renderComponent(
  script: string,
  request: ComponentRequest,
  options: SandboxOptions,
): Promise<SandboxOutcome<{ element: unknown; state: Record<string, unknown> }>> {
  if (typeof request?.componentId !== 'string') throw new TypeError('renderComponent: componentId must be a string');
  const { componentId, props, state, context, action } = request;
  const run = await SandboxRun.start(script, options);
  const answer = await run.execute('component', componentId, () => JSON.stringify({ props, state, context, action }));
  if (answer.kind === 'none') return run.outcome({ ok: false, error: `no component ${componentId}` });
  if (answer.kind === 'error') return run.outcome({ ok: false, error: answer.error });
  const rendered = answer.value;
  if (!isPlainObject(rendered)) return run.outcome({ ok: false, error: `component ${componentId} did not return an element (an object)` });
  const { state: newState, ...element } = rendered;
  if (newState !== undefined && !isPlainObject(newState))
    return run.outcome({ ok: false, error: `component ${componentId} returned a state that is not an object` });
  return run.outcome({ ok: true, result: { element, state: newState ?? state } });
}

// ---------------------------------------------------------------------------------------------------

type Answer = { kind: 'value'; value: unknown } | { kind: 'none' } | { kind: 'error'; error: string };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function resolveLimits(partial: Partial<SandboxLimits> | undefined): SandboxLimits {
  const limits = { ...DEFAULT_SANDBOX_LIMITS, ...partial };
  const check = (name: keyof SandboxLimits, min: number, max: number) => {
    const value = limits[name];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
      throw new RangeError(`sandbox limit ${name} must be a number from ${min} to ${max}, not ${String(value)}`);
    }
  };
  check('timeMs', 1, 10 * 60 * 1000);
  check('memoryBytes', 1024 * 1024, 1024 * 1024 * 1024);
  check('stackBytes', 16 * 1024, MAX_STACK_BYTES);
  return limits;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : String(error);
}

function isHostStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /maximum call stack size exceeded/i.test(error.message);
}

/** The run's error text for an error the script raised (name and message as read from the sandbox). */
function describeScriptError(name: string, message: string): string {
  if (message === 'out of memory') return MEMORY_LIMIT_EXCEEDED;
  if (message === 'stack overflow' || /maximum call stack size exceeded/i.test(message)) return STACK_OVERFLOW;
  if (name === 'InternalError' && message === 'interrupted') return TIME_LIMIT_EXCEEDED;
  const text = name && name !== 'Error' ? `${name}: ${message}` : message || name || 'the script failed';
  return text.length > MAX_LOG_MESSAGE_CHARS ? text.slice(0, MAX_LOG_MESSAGE_CHARS - 1) + '…' : text;
}

/** Raised by the guard on the host's allocations in an instance whose memory is exhausted. */
class HeapExhausted extends Error {
  constructor() {
    super('out of memory');
    this.name = 'HeapExhausted';
  }
}

/** A host-level failure inside the WebAssembly instance: its state can no longer be trusted. */
function isInstanceFault(error: unknown): boolean {
  if (error instanceof HeapExhausted || error instanceof RangeError) return true;
  // WebAssembly.RuntimeError (a trap, or an Emscripten abort) is named RuntimeError.
  return error instanceof Error && (error.name === 'RuntimeError' || /^Aborted\(/.test(error.message));
}

/**
 * The release build of the sync variant, its Emscripten loader required rather than imported: the
 * published variant loads it with a dynamic import(), which Jest's module system refuses.
 */
const BASE_VARIANT: QuickJSSyncVariant = {
  type: 'sync',
  importFFI: RELEASE_SYNC.importFFI,
  importModuleLoader: () => {
    const loader = require.resolve('@jitl/quickjs-wasmfile-release-sync/emscripten-module', {
      paths: [dirname(require.resolve('quickjs-emscripten'))],
    });
    return Promise.resolve(require(loader) as Awaited<ReturnType<QuickJSSyncVariant['importModuleLoader']>>);
  },
};

const WASM_PAGE_BYTES = 64 * 1024;
/** The prebuilt module's initial memory (its static data, stack and first heap): fixed by the build. */
const BASE_MEMORY_BYTES = 16 * 1024 * 1024;
const WasmMemory = (globalThis as unknown as { WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => object } })
  .WebAssembly.Memory;

/** A WebAssembly instance of QuickJS, used by one run at a time. */
interface Instance {
  quickjs: QuickJSWASMModule;
  memoryBytes: number;
  /** False when the host's allocations could not be guarded: then the instance serves one run only. */
  reusable: boolean;
}

/** Instances whose run ended cleanly, kept for later runs with the same memory limit. */
const MAX_IDLE_INSTANCES = 2;
const idleInstances: Instance[] = [];

/**
 * An instance of its own for a run, its linear memory capped at the base plus the run's memory
 * limit: QuickJS's own limit (runtime.setMemoryLimit) only refuses single allocations over it in
 * this build (it cannot measure what it has allocated, quickjs-emscripten issues #255 and #271), so
 * the cap on the memory is what bounds the total; QuickJS then fails the allocation cleanly.
 */
async function acquireInstance(memoryBytes: number): Promise<Instance> {
  const idle = idleInstances.findIndex((instance) => instance.memoryBytes === memoryBytes);
  if (idle >= 0) return idleInstances.splice(idle, 1)[0];
  const maximum = Math.ceil((BASE_MEMORY_BYTES + memoryBytes) / WASM_PAGE_BYTES);
  const variant = newVariant(BASE_VARIANT, {
    wasmMemory: () => new WasmMemory({ initial: BASE_MEMORY_BYTES / WASM_PAGE_BYTES, maximum }) as never,
  });
  const quickjs = await newQuickJSWASMModuleFromVariant(variant);
  return { quickjs, memoryBytes, reusable: guardHostAllocations(quickjs) };
}

/**
 * The library copies host strings into the instance with the Emscripten module's _malloc and does
 * not check for failure, so in an exhausted heap it would write at address 0. The guard turns that
 * into a HeapExhausted error (the run fails, the instance is dropped). Answers false when the
 * library's internals do not have the expected shape.
 */
function guardHostAllocations(quickjs: QuickJSWASMModule): boolean {
  const emscripten = (quickjs as unknown as { module?: { _malloc?: unknown } }).module;
  const malloc = emscripten?._malloc;
  if (emscripten === undefined || typeof malloc !== 'function') return false;
  emscripten._malloc = (bytes: number): number => {
    const pointer = (malloc as (bytes: number) => number).call(emscripten, bytes);
    if (!pointer) throw new HeapExhausted();
    return pointer;
  };
  return true;
}

function releaseInstance(instance: Instance): void {
  if (!instance.reusable) return;
  idleInstances.push(instance);
  if (idleInstances.length > MAX_IDLE_INSTANCES) idleInstances.shift();
}

const SCRIPT_FILE = 'integration.js';

class SandboxRun {
  private readonly started = performance.now();
  private readonly deadline: number;
  private readonly logs: SandboxLog[] = [];
  private logLimitReached = false;
  private runtime?: QuickJSRuntime;
  private context?: QuickJSContext;
  private readonly handles: QuickJSHandle[] = [];
  private readonly deferreds = new Set<QuickJSDeferredPromise>();
  private fetches = 0;
  private inflight = 0;
  /** Set when the interrupt handler stopped the script at the deadline. */
  private interrupted = false;
  /** Set once the run has its answer: any guest code still running is interrupted at once. */
  private stopped = false;
  private closed = false;
  /** A host settlement arrived since the last time pending jobs ran. */
  private dirty = false;
  private wake?: () => void;
  /** A fault raised while settling a fetch outside the run's own call stack. */
  private fault?: unknown;
  private instanceHealthy = true;
  private durationMs?: number;

  private constructor(
    private readonly instance: Instance,
    private readonly script: string,
    private readonly limits: SandboxLimits,
    private readonly options: SandboxOptions,
  ) {
    this.deadline = this.started + limits.timeMs;
  }

  static async start(script: string, options: SandboxOptions): Promise<SandboxRun> {
    if (typeof script !== 'string') throw new TypeError('the integration script must be a string');
    if (typeof options?.fetch !== 'function') throw new TypeError('the sandbox needs a fetch function');
    const limits = resolveLimits(options.limits);
    return new SandboxRun(await acquireInstance(limits.memoryBytes), script, limits, options);
  }

  log(level: SandboxLog['level'], message: string): void {
    if (this.logs.length >= MAX_LOG_ENTRIES) {
      if (!this.logLimitReached) {
        this.logLimitReached = true;
        this.logs.push({ message: 'log limit reached', timestamp: this.timestamp(), level: 'warn' });
      }
      return;
    }
    const text = message.length > MAX_LOG_MESSAGE_CHARS ? message.slice(0, MAX_LOG_MESSAGE_CHARS - 1) + '…' : message;
    this.logs.push({ message: text, timestamp: this.timestamp(), level });
  }

  outcome<T>(fields: { ok: boolean; result?: T; error?: string }): SandboxOutcome<T> {
    const outcome: SandboxOutcome<T> = {
      ok: fields.ok,
      logs: this.logs,
      durationMs: this.durationMs ?? Math.round(performance.now() - this.started),
    };
    if (fields.result !== undefined) outcome.result = fields.result;
    if (fields.error !== undefined) outcome.error = fields.error;
    return outcome;
  }

  /** Evaluates the prelude and the script, then runs the driver for `kind`/`key` to its answer. */
  async execute(kind: 'event' | 'component', key: string, input: () => string): Promise<Answer> {
    let answer: Answer;
    try {
      answer = await this.drive(kind, key, input);
    } catch (error) {
      answer = this.faulted(error);
    }
    this.durationMs = Math.round(performance.now() - this.started);
    // QuickJS recovers from a failed allocation, but an instance whose heap was exhausted is not
    // worth the doubt: it is not reused.
    if (answer.kind === 'error' && answer.error === MEMORY_LIMIT_EXCEEDED) this.instanceHealthy = false;
    this.close();
    return answer;
  }

  private faulted(error: unknown): Answer {
    this.instanceHealthy = this.instanceHealthy && !isInstanceFault(error);
    if (isHostStackOverflow(error)) return { kind: 'error', error: STACK_OVERFLOW };
    if (error instanceof HeapExhausted) return { kind: 'error', error: MEMORY_LIMIT_EXCEEDED };
    return { kind: 'error', error: `sandbox failure: ${messageOf(error)}` };
  }

  private async drive(kind: 'event' | 'component', key: string, input: () => string): Promise<Answer> {
    let inputJson: string;
    try {
      inputJson = input();
    } catch (error) {
      return { kind: 'error', error: `the input is not JSON-serialisable: ${messageOf(error)}` };
    }
    const runtime = (this.runtime = this.instance.quickjs.newRuntime());
    runtime.setMemoryLimit(this.limits.memoryBytes);
    runtime.setMaxStackSize(this.limits.stackBytes);
    runtime.setInterruptHandler(() => {
      if (this.stopped || performance.now() > this.deadline) {
        this.interrupted ||= !this.stopped;
        return true;
      }
      return false;
    });
    const context = (this.context = runtime.newContext());

    const driver = this.prepare(context);
    if ('error' in driver) return { kind: 'error', error: driver.error };

    const evaluated = context.evalCode(this.script, SCRIPT_FILE, { type: 'global' });
    if (evaluated.error) return { kind: 'error', error: this.consumeError(evaluated.error, true) };
    evaluated.value.dispose();

    const args = [context.newString(kind), context.newString(key), context.newString(inputJson)];
    const called = context.callFunction(driver.handle, context.undefined, args);
    for (const arg of args) arg.dispose();
    if (called.error) return { kind: 'error', error: this.consumeError(called.error) };
    const promise = this.keep(called.value);

    for (;;) {
      this.dirty = false;
      const jobs = runtime.executePendingJobs();
      if (jobs.error) return { kind: 'error', error: this.consumeError(jobs.error) };
      if (this.interrupted) return { kind: 'error', error: TIME_LIMIT_EXCEEDED };
      const state = context.getPromiseState(promise);
      if (state.type === 'rejected') return { kind: 'error', error: this.consumeError(state.error) };
      if (state.type === 'fulfilled') {
        const value = state.value;
        try {
          return this.decode(context, value);
        } finally {
          if (value !== promise) value.dispose();
        }
      }
      if (this.inflight === 0 && !this.dirty) {
        return { kind: 'error', error: 'the script never finished: it awaits a promise that nothing will settle' };
      }
      const woke = await this.waitForHost();
      if (this.fault !== undefined) throw this.fault;
      if (!woke) return { kind: 'error', error: TIME_LIMIT_EXCEEDED };
    }
  }

  /** Installs the host functions and the prelude; answers the driver function's handle. */
  private prepare(context: QuickJSContext): { handle: QuickJSHandle } | { error: string } {
    const hostLog = context.newFunction('hostLog', (levelHandle, messageHandle) => {
      const level = context.typeof(levelHandle) === 'string' ? context.getString(levelHandle) : 'info';
      const message = context.typeof(messageHandle) === 'string' ? context.getString(messageHandle) : '';
      this.log(level === 'debug' || level === 'warn' || level === 'error' ? level : 'info', message);
    });
    const hostFetch = context.newFunction('hostFetch', (urlHandle, methodHandle, headersHandle, bodyHandle) =>
      this.startFetch(context, urlHandle, methodHandle, headersHandle, bodyHandle),
    );
    const limits = context.newObject();
    for (const [name, value] of [
      ['maxLogChars', MAX_LOG_MESSAGE_CHARS],
      ['maxResultChars', MAX_RESULT_BYTES],
    ] as const) {
      const handle = context.newNumber(value);
      context.setProp(limits, name, handle);
      handle.dispose();
    }
    try {
      const prelude = context.evalCode(SANDBOX_PRELUDE, 'sandbox-prelude.js', { type: 'global', strict: true });
      if (prelude.error) return { error: `sandbox failure: the prelude did not load (${this.consumeError(prelude.error)})` };
      const installed = context.callFunction(prelude.value, context.undefined, hostLog, hostFetch, limits);
      prelude.value.dispose();
      if (installed.error) return { error: `sandbox failure: the prelude did not run (${this.consumeError(installed.error)})` };
      return { handle: this.keep(installed.value) };
    } finally {
      hostLog.dispose();
      hostFetch.dispose();
      limits.dispose();
    }
  }

  /** The guest side of `fetch`: a promise the host settles when the injected fetch answers. */
  private startFetch(context: QuickJSContext, ...args: QuickJSHandle[]): QuickJSHandle {
    const deferred = context.newPromise();
    this.deferreds.add(deferred);
    const refuse = (message: string) => {
      const error = context.newError(message);
      deferred.reject(error);
      error.dispose();
      this.deferreds.delete(deferred);
      return deferred.handle;
    };
    if (++this.fetches > MAX_FETCHES_PER_RUN) return refuse(`fetch limit reached: a run may make at most ${MAX_FETCHES_PER_RUN} requests`);
    const [urlHandle, methodHandle, headersHandle, bodyHandle] = args;
    const text = (handle: QuickJSHandle | undefined) =>
      handle !== undefined && context.typeof(handle) === 'string' ? context.getString(handle) : undefined;
    const url = text(urlHandle);
    const method = text(methodHandle);
    const headersJson = text(headersHandle);
    const body = text(bodyHandle);
    if (url === undefined || method === undefined || headersJson === undefined) return refuse('fetch: invalid request');
    let headers: Record<string, string>;
    try {
      const parsed: unknown = JSON.parse(headersJson);
      if (!isPlainObject(parsed) || Object.values(parsed).some((value) => typeof value !== 'string'))
        return refuse('fetch: invalid headers');
      headers = parsed as Record<string, string>;
    } catch {
      return refuse('fetch: invalid headers');
    }

    let request: Promise<unknown>;
    try {
      request = Promise.resolve(this.options.fetch(url, body === undefined ? { method, headers } : { method, headers, body }));
    } catch (error) {
      request = Promise.reject(error);
    }
    this.inflight++;
    request.then(
      (response) => this.settleFetch(context, deferred, this.encodeResponse(response)),
      (error: unknown) => this.settleFetch(context, deferred, { error: messageOf(error) }),
    );
    return deferred.handle;
  }

  private encodeResponse(response: unknown): { json: string } | { error: string } {
    const invalid = { error: 'fetch: the host answered with an invalid response' };
    if (!isPlainObject(response)) return invalid;
    const { status, headers, body } = response;
    if (typeof status !== 'number' || !Number.isInteger(status) || typeof body !== 'string') return invalid;
    if (!isPlainObject(headers) || Object.values(headers).some((value) => typeof value !== 'string')) return invalid;
    const json = JSON.stringify({ status, headers, body });
    if (json.length > this.limits.memoryBytes / 2) return { error: 'fetch: the response is too large for the sandbox memory limit' };
    return { json };
  }

  private settleFetch(context: QuickJSContext, deferred: QuickJSDeferredPromise, settlement: { json: string } | { error: string }): void {
    this.inflight--;
    if (this.closed) return;
    try {
      if ('json' in settlement) {
        const value = context.newString(settlement.json);
        deferred.resolve(value);
        value.dispose();
      } else {
        const error = context.newError(settlement.error);
        deferred.reject(error);
        error.dispose();
      }
    } catch (error) {
      this.fault ??= error;
    }
    this.deferreds.delete(deferred);
    this.dirty = true;
    this.wake?.();
  }

  /** Waits for a fetch to settle (true) or for the deadline (false). */
  private waitForHost(): Promise<boolean> {
    if (this.dirty) return Promise.resolve(true);
    const remaining = this.deadline - performance.now();
    if (remaining <= 0) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve(false);
      }, Math.ceil(remaining));
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve(true);
      };
    });
  }

  /** The script's answer, from the driver's JSON text. */
  private decode(context: QuickJSContext, handle: QuickJSHandle): Answer {
    if (context.typeof(handle) !== 'string')
      return { kind: 'error', error: 'sandbox failure: the driver answered with something other than text' };
    const text = context.getString(handle);
    if (Buffer.byteLength(text, 'utf8') > MAX_RESULT_BYTES + 64) return { kind: 'error', error: tooLarge() };
    let envelope: unknown;
    try {
      envelope = JSON.parse(text);
    } catch {
      return { kind: 'error', error: 'sandbox failure: the driver answered with malformed JSON' };
    }
    if (!isPlainObject(envelope)) return { kind: 'error', error: 'sandbox failure: the driver answered with malformed JSON' };
    switch (envelope.kind) {
      case 'none':
        return { kind: 'none' };
      case 'too-large':
        return { kind: 'error', error: tooLarge() };
      case 'error':
        return { kind: 'error', error: describeScriptError(String(envelope.name ?? ''), String(envelope.message ?? '')) };
      case 'value': {
        if (envelope.value !== undefined && Buffer.byteLength(JSON.stringify(envelope.value), 'utf8') > MAX_RESULT_BYTES)
          return { kind: 'error', error: tooLarge() };
        return { kind: 'value', value: envelope.value };
      }
      default:
        return { kind: 'error', error: 'sandbox failure: the driver answered with an unknown kind' };
    }
  }

  /** Reads an error handle the sandbox raised (and disposes of it) into the run's error text. */
  private consumeError(handle: QuickJSHandle, atEvaluation = false): string {
    this.stopped = true; // any getter the reading below may run is interrupted at once
    const context = this.context!;
    try {
      if (this.interrupted) return TIME_LIMIT_EXCEEDED;
      const type = context.typeof(handle);
      if (type !== 'object') {
        const value: unknown = context.dump(handle);
        return describeScriptError('', typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)));
      }
      const read = (name: string): string => {
        const property = context.getProp(handle, name);
        try {
          return context.typeof(property) === 'string' ? context.getString(property) : '';
        } finally {
          property.dispose();
        }
      };
      const name = read('name');
      const message = read('message');
      const described = describeScriptError(name, message);
      if (atEvaluation && name === 'SyntaxError') {
        const at = new RegExp(`${SCRIPT_FILE.replace('.', '\\.')}:(\\d+)(?::(\\d+))?`).exec(read('stack'));
        if (at) return `${described} (line ${at[1]}${at[2] ? `, column ${at[2]}` : ''})`;
      }
      return described;
    } finally {
      handle.dispose();
    }
  }

  private keep(handle: QuickJSHandle): QuickJSHandle {
    this.handles.push(handle);
    return handle;
  }

  /** Disposes of the context and runtime; the instance goes back to the pool only if all went well. */
  private close(): void {
    this.stopped = true;
    this.closed = true;
    this.wake?.();
    if (this.fault !== undefined) this.instanceHealthy &&= !isInstanceFault(this.fault);
    if (this.instanceHealthy) {
      try {
        for (const deferred of this.deferreds) deferred.dispose();
        for (const handle of this.handles) if (handle.alive) handle.dispose();
        this.context?.dispose();
        this.runtime?.dispose();
      } catch {
        this.instanceHealthy = false;
      }
    }
    this.deferreds.clear();
    this.handles.length = 0;
    // A faulted instance is abandoned without touching it again; the garbage collector reclaims it.
    if (this.instanceHealthy) releaseInstance(this.instance);
  }

  private timestamp(): string {
    return (this.options.now?.() ?? new Date()).toISOString();
  }
}

function tooLarge(): string {
  return `result too large: over ${MAX_RESULT_BYTES} bytes of JSON`;
}
