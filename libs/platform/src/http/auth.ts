import { createHash } from 'node:crypto';
import { createParamDecorator, Injectable, SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from './error-envelope';

/** The embedded user object of the platform's API, minus `urls`, which callers add. */
export interface UserSummary {
  id: string;
  displayName: string;
  email: string;
  photoURL: string | null;
}

/**
 * Who is calling: a user through one of their tokens, the administrator through ADMIN_TOKEN, or
 * the service itself acting on a verified outside event (a SAML login). The guard never produces
 * `system`; code that acts on its own behalf does.
 */
export type Caller =
  | { kind: 'user'; userId: string; tokenId: string; user: UserSummary; requestId?: string }
  | { kind: 'admin'; requestId?: string }
  | { kind: 'system'; id: string; label: string; requestId?: string };

/** Event metadata's actor (docs/architecture.md, Messages and streams). */
export interface Actor {
  type: 'user' | 'integration' | 'system';
  id: string;
  label: string;
}

export function actorOf(caller: Caller): Actor {
  switch (caller.kind) {
    case 'admin':
      return { type: 'system', id: 'admin', label: 'Administrator' };
    case 'system':
      return { type: 'system', id: caller.id, label: caller.label };
    case 'user':
      return { type: 'user', id: caller.userId, label: caller.user.displayName };
  }
}

/** Tokens are stored only as SHA-256 hashes; this is the one place that hashes them. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Looks a token hash up; implemented by the identity context. */
export interface TokenVerifier {
  verify(tokenHash: string): Promise<Extract<Caller, { kind: 'user' }> | null>;
}
export const TOKEN_VERIFIER = Symbol('TOKEN_VERIFIER');

const PUBLIC = 'auth:public';
const ADMIN_ONLY = 'auth:admin';
/** No token needed (health, docs, SAML endpoints). */
export const Public = () => SetMetadata(PUBLIC, true);
/** Only ADMIN_TOKEN (the `/v1/admin/*` extensions). */
export const AdminOnly = () => SetMetadata(ADMIN_ONLY, true);

/**
 * What the front door (front-door.ts) found out about a request before routing reached a handler:
 * `caller` when a valid token was sent, `tokenRejected` when a token was sent but is unknown or revoked.
 */
export interface AuthenticatedRequest {
  id: string;
  headers: Record<string, string | string[] | undefined>;
  caller: Caller | null;
  tokenRejected: boolean;
}

/**
 * Every route needs `Authorization: Bearer <token>` unless marked @Public: 401 otherwise.
 * ADMIN_TOKEN authorizes only @AdminOnly routes; user tokens everything else. The token itself
 * was verified by the front door; this guard only applies the route's rule, synchronously.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  /** Route metadata read once per handler: reflect-metadata lookups on every request add up. */
  private readonly access = new WeakMap<Function, { isPublic: boolean; adminOnly: boolean }>();

  private accessOf(context: ExecutionContext): { isPublic: boolean; adminOnly: boolean } {
    const handler = context.getHandler();
    let access = this.access.get(handler);
    if (!access) {
      const targets = [handler, context.getClass()];
      access = {
        isPublic: Boolean(this.reflector.getAllAndOverride<boolean>(PUBLIC, targets)),
        adminOnly: Boolean(this.reflector.getAllAndOverride<boolean>(ADMIN_ONLY, targets)),
      };
      this.access.set(handler, access);
    }
    return access;
  }

  canActivate(context: ExecutionContext): boolean {
    const { isPublic, adminOnly } = this.accessOf(context);
    if (isPublic) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const caller = request.caller;
    if (!caller) {
      if (request.tokenRejected)
        throw new ApiError(401, 'invalid or revoked token', { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
      throw new ApiError(401, 'missing bearer token: send Authorization: Bearer <token>', { 'WWW-Authenticate': 'Bearer' });
    }
    if (caller.kind === 'admin') {
      if (!adminOnly) throw new ApiError(403, 'the admin token only authorizes /v1/admin routes; use a user token');
    } else if (adminOnly) {
      throw new ApiError(403, 'this route needs the admin token');
    }
    return true;
  }
}

export function bearerToken(header: string | string[] | undefined): string | null {
  if (typeof header !== 'string') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}

/** The authenticated caller of the current request. */
export const CurrentCaller = createParamDecorator((_: unknown, context: ExecutionContext): Caller => {
  const caller = context.switchToHttp().getRequest<AuthenticatedRequest>().caller;
  if (!caller) throw new ApiError(401, 'not authenticated');
  return caller;
});

/** The caller as a user; the admin token is refused (403) on user routes by the guard already. */
export function userOf(caller: Caller): Extract<Caller, { kind: 'user' }> {
  if (caller.kind !== 'user') throw new ApiError(403, 'this route needs a user token');
  return caller;
}

/** On a @Public route: the caller when the request carried a valid token, else undefined. */
export const OptionalCaller = createParamDecorator(
  (_: unknown, context: ExecutionContext): Caller | undefined =>
    context.switchToHttp().getRequest<AuthenticatedRequest>().caller ?? undefined,
);
