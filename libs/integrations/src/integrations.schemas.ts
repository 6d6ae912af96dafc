import { closedObject, dateTime, ref, url, type JsonSchema } from '../../platform/src/platform.schemas';

const text: JsonSchema = { type: 'string' };
const flag: JsonSchema = { type: 'boolean' };
const strings: JsonSchema = { type: 'array', items: text };
const object: JsonSchema = { type: 'object' };
const installationUrls = closedObject({ location: url, app: url, publicEndpoint: url });
const logs: JsonSchema = { type: 'array', items: closedObject({ message: text, timestamp: dateTime, level: { type: 'string', enum: ['debug', 'info', 'warn', 'error'] } }) };

/** An installation on a space or a site: the place as its id, or its whole object with `extended`. */
function placeInstallation(place: 'space' | 'site', placeSchema: string): JsonSchema {
  return closedObject({
    object: { type: 'string', enum: [`integration-${place}-installation`] },
    integration: text,
    installation: text,
    status: { type: 'string', enum: ['active', 'paused'] },
    configuration: object,
    externalIds: strings,
    urls: closedObject({ location: url, publicEndpoint: url }),
    [place]: { oneOf: [text, ref(placeSchema)] },
  });
}

/** Response schemas of the integrations context, for the OpenAPI document. */
export const integrationSchemas: Record<string, JsonSchema> = {
  Integration: closedObject(
    {
      object: { type: 'string', enum: ['integration'] },
      name: { type: 'string', pattern: '^[a-zA-Z0-9-_.]+$' },
      version: { type: 'integer', minimum: 1 },
      runtime: { type: 'string', enum: ['v1'] },
      title: text,
      description: text,
      summary: text,
      previewImages: { type: 'array', items: url },
      target: text,
      verified: flag,
      visibility: text,
      scopes: strings,
      categories: strings,
      blocks: { type: 'array', items: object },
      contentSources: { type: 'array', items: object },
      configurations: object,
      externalLinks: { type: 'array', items: object },
      owner: ref('Organization'),
      urls: closedObject({ location: url, icon: url, app: url, assets: url, publicEndpoint: url }, ['icon']),
      permissions: closedObject({ admin: flag, install: flag }),
      contentSecurityPolicy: text,
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
    scopes: { ...strings, description: 'extension: the integration’s scopes in force in the installation (asked for and accepted by an admin of the organization)' },
    pendingScopes: { ...strings, description: 'extension: the scopes the integration asks for that no admin of the organization has accepted yet (PATCH the installation with `scopes` to accept them)' },
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
    payload: { type: 'object', required: ['eventId', 'type', 'installationId'], properties: { eventId: text, type: text, installationId: text } },
    status: { type: 'string', enum: ['pending', 'success', 'failed'] },
  }),
  IntegrationEventTrace: closedObject({ event: ref('IntegrationEvent'), trace: closedObject({ logs }) }),
  IntegrationDevMode: closedObject({ tunnelUrl: { type: 'string', nullable: true }, all: flag, signingSecret: text }),
  RenderedElement: closedObject({ type: { type: 'string', enum: ['element'] }, element: closedObject({ type: { type: 'string', enum: ['block'] }, children: {}, controls: {} }), state: object, props: object }),
};

