import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * An opaque random id: 20 base-62 characters (about 119 bits), generated on the command side.
 * Ids carry no meaning and no order; callers never parse them.
 */
export function newId(length = 20): string {
  const bytes = randomBytes(length * 2);
  let id = '';
  for (let i = 0; i < bytes.length && id.length < length; i++) {
    // 62 * 4 = 248: bytes at or above it are dropped so every character is equally likely.
    if (bytes[i] < 248) id += ALPHABET[bytes[i] % 62];
  }
  return id.length === length ? id : newId(length);
}

/** A secret for bearer tokens: 32 random bytes, base64url, with a recognisable prefix. */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/**
 * A loose id shape for ids inside bodies and queries. Path ids are checked against the exact shape
 * of their kind (ID_SHAPES) instead.
 */
export const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** The exact shapes of the ids the service generates, by kind. */
export const ID_SHAPES = {
  /** `newId()`: organizations, users, tokens, teams, spaces, collections, invites, SAML providers. */
  entity: /^[0-9A-Za-z]{20}$/,
  /** `newId(32)`: share keys of share links. */
  shareKey: /^[0-9A-Za-z]{32}$/,
  /** A change request in a path: its id, or its number in the space. */
  changeRequest: /^(?:[0-9A-Za-z]{20}|[1-9][0-9]{0,8})$/,
  /** An OpenAPI spec's slug in a path: the interface's slug pattern, 1..100 characters. */
  openapiSlug: /^(?=[a-z0-9-]{1,100}$)[a-z0-9]+(?:-[a-z0-9]+)*$/,
  /** Event ids (audit event ids): UUIDs, which both event stores require. */
  event: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
} as const;
export type IdKind = keyof typeof ID_SHAPES;
