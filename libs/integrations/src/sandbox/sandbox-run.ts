/** One run of a script in its sandbox: the prelude and the script evaluated, its driver run, fetches served, its answer decoded. */
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten';
import { SANDBOX_PRELUDE } from './sandbox-prelude';
import { acquireInstance, HeapExhausted, isInstanceFault, releaseInstance, type Instance } from './sandbox-instances';
import {
  MAX_FETCHES_PER_RUN,
  MAX_LOG_ENTRIES,
  MAX_LOG_MESSAGE_CHARS,
  MAX_RESULT_BYTES,
  MEMORY_LIMIT_EXCEEDED,
  resolveLimits,
  STACK_OVERFLOW,
  TIME_LIMIT_EXCEEDED,
  type SandboxLimits,
  type SandboxLog,
  type SandboxOptions,
  type SandboxOutcome,
} from './sandbox-types';

export type Answer = { kind: 'value'; value: unknown } | { kind: 'none' } | { kind: 'error'; error: string };

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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

const SCRIPT_FILE = 'integration.js';

export class SandboxRun {
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
