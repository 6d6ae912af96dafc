/** What a sandboxed run is given and answers: its limits, options, outcome, and the errors it reports. */

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

export function resolveLimits(partial: Partial<SandboxLimits> | undefined): SandboxLimits {
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
