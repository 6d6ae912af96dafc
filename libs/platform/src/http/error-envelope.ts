import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ArgumentsHost, Catch, HttpException, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DomainError } from '../errors';
import { log } from '../logging';

/** The one error shape of the API. */
export interface ErrorBody {
  error: { code: number; message: string; [member: string]: unknown };
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
  if (error instanceof DomainError) {
    const response = envelope(error.status, error.message);
    // Details never replace the envelope's own members.
    if (error.details) response.body.error = { ...error.details, code: error.status, message: error.message };
    return response;
  }
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
          ? (response as { message: string[] }).message.join('; ')
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
    case 'StorageFullError':
      return envelope(507, 'the server has no space left to store this write; nothing was stored');
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

/** What Node's HTTP parser reports (its `clientError` event), as a status and a message. */
export function clientErrorOf(code: string | undefined): { status: number; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, message: 'the request line and headers are too large' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, message: 'the chunk extensions of the request body are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'the request did not arrive in time' };
    default:
      return { status: 400, message: 'the request is not valid HTTP/1.1' };
  }
}

/** A whole HTTP/1.1 response carrying the envelope, for answers written to the socket before any request object exists. */
export function rawErrorResponse(status: number, message: string, requestId: string): string {
  const body = JSON.stringify({ error: { code: status, message } } satisfies ErrorBody);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
    `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`
  );
}

/**
 * Fastify's `clientErrorHandler`: what the HTTP parser refuses (malformed requests, over-long
 * request lines or headers, slow requests) is answered in the envelope too, then the connection is
 * closed, as the parser's state is unknown.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex, requestId: string): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, message } = clientErrorOf(error.code);
  // Written then destroyed, as Node and Fastify do: small enough to leave in one write.
  if (socket.writable) socket.write(rawErrorResponse(status, message, requestId));
  socket.destroy();
}
