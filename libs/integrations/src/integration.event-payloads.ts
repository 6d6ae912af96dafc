/**
 * Integration events as integrations receive them, read and delivered alike: the platform's
 * `Event` (what its runtime types describe) for the platform's types, and the same base members
 * (`eventId`, `type`, `installationId`, `spaceId`) for the service's extensions
 * (EXTENSION_EVENT_TYPES). The read model keeps what derivation made, users by id; events derived
 * before these shapes are read into them here:
 * - members that are null are left out (`previous: null` of a first setup, `pageId: null`, …);
 * - `space_content_updated.updatedBy`, a user id or null once, then a list of ids, becomes the
 *   list of those users (those who still exist), as the platform's User;
 * - the `*_deleted` events always have `previous` (`{}` when the configuration before is unknown);
 * - `comment_reply_created` names the reply `commentReplyId` (once `replyId`);
 * - `site_view` always has `referrer` and a `visitor` with `anonymousId`, `cookies`, `userAgent`
 *   and `ip` (empty for views recorded before they were kept: nothing is known of them).
 */

/** A user as events name them: the platform's User, without the email address (integrations are told who, not how to reach them). */
export interface EventUser {
  object: 'user';
  id: string;
  displayName: string;
  photoURL?: string;
  urls: { location: string };
}

/** A payload as the read model keeps it. */
export interface StoredPayload {
  eventId: string;
  type: string;
  installationId: string;
  [member: string]: unknown;
}

const DELETED_TYPES = new Set(['installation_deleted', 'space_installation_deleted', 'site_installation_deleted']);

/** The user ids `updatedBy` holds, whichever way it was kept. */
function updaterIds(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
}

/** The ids of the users a payload names (to look them up in one batch). */
export function usersNamedBy(payload: StoredPayload): string[] {
  return payload.type === 'space_content_updated' ? updaterIds(payload.updatedBy) : [];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** The event an integration receives for a stored payload; `users` has the users it names (those missing no longer exist). */
export function presentedEvent(payload: StoredPayload, users: ReadonlyMap<string, EventUser>): Record<string, unknown> {
  const event: Record<string, unknown> = {};
  for (const [member, value] of Object.entries(payload)) if (value !== null && value !== undefined) event[member] = value;
  switch (payload.type) {
    case 'space_content_updated':
      event.updatedBy = updaterIds(payload.updatedBy).flatMap((id) => users.get(id) ?? []);
      break;
    case 'comment_reply_created':
      if (event.commentReplyId === undefined && typeof event.replyId === 'string') event.commentReplyId = event.replyId;
      delete event.replyId;
      break;
    case 'site_view': {
      const visitor = isObject(payload.visitor) ? payload.visitor : {};
      event.visitor = {
        ...visitor,
        anonymousId: text(visitor.anonymousId),
        cookies: isObject(visitor.cookies) ? visitor.cookies : {},
        userAgent: text(visitor.userAgent),
        ip: text(visitor.ip),
      };
      event.referrer = text(payload.referrer);
      break;
    }
    default:
      if (DELETED_TYPES.has(payload.type) && !isObject(event.previous)) event.previous = {};
  }
  return event;
}

/** The user as events name it, from the user object identity presents. */
export function eventUser(user: { id: string; displayName: string; photoURL?: string; urls: { location: string } }): EventUser {
  const named: EventUser = { object: 'user', id: user.id, displayName: user.displayName, urls: { location: user.urls.location } };
  if (user.photoURL) named.photoURL = user.photoURL;
  return named;
}
