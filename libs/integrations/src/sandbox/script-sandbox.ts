/**
 * Runs an integration's untrusted `script` in a QuickJS (WebAssembly) sandbox: one fresh runtime and
 * context per run, disposed afterwards, with a time, memory and stack limit; values cross the
 * boundary only as JSON text. The script API, the globals and the limits: docs/api/integration-scripts.md.
 * Here the entry points; a run is in sandbox-run.ts, the WebAssembly instances in sandbox-instances.ts,
 * limits and outcomes in sandbox-types.ts.
 */
import { SandboxRun, isPlainObject } from './sandbox-run';
import type { ComponentRequest, SandboxOptions, SandboxOutcome } from './sandbox-types';

export {
  DEFAULT_SANDBOX_LIMITS,
  MAX_FETCHES_PER_RUN,
  MAX_LOG_ENTRIES,
  MAX_LOG_MESSAGE_CHARS,
  MAX_RESULT_BYTES,
  MAX_STACK_BYTES,
  MEMORY_LIMIT_EXCEEDED,
  STACK_OVERFLOW,
  TIME_LIMIT_EXCEEDED,
  type ComponentRequest,
  type SandboxFetch,
  type SandboxLimits,
  type SandboxLog,
  type SandboxOptions,
  type SandboxOutcome,
} from './sandbox-types';

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
