import { createHash } from 'node:crypto';
import type { ChangeRequestEvent } from '#changerequests';
import type { CommentEvent } from '#comments';
import type { ContentEvent } from '#content';
import type { SpaceEvent } from '#spaces';
import type { InstallationEvent, SiteViewEvent } from './integration.events';
import { placeIdMember, placeOf, type PlaceSetEvent } from './integration.places';

/**
 * Integration events: what an installation is told, derived from the domain events of the log by
 * pure rules, so that a rebuild derives the same events with the same ids. Each is shaped as the
 * platform's runtime reads it (its `Event` schema: `eventId`, `type`, `installationId` and the
 * type's members; absent rather than null). Types (docs in docs/api/integrations.md, "Integration
 * events"):
 * - installation_setup, installation_deleted, space_installation_setup, space_installation_deleted,
 *   site_installation_setup, site_installation_deleted (the installation's own changes);
 * - site_view (a reader viewed a page of a published site: integrations with the scope
 *   `site:views:read` only), derived here only from views in logs written before views left the
 *   log; new views are delivered from memory (integration.site-views.ts);
 * - space_content_updated (every new main revision, merges included; and a new version of an
 *   OpenAPI spec the space's content uses, with `dependency` saying which), space_visibility_updated;
 * - the service's extensions, shaped like the platform's space events (`spaceId` besides the base
 *   members) and received only by installations holding `space:content:read`
 *   (EXTENSION_EVENT_TYPES): change_request_created, change_request_status_updated,
 *   change_request_merged, comment_created, comment_reply_created, comment_resolved.
 */
export type SourceEvent = InstallationEvent | ContentEvent | SpaceEvent | ChangeRequestEvent | CommentEvent | SiteViewEvent;

/** The scope an integration is published with to receive `site_view` (the platform's name for it). */
export const SITE_VIEWS_SCOPE = 'site:views:read';

/**
 * Event types of this service that the platform does not define: activity on a space's change
 * requests and comments. They go only to installations holding SPACE_CONTENT_SCOPE (what they tell
 * is the space's content), so an integration that asked for no such scope receives only the
 * platform's own types, which its runtime types describe.
 */
export const EXTENSION_EVENT_TYPES: ReadonlySet<string> = new Set([
  'change_request_created',
  'change_request_status_updated',
  'change_request_merged',
  'comment_created',
  'comment_reply_created',
  'comment_resolved',
]);
export const SPACE_CONTENT_SCOPE = 'space:content:read';

/** A derived event before it is addressed: its type and payload members (besides `eventId`, `type`, `installationId`). */
export interface Derived {
  type: string;
  members: Record<string, unknown>;
}

/** The space a source event concerns (for the installations concerned), or null for installation events and others. */
export function spaceOf(event: SourceEvent): { spaceId: string; organizationId: string } | null {
  switch (event.type) {
    case 'ContentRevisionCreated':
    case 'ContentDependencyUpdated':
    case 'SpaceUpdated':
    case 'SpaceMoved':
    case 'ChangeRequestCreated':
    case 'ChangeRequestStatusChanged':
    case 'ChangeRequestMerged':
    case 'CommentPosted':
    case 'CommentReplyPosted':
    case 'CommentResolved':
      return { spaceId: event.data.spaceId, organizationId: event.data.organizationId };
    default:
      return null;
  }
}

/** The members given, without those that are null or undefined: the platform's events leave out what they do not have. */
function present(members: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(members).filter(([, value]) => value !== null && value !== undefined));
}

/**
 * The integration events a space event makes, given the space's visibility before it (null when
 * unknown: a visibility change whose previous value is unknown is not told, the platform's event
 * has it). `updatedBy` holds user ids here: they are presented as the platform's users when the
 * event is read or delivered (integration.event-payloads.ts).
 */
export function deriveSpaceEvents(event: SourceEvent, previousVisibility: string | null): Derived[] {
  switch (event.type) {
    case 'ContentRevisionCreated':
      return [
        {
          type: 'space_content_updated',
          members: {
            spaceId: event.data.spaceId,
            revisionId: event.data.revisionId,
            updatedBy: event.data.createdBy === null ? [] : [event.data.createdBy],
          },
        },
      ];
    case 'ContentDependencyUpdated': {
      // No new revision, and nobody edited it: the head's pages show the spec's new version.
      const { spaceId, revisionId, dependency, versionId } = event.data;
      return [
        {
          type: 'space_content_updated',
          members: { spaceId, revisionId, updatedBy: [], dependency: { kind: dependency.kind, spec: dependency.spec, versionId } },
        },
      ];
    }
    case 'SpaceUpdated':
    case 'SpaceMoved': {
      const visibility = event.type === 'SpaceUpdated' ? event.data.changes.visibility : event.data.visibility;
      if (visibility === undefined || previousVisibility === null || visibility === previousVisibility) return [];
      return [{ type: 'space_visibility_updated', members: { spaceId: event.data.spaceId, previousVisibility, visibility } }];
    }
    case 'ChangeRequestCreated':
      return [
        {
          type: 'change_request_created',
          members: { spaceId: event.data.spaceId, changeRequestId: event.data.changeRequestId, number: event.data.number },
        },
      ];
    case 'ChangeRequestStatusChanged':
      return [
        {
          type: 'change_request_status_updated',
          members: {
            spaceId: event.data.spaceId,
            changeRequestId: event.data.changeRequestId,
            previousStatus: event.data.from,
            status: event.data.to,
          },
        },
      ];
    case 'ChangeRequestMerged':
      return [
        {
          type: 'change_request_merged',
          members: { spaceId: event.data.spaceId, changeRequestId: event.data.changeRequestId, revisionId: event.data.revisionMerged },
        },
      ];
    case 'CommentPosted':
      return [
        {
          type: 'comment_created',
          members: present({
            spaceId: event.data.spaceId,
            changeRequestId: event.data.changeRequestId,
            commentId: event.data.commentId,
            pageId: event.data.target.pageId,
          }),
        },
      ];
    case 'CommentReplyPosted':
      return [
        {
          type: 'comment_reply_created',
          members: present({
            spaceId: event.data.spaceId,
            changeRequestId: event.data.changeRequestId,
            commentId: event.data.commentId,
            commentReplyId: event.data.replyId,
          }),
        },
      ];
    case 'CommentResolved':
      return [
        {
          type: 'comment_resolved',
          members: present({ spaceId: event.data.spaceId, changeRequestId: event.data.changeRequestId, commentId: event.data.commentId }),
        },
      ];
    default:
      return [];
  }
}

/**
 * The integration event an installation's own event makes. `before` is the configuration the
 * installation (or its place) had before the event: the `previous` of the *_deleted events.
 * A first setup has no `previous`.
 */
export function deriveInstallationEvent(
  event: InstallationEvent,
  before: { configuration: Record<string, unknown> } | null = null,
): Derived {
  const previousOf = () => (before ? { configuration: before.configuration } : {});
  switch (event.type) {
    case 'IntegrationInstalled':
      return { type: 'installation_setup', members: { status: 'active' } };
    case 'IntegrationInstallationUpdated':
      return { type: 'installation_setup', members: { status: event.data.status, previous: event.data.previous } };
    case 'IntegrationUninstalled':
      return { type: 'installation_deleted', members: { previous: previousOf() } };
    default: {
      // Installed on a space or a site, changed or removed there.
      const { place, placeId, change } = placeOf(event)!;
      const where = { [placeIdMember(place)]: placeId };
      if (change === 'removed') return { type: `${place}_installation_deleted`, members: { ...where, previous: previousOf() } };
      const { status, previous } = (event as PlaceSetEvent).data;
      return { type: `${place}_installation_setup`, members: previous ? { ...where, status, previous } : { ...where, status } };
    }
  }
}

/** The integration event a reader's view recorded in the log makes (logs written before views left it: what the visitor was is not known beyond the claims). */
export function deriveSiteView(event: SiteViewEvent): Derived {
  const { siteId, spaceId, pageId, url, visitor } = event.data;
  return { type: 'site_view', members: present({ siteId, spaceId, pageId, url, visitor }) };
}

/** A derived event's id: the source event's id and the installation's, hashed into a UUID's shape (the same on every rebuild). */
export function integrationEventId(sourceEventId: string, installationId: string): string {
  const hex = createHash('sha256').update(`${sourceEventId}\n${installationId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
