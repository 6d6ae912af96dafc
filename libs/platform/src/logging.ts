import type { LoggerService } from '@nestjs/common';
import pino, { type Logger } from 'pino';

/** What replaces a secret in a log line. */
export const REDACTED = '[redacted]';

/**
 * Query parameters whose values are credentials, by name (case-insensitive, percent-decoded): share
 * keys, visitor tokens (`jwt_token`), signatures of download URLs, tokens, keys, secrets, passwords,
 * OAuth codes, SAML messages and their RelayState. A few harmless names match too; a log loses little.
 */
const CREDENTIAL_PARAMETER = /token|secret|passw|signature|credential|session|key|^sig$|^code$|saml|relaystate|^auth(?:orization)?$/i;

/**
 * A query parameter anywhere in a text (a URL in a message, a stack, or a JSON log line): `?name=`
 * or `&name=`, then its value up to the next `&`, whitespace or unescaped `"`. A JSON escape inside the
 * value (`\"`, `\\`) is part of it; an escaped line break (`\n`, as stacks have) ends it.
 */
const QUERY_PARAMETER = /([?&])([^=&?#\s"\\]{1,256})=((?:[^&\s"\\]|\\[^nrt])*)/g;

/** This service's bearer tokens (`newSecret`): a recognisable prefix, then 32 random bytes in base64url. */
const SERVICE_TOKEN = /\bdp[at]_[A-Za-z0-9_-]{20,}/g;

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** Whether a query parameter of this name carries a credential (its value is never logged). */
export function isCredentialParameter(name: string): boolean {
  return CREDENTIAL_PARAMETER.test(decodedName(name));
}

/**
 * The text with the values of credential-like query parameters replaced by `[redacted]` (also inside a
 * URL nested in another parameter's value), and this service's bearer tokens too. Applied to every log
 * line as written, so no URL (request logs, error messages, stacks) carries a secret to the logs.
 */
export function redactSecrets(text: string): string {
  const withoutParameters = text.includes('=') ? text.replace(QUERY_PARAMETER, redactParameter) : text;
  return withoutParameters.includes('_') ? withoutParameters.replace(SERVICE_TOKEN, REDACTED) : withoutParameters;
}

function redactParameter(_whole: string, separator: string, name: string, value: string): string {
  if (isCredentialParameter(name)) return `${separator}${name}=${REDACTED}`;
  return `${separator}${name}=${value.includes('=') ? redactSecrets(value) : value}`;
}

/** Credential headers, wherever a logged object might carry headers. */
const SECRET_HEADERS = ['authorization', 'cookie', '["set-cookie"]', '["proxy-authorization"]', '["x-api-key"]'];
const HEADER_PATHS = [
  'headers',
  'req.headers',
  'request.headers',
  'res.headers',
  'reply.headers',
  'err.headers',
  'err.config.headers',
].flatMap((headers) => SECRET_HEADERS.map((header) => (header.startsWith('[') ? `${headers}${header}` : `${headers}.${header}`)));

/**
 * Structured JSON logs on stdout. Lines about a request carry its `requestId`, passed explicitly
 * (the request log line, errors, and anything logged on behalf of a caller, whose `Caller` holds
 * it). An AsyncLocalStorage would spare that, but its promise hooks cost ~5% of every request.
 */
export let log: Logger = createLogger(process.env.LOG_LEVEL ?? 'info');

/** `destination`: where lines go (stdout when absent; tests capture them). */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: process.env.SERVICE_NAME ?? 'docs-platform' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    // Headers are never logged; should an object carrying them be, these paths are censored.
    redact: { paths: HEADER_PATHS, censor: REDACTED },
    // Every line, whatever logged it (the request log, errors, Nest), leaves without credentials in URLs.
    hooks: { streamWrite: redactSecrets },
  };
  return destination ? pino(options, destination) : pino(options);
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
