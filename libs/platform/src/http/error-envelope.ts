import { ArgumentsHost, Catch, HttpException, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DomainError } from '../errors';
import { log } from '../logging';

/** The one error shape of the API (DESIGN section 6). */
export interface ErrorBody {
  error: { code: number; message: string };
}

export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  headers?: Record<string, string>;
}

/** An HTTP error raised by the platform itself (auth, rate limit, preconditions), with optional headers. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'the request body is too large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'the request body must be JSON (Content-Type: application/json)',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'the request body is empty but Content-Type is application/json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'the request body is not valid JSON',
  FST_ERR_BAD_URL: 'the request URL is malformed',
  FST_ERR_MAX_PARAM_LENGTH: 'a path segment of the request URL is too long',
};

/**
 * Maps anything thrown while serving a request to the envelope. Store and domain errors are
 * recognised by name so the platform does not depend on every library; anything unknown is a
 * 500 that shows no internals.
 */
export function toErrorResponse(error: unknown): ErrorResponse {
  const envelope = (status: number, message: string, headers?: Record<string, string>): ErrorResponse => ({
    status,
    body: { error: { code: status, message } },
    ...(headers ? { headers } : {}),
  });
  if (error instanceof ApiError) return envelope(error.status, error.message, error.headers);
  if (error instanceof DomainError) return envelope(error.status, error.message);
  if (error instanceof HttpException) {
    // Nest wraps Fastify's own 4xx errors (body parsing, media type) and keeps the original as the cause.
    const cause = error.cause as { code?: string } | undefined;
    if (cause?.code && cause.code in FASTIFY_MESSAGES) return envelope(error.getStatus(), FASTIFY_MESSAGES[cause.code]);
    const status = error.getStatus();
    const response = error.getResponse();
    const message =
      typeof response === 'string'
        ? response
        : Array.isArray((response as { message?: unknown }).message)
          ? ((response as { message: string[] }).message).join('; ')
          : String((response as { message?: unknown }).message ?? error.message);
    return envelope(status, status === 404 && /^Cannot /.test(message) ? `no route ${message.slice(7)}` : message);
  }
  const named = error as { name?: string; code?: string; statusCode?: number; message?: string };
  switch (named?.name) {
    case 'WrongExpectedRevisionError':
      return envelope(409, 'the resource was changed concurrently; retry the request');
    case 'DuplicateKeyError':
      return envelope(409, 'a resource with the same unique value already exists');
    case 'ReadStoreInputError':
    case 'EventStoreInputError':
      return envelope(400, named.message ?? 'invalid input');
    case 'EventStoreUnavailableError':
    case 'ReadStoreUnavailableError':
    case 'BlobStoreUnavailableError':
      return envelope(503, 'a store is unavailable; retry later', { 'Retry-After': '5' });
  }
  if (named?.code && named.code in FASTIFY_MESSAGES) {
    return envelope(named.statusCode ?? 400, FASTIFY_MESSAGES[named.code]);
  }
  if (named?.code?.startsWith('FST_ERR') && typeof named.statusCode === 'number' && named.statusCode < 500) {
    return envelope(named.statusCode, named.message ?? 'invalid request');
  }
  if (named instanceof SyntaxError || (named?.statusCode === 400 && named?.name === 'SyntaxError')) {
    return envelope(400, 'the request body is not valid JSON');
  }
  return envelope(500, 'internal error');
}

/** Sends a mapped error; unexpected ones (5xx other than deliberate ApiErrors such as 503 "starting") are logged with their stack, never returned. */
export function sendError(reply: FastifyReply, error: unknown, requestId?: string): void {
  const { status, body, headers } = toErrorResponse(error);
  if (status >= 500 && !(error instanceof ApiError)) log.error({ err: error, requestId }, 'request failed');
  if (headers) void reply.headers(headers);
  void reply.status(status).type('application/json; charset=utf-8').send(body);
}

/** Every exception Nest sees while handling a route goes through the envelope. */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<{ id?: string }>();
    sendError(reply, exception, request?.id);
  }
}
