import type { FastifyInstance } from 'fastify';
import { ApiError } from './error-envelope';
import { jsonValueProblem } from './input-text';

/**
 * How deeply arrays and objects may nest in a JSON body. No request of the API needs more than a
 * handful of levels; past a few thousand, the recursive transformation and validation of DTOs
 * overflow the stack (a 500) after holding the event loop for a second.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, in one pass over the text:
 * brackets inside strings do not count (a quote preceded by an odd run of backslashes is escaped).
 * It does not validate: text it passes still goes through JSON.parse.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (;;) {
        const close = text.indexOf('"', i + 1);
        if (close === -1) return false; // unterminated string: JSON.parse refuses the text
        let backslashes = 0;
        for (let j = close - 1; text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
        i = close;
        if (backslashes % 2 === 0) break;
      }
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}

/**
 * A JSON request body, or a 400 naming what is wrong: empty, nested deeper than `maxDepth` (checked
 * before parsing, so the cost is linear in the body's size), not JSON, not an object, or holding
 * text that breaks the input text rule or a member named like a prototype member (input-text.ts).
 */
export function parseJsonBody(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  if (text === '') throw new ApiError(400, 'the request body is empty but Content-Type is application/json');
  if (jsonDepthExceeds(text, maxDepth))
    throw new ApiError(400, `the request body nests arrays and objects more than ${maxDepth} levels deep`);
  let value: unknown;
  try {
    // A leading byte order mark is tolerated, as Fastify's own parser does.
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    throw new ApiError(400, 'the request body is not valid JSON');
  }
  // Every body of the API is an object; `null` would otherwise pass for an empty body.
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ApiError(400, 'the request body must be a JSON object');
  const problem = jsonValueProblem(value);
  if (problem !== null) throw new ApiError(400, problem);
  return value;
}

/** Replaces Fastify's JSON parser with parseJsonBody; the body limit (413) and media types (415) stay Fastify's. */
export function registerJsonBodyParser(fastify: FastifyInstance, maxDepth = MAX_JSON_DEPTH): void {
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    let value: unknown;
    try {
      value = parseJsonBody(body as string, maxDepth);
    } catch (error) {
      return done(error as Error, undefined);
    }
    done(null, value);
  });
}
