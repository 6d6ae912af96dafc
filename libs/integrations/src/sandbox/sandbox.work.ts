import { untrustedTask } from '#platform/untrusted-work/untrusted-work';
import { scriptFetch, type ScriptFetchPolicy } from './script-fetch';
import { renderComponent, runEventHandler, type ComponentRequest, type SandboxLimits, type SandboxOutcome } from './script-sandbox';

/**
 * Integration scripts as tasks of the untrusted-work pool: a script computes for up to its time
 * limit, which would hold the thread that answers requests; on a worker thread it holds only that
 * thread. Loaded inside the worker: plain modules only (the sandbox, the guarded fetch).
 *
 * What crosses the threads is plain data: the script's text, its input, its limits and where its
 * fetch may go (the thread builds the fetch itself); the sandbox's outcome comes back as it is.
 */

export interface ScriptRun {
  script: string;
  fetch: ScriptFetchPolicy;
  limits?: Partial<SandboxLimits>;
}

export interface EventHandlerRun extends ScriptRun {
  event: { type: string; [member: string]: unknown };
  context: Record<string, unknown>;
}

export interface ComponentRenderRun extends ScriptRun {
  request: ComponentRequest;
}

export type RenderedComponent = { element: unknown; state: Record<string, unknown> };

export function runEventHandlerTask(input: EventHandlerRun): Promise<SandboxOutcome<unknown>> {
  return runEventHandler(input.script, input.event, input.context, sandboxOptions(input));
}

export function renderComponentTask(input: ComponentRenderRun): Promise<SandboxOutcome<RenderedComponent>> {
  return renderComponent(input.script, input.request, sandboxOptions(input));
}

function sandboxOptions(run: ScriptRun) {
  return {
    fetch: scriptFetch(run.fetch.contentSecurityPolicy, run.fetch.allowPrivateNetworks),
    ...(run.limits ? { limits: run.limits } : {}),
  };
}

export const RUN_EVENT_HANDLER = untrustedTask<EventHandlerRun, SandboxOutcome<unknown>>(
  __filename,
  'runEventHandlerTask',
  'running an integration script',
);
export const RENDER_COMPONENT = untrustedTask<ComponentRenderRun, SandboxOutcome<RenderedComponent>>(
  __filename,
  'renderComponentTask',
  'rendering an integration component',
);
