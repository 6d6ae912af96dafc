import { closedObject, dateTime, ref, url, type JsonSchema } from '#platform/platform.schemas';
import { CSP_DIRECTIVES } from './integration.content-security-policy';
import {
  INTEGRATION_CATEGORIES,
  INTEGRATION_RUNTIMES,
  INTEGRATION_SCOPES,
  INTEGRATION_TARGETS,
  INTEGRATION_VISIBILITIES,
} from './integration.events';

const text: JsonSchema = { type: 'string' };
const flag: JsonSchema = { type: 'boolean' };
const strings: JsonSchema = { type: 'array', items: text };
const object: JsonSchema = { type: 'object' };
const installationUrls = closedObject({ location: url, app: url, publicEndpoint: url, publicContentEndpoint: url });
/** As text (the interface's type): a policy published as an object of directives reads as the header it makes. */
const contentSecurityPolicy: JsonSchema = {
  ...text,
  description: `the policy as text; published as an object of directives (${CSP_DIRECTIVES.join(', ')}), it reads as \`<directive> <value>\` joined by \`; \``,
};
const user: JsonSchema = closedObject(
  { object: { type: 'string', enum: ['user'] }, id: text, displayName: text, photoURL: url, urls: closedObject({ location: url }) },
  ['photoURL'],
);

/**
 * An integration event as integrations receive it (the platform's `Event`): the base members, and
 * those of its type; `updatedBy` (space_content_updated) is a list of users; the service's own types
 * (change_request_*, comment_*) have `spaceId` and the ids they name.
 */
const eventPayload: JsonSchema = {
  type: 'object',
  required: ['eventId', 'type', 'installationId'],
  properties: {
    eventId: text,
    type: {
      type: 'string',
      enum: [
        'installation_setup',
        'installation_deleted',
        'space_installation_setup',
        'space_installation_deleted',
        'site_installation_setup',
        'site_installation_deleted',
        'space_content_updated',
        'space_visibility_updated',
        'site_view',
        'change_request_created',
        'change_request_status_updated',
        'change_request_merged',
        'comment_created',
        'comment_reply_created',
        'comment_resolved',
      ],
    },
    installationId: text,
    spaceId: text,
    siteId: text,
    status: { type: 'string', enum: ['active', 'paused'] },
    previous: { type: 'object' },
    updatedBy: { type: 'array', items: user },
  },
};
const logs: JsonSchema = {
  type: 'array',
  items: closedObject({ message: text, timestamp: dateTime, level: { type: 'string', enum: ['debug', 'info', 'warn', 'error'] } }),
};

/** An installation on a space or a site: the place as its id, or its whole object with `extended`. */
function placeInstallation(place: 'space' | 'site', placeSchema: string): JsonSchema {
  return closedObject({
    object: { type: 'string', enum: [`integration-${place}-installation`] },
    integration: text,
    installation: text,
    status: { type: 'string', enum: ['active', 'paused'] },
    configuration: object,
    externalIds: strings,
    urls: closedObject({ location: url, publicEndpoint: url, publicContentEndpoint: url }),
    [place]: { oneOf: [text, ref(placeSchema)] },
  });
}

/**
 * The service's own event types (EXTENSION_EVENT_TYPES), shaped like the platform's space events:
 * `eventId`, `type`, `installationId`, `spaceId`, then what they are about, ids only; a member
 * that does not apply is absent (`changeRequestId` of a comment on the space's own content).
 */
function extensionEvent(type: string, members: Record<string, JsonSchema>, optional: string[] = []): JsonSchema {
  return {
    ...closedObject({ eventId: text, type: { type: 'string', enum: [type] }, installationId: text, spaceId: text, ...members }, optional),
    description: `extension (installations holding space:content:read): ${type}`,
  };
}
const changeRequestStatus = (statuses: string[]): JsonSchema => ({ type: 'string', enum: statuses });

export const extensionEventSchemas: Record<string, JsonSchema> = {
  ChangeRequestCreatedEvent: extensionEvent('change_request_created', { changeRequestId: text, number: { type: 'integer', minimum: 1 } }),
  ChangeRequestStatusUpdatedEvent: extensionEvent('change_request_status_updated', {
    changeRequestId: text,
    previousStatus: changeRequestStatus(['draft', 'open', 'archived']),
    status: changeRequestStatus(['draft', 'open', 'archived']),
  }),
  ChangeRequestMergedEvent: extensionEvent('change_request_merged', { changeRequestId: text, revisionId: text }),
  CommentCreatedEvent: extensionEvent('comment_created', { changeRequestId: text, commentId: text, pageId: text }, [
    'changeRequestId',
    'pageId',
  ]),
  CommentReplyCreatedEvent: extensionEvent('comment_reply_created', { changeRequestId: text, commentId: text, commentReplyId: text }, [
    'changeRequestId',
  ]),
  CommentResolvedEvent: extensionEvent('comment_resolved', { changeRequestId: text, commentId: text }, ['changeRequestId']),
};

/** Response schemas of the integrations context, for the OpenAPI document. */
export const integrationSchemas: Record<string, JsonSchema> = {
  Integration: closedObject(
    {
      object: { type: 'string', enum: ['integration'] },
      name: { type: 'string', pattern: '^[a-zA-Z0-9-_.]+$' },
      version: { type: 'integer', minimum: 1 },
      runtime: { type: 'string', enum: [...INTEGRATION_RUNTIMES] },
      title: text,
      description: text,
      summary: text,
      previewImages: { type: 'array', items: url },
      target: { type: 'string', enum: [...INTEGRATION_TARGETS] },
      verified: flag,
      visibility: { type: 'string', enum: [...INTEGRATION_VISIBILITIES] },
      scopes: { type: 'array', items: { type: 'string', enum: [...INTEGRATION_SCOPES] } },
      categories: { type: 'array', items: { type: 'string', enum: [...INTEGRATION_CATEGORIES] } },
      blocks: { type: 'array', items: object },
      contentSources: { type: 'array', items: object },
      configurations: object,
      externalLinks: { type: 'array', items: object },
      owner: ref('Organization'),
      urls: closedObject({ location: url, icon: url, app: url, assets: url, publicEndpoint: url, publicContentEndpoint: url }, ['icon']),
      permissions: closedObject({ admin: flag, install: flag }),
      contentSecurityPolicy,
    },
    ['owner', 'contentSecurityPolicy'],
  ),
  IntegrationInstallation: closedObject({
    object: { type: 'string', enum: ['integration-installation'] },
    id: text,
    integration: text,
    status: { type: 'string', enum: ['active', 'paused'] },
    space_selection: { type: 'string', enum: ['all', 'selected'] },
    site_selection: { type: 'string', enum: ['all', 'selected'] },
    spaces: { type: 'integer', minimum: 0 },
    configuration: object,
    scopes: {
      ...strings,
      description:
        'extension: the integration’s scopes in force in the installation (asked for and accepted by an admin of the organization)',
    },
    pendingScopes: {
      ...strings,
      description:
        'extension: the scopes the integration asks for that no admin of the organization has accepted yet (PATCH the installation with `scopes` to accept them)',
    },
    createdAt: dateTime,
    updatedAt: dateTime,
    urls: installationUrls,
    externalIds: strings,
    target: closedObject({ organization: text }),
  }),
  IntegrationSpaceInstallation: placeInstallation('space', 'Space'),
  IntegrationSiteInstallation: placeInstallation('site', 'Site'),
  IntegrationEvent: closedObject({
    object: { type: 'string', enum: ['integration-event'] },
    id: text,
    integrationId: text,
    installationId: text,
    createdAt: dateTime,
    payload: eventPayload,
    status: {
      type: 'string',
      enum: ['success', 'failed'],
      description: 'an event is listed once delivered: `success`, or `failed` with the reason in its trace',
    },
  }),
  IntegrationEventTrace: closedObject({ event: ref('IntegrationEvent'), trace: closedObject({ logs }) }),
  IntegrationDevMode: closedObject({ tunnelUrl: { type: 'string', nullable: true }, all: flag, signingSecret: text }),
  ...extensionEventSchemas,
  RenderedElement: closedObject({
    type: { type: 'string', enum: ['element'] },
    element: closedObject({ type: { type: 'string', enum: ['block'] }, children: {}, controls: {} }),
    state: object,
    props: object,
  }),
};
