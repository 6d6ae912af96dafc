import type { LoggerService } from '@nestjs/common';
import pino, { type Logger } from 'pino';

/**
 * Structured JSON logs on stdout. Lines about a request carry its `requestId`, passed explicitly
 * (the request log line, errors, and anything logged on behalf of a caller, whose `Caller` holds
 * it). An AsyncLocalStorage would spare that, but its promise hooks cost ~5% of every request.
 */
export let log: Logger = createLogger(process.env.LOG_LEVEL ?? 'info');

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: process.env.SERVICE_NAME ?? 'docs-platform' },
    timestamp: pino.stdTimeFunctions.isoTime,
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
