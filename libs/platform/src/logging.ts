import { AsyncLocalStorage } from 'node:async_hooks';
import type { LoggerService } from '@nestjs/common';
import pino, { type Logger } from 'pino';

/** The request a log line belongs to; every line logged while serving it carries its id. */
export const requestContext = new AsyncLocalStorage<{ requestId: string }>();

/**
 * Structured JSON logs on stdout. The mixin adds the current request id to every line, from any
 * depth of the call stack, without passing it around.
 */
export let log: Logger = createLogger(process.env.LOG_LEVEL ?? 'info');

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: process.env.SERVICE_NAME ?? 'docs-platform' },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: () => {
      const context = requestContext.getStore();
      return context ? { requestId: context.requestId } : {};
    },
    formatters: { level: (label) => ({ level: label }) },
  });
}

export function configureLogging(level: string): Logger {
  log = createLogger(level);
  return log;
}

/** Nest's own messages (module wiring, warnings) as JSON lines too. */
export class JsonNestLogger implements LoggerService {
  log(message: unknown, context?: string): void {
    log.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string): void {
    log.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string): void {
    log.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string): void {
    log.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string): void {
    log.trace({ context }, String(message));
  }
}
