/** The seed's docs sites, and its integration published and installed. */
import { newId } from '#platform/ids';
import {
  installationDecider,
  installationIdOf,
  installationStream,
  integrationDecider,
  integrationStream,
  IntegrationSecrets,
} from '#integrations';
import { pathOf, siteDecider, siteStream } from '#sites';
import type { SeedLog } from './seed-log';
import type { SeedClock, SeedOrganization } from './seed-model';

const SITE_SPACES = 5;
const INTEGRATION = 'seed-analytics';

/** A published site over the organization's first spaces, as `POST /orgs/{id}/sites` and publishing make it. */
export function seedSite(log: SeedLog, clock: SeedClock, organization: SeedOrganization): void {
  const siteId = newId();
  const siteSpaces = organization.spaces
    .slice(0, SITE_SPACES)
    .map((space) => ({ siteSpaceId: newId(), spaceId: space.id, path: pathOf(space.title) }));
  const about = { siteId, organizationId: organization.id, allowed: true };
  const caller = organization.admin.caller;
  log.decide(
    siteStream(siteId),
    siteDecider,
    {
      ...about,
      kind: 'CreateSite',
      type: 'basic',
      title: `${organization.title} docs`,
      visibility: 'public',
      by: organization.admin.id,
      siteSpaces,
      now: clock.tick(),
    },
    caller,
    clock.now(),
  );
  log.decide(siteStream(siteId), siteDecider, { ...about, kind: 'PublishSite', published: true, now: clock.tick() }, caller, clock.now());
  log.forget(siteStream(siteId));
}

/** One public integration, published by the first organization and installed in every organization. */
export function seedIntegration(
  log: SeedLog,
  clock: SeedClock,
  secrets: IntegrationSecrets,
  publisher: SeedOrganization,
  organization: SeedOrganization,
): void {
  if (organization === publisher) {
    const definition = {
      runtime: 'v1' as const,
      title: 'Seed analytics',
      description: 'Counts page views of published sites.',
      summary: 'Page view analytics',
      icon: null,
      previewImages: [],
      visibility: 'public' as const,
      target: 'all' as const,
      scopes: ['site:views:read'],
      categories: ['analytics'],
      blocks: [],
      contentSources: [],
      externalLinks: [{ url: 'https://analytics.example.com', label: 'Dashboard' }],
      configurations: {},
      script: null,
      contentSecurityPolicy: null,
    };
    const command = {
      kind: 'PublishIntegration' as const,
      name: INTEGRATION,
      organizationId: publisher.id,
      definition,
      secrets: undefined,
      signingSecret: secrets.newSigningSecret(),
      ownerAdmin: true,
      by: publisher.admin.id,
      now: clock.tick(),
    };
    log.decide(integrationStream(INTEGRATION), integrationDecider, command, publisher.admin.caller, clock.now());
  }
  const installationId = installationIdOf(INTEGRATION, organization.id);
  const command = {
    kind: 'Install' as const,
    installationId,
    integrationName: INTEGRATION,
    organizationId: organization.id,
    configuration: {},
    scopes: ['site:views:read'],
    organizationAdmin: true,
    by: organization.admin.id,
    now: clock.tick(),
  };
  log.decide(installationStream(installationId), installationDecider, command, organization.admin.caller, clock.now());
  log.forget(installationStream(installationId));
}
