import type { ContentSecurityPolicy } from './integration.content-security-policy';

/**
 * Integrations. Streams:
 * - `integration-<name>`: an integration's publications (each a full definition, `version` + 1),
 *   its deletion and its development tunnel. Secrets and the tunnel's signing secret travel only
 *   encrypted (AES-256-GCM, integration.secrets.ts); the script, the icon and preview images are
 *   blobs named by hash.
 * - `integrationinstallation-<installationId>`: one installation of an integration in an
 *   organization (its id derived from both, so an organization installs an integration once), with
 *   its configuration and the places it is installed on: spaces and docs sites.
 * - `integrationdelivery-<installationId>`: what became of each integration event of the
 *   installation (delivered to a tunnel or a script, or failed), with the trace.
 * - `integrationsiteviews-<siteId>.<hour>`: readers' views of a published site's pages, as logs
 *   written before views left the log hold them (no longer appended: SiteViewEvent).
 */
export const INTEGRATION_VISIBILITIES = ['public', 'private', 'unlisted'] as const;
export type IntegrationVisibility = (typeof INTEGRATION_VISIBILITIES)[number];
export const INTEGRATION_TARGETS = ['all', 'site', 'space', 'organization'] as const;
export type IntegrationTarget = (typeof INTEGRATION_TARGETS)[number];
/** The platform's runtimes: the service runs every script in one sandbox (sandbox/script-sandbox.ts) and records which one the integration names. */
export const INTEGRATION_RUNTIMES = ['v1', 'v2'] as const;
export type IntegrationRuntimeVersion = (typeof INTEGRATION_RUNTIMES)[number];
/** The platform's scopes (IntegrationScope). */
export const INTEGRATION_SCOPES = [
  'space:content:read',
  'space:content:write',
  'space:metadata:read',
  'space:metadata:write',
  'space:git:sync',
  'page:feedback:read',
  'site:metadata:read',
  'site:views:read',
  'site:script:inject',
  'site:script:cookies',
  'site:visitor:auth',
  'site:visitor:claims',
  'site:adaptive:read',
  'site:adaptive:write',
  'conversations:ingest',
  'openapi:read',
  'openapi:write',
] as const;
/** The platform's marketplace categories (IntegrationCategory). */
export const INTEGRATION_CATEGORIES = ['analytics', 'collaboration', 'content', 'marketing', 'visitor-auth', 'other'] as const;

/** A `configurations.account|space|site` schema as published. */
export interface ConfigurationSchema {
  properties: Record<
    string,
    { title?: string; description?: string; type: string; default?: unknown; completion_url?: string; enum?: string[] }
  >;
  required?: string[];
}

/** Everything a publication defines (the body of POST /integrations/{name}, with blobs stored by hash). */
export interface IntegrationDefinition {
  runtime: IntegrationRuntimeVersion;
  title: string;
  description: string;
  summary: string;
  /** Blob hashes. */
  icon: string | null;
  previewImages: string[];
  visibility: IntegrationVisibility;
  target: IntegrationTarget;
  scopes: string[];
  categories: string[];
  blocks: Array<{
    id: string;
    title: string;
    description?: string;
    icon?: string;
    urlUnfurl?: string[];
    markdown?: { codeblock: string; body: string };
  }>;
  contentSources: Array<{ id: string; title: string; description?: string; icon?: string; configuration: { componentId: string } }>;
  externalLinks: Array<{ url: string; label: string }>;
  configurations: { account?: ConfigurationSchema; space?: ConfigurationSchema; site?: ConfigurationSchema };
  /** Blob hash of the script source. */
  script: string | null;
  /** As given: text, or an object of directives (integration.content-security-policy.ts). */
  contentSecurityPolicy: ContentSecurityPolicy | null;
}

export type IntegrationStreamEvent =
  | {
      type: 'IntegrationPublished';
      data: {
        name: string;
        organizationId: string;
        version: number;
        definition: IntegrationDefinition;
        secrets: string | null;
        signingSecret: string;
        publishedBy: string;
        publishedAt: string;
      };
    }
  | { type: 'IntegrationDeleted'; data: { name: string; organizationId: string; deletedBy: string; deletedAt: string } }
  | {
      type: 'IntegrationDevModeSet';
      data: { name: string; organizationId: string; tunnelUrl: string; all: boolean; setBy: string; setAt: string };
    }
  | { type: 'IntegrationDevModeCleared'; data: { name: string; organizationId: string; clearedBy: string; clearedAt: string } };

export type InstallationStatus = 'active' | 'paused';
export type SpaceSelection = 'all' | 'selected';
/** Where an installation is installed besides its organization: spaces and docs sites, each with its own configuration. */
export type InstallationPlace = 'space' | 'site';
/** A place installation's own settings. */
export interface PlaceSettings {
  status: InstallationStatus;
  configuration: Record<string, unknown>;
}

interface InstallationAbout {
  installationId: string;
  integrationName: string;
  organizationId: string;
}

export type InstallationEvent =
  /**
   * `siteSelection` is absent from events recorded before sites: `selected`. `scopes` are the
   * integration's scopes the installer accepted (those it asked for then); absent from events
   * recorded before installations kept them: the integration's scopes at that point of the log.
   */
  | {
      type: 'IntegrationInstalled';
      data: InstallationAbout & {
        configuration: Record<string, unknown>;
        spaceSelection: SpaceSelection;
        siteSelection?: SpaceSelection;
        scopes?: string[];
        installedBy: string;
        installedAt: string;
      };
    }
  | {
      type: 'IntegrationInstallationUpdated';
      data: InstallationAbout & {
        status: InstallationStatus;
        configuration: Record<string, unknown>;
        spaceSelection: SpaceSelection;
        siteSelection?: SpaceSelection;
        /** The scopes accepted after the update, when known (absent: as they were). */
        scopes?: string[];
        previous: { status: InstallationStatus; configuration: Record<string, unknown> };
        updatedBy: string;
        updatedAt: string;
      };
    }
  | { type: 'IntegrationUninstalled'; data: InstallationAbout & { uninstalledBy: string; uninstalledAt: string } }
  | { type: 'IntegrationSpaceInstallationSet'; data: InstallationAbout & { spaceId: string } & PlaceInstallationSet }
  | { type: 'IntegrationSpaceInstallationRemoved'; data: InstallationAbout & { spaceId: string } & PlaceInstallationRemoved }
  | { type: 'IntegrationSiteInstallationSet'; data: InstallationAbout & { siteId: string } & PlaceInstallationSet }
  | { type: 'IntegrationSiteInstallationRemoved'; data: InstallationAbout & { siteId: string } & PlaceInstallationRemoved };

/** What installing on a place (or changing it there) records besides the place's id. */
interface PlaceInstallationSet extends PlaceSettings {
  previous: PlaceSettings | null;
  setBy: string;
  setAt: string;
}

interface PlaceInstallationRemoved {
  removedBy: string;
  removedAt: string;
}

/**
 * A reader viewed a page of a published site, recorded because some installation received
 * `site_view` there. `visitor.claims` are the reader's verified visitor-token claims (empty without one).
 * No longer appended (views go to installations from a queue in memory, integration.site-views.ts):
 * kept so that logs written before replay as they did.
 */
export type SiteViewEvent = {
  type: 'IntegrationSiteViewRecorded';
  data: {
    organizationId: string;
    siteId: string;
    spaceId: string;
    pageId: string | null;
    url: string;
    visitor: { claims: Record<string, unknown> };
    viewedAt: string;
  };
};

export interface TraceLog {
  message: string;
  timestamp: string;
  level: 'debug' | 'info' | 'warn' | 'error';
}

export type DeliveryEvent =
  | {
      type: 'IntegrationEventProcessed';
      data: InstallationAbout & { eventId: string; status: 'success' | 'failed'; logs: TraceLog[]; processedAt: string; worker: string };
    }
  /** A worker takes the installation's deliveries until `until`: replicas of the worker never deliver one installation's events at once. */
  | { type: 'IntegrationDeliveriesClaimed'; data: InstallationAbout & { worker: string; until: string } };
