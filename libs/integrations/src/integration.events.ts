/**
 * Integrations. Streams:
 * - `integration-<name>`: an integration's publications (each a full definition, `version` + 1),
 *   its deletion and its development tunnel. Secrets and the tunnel's signing secret travel only
 *   encrypted (AES-256-GCM, integration.secrets.ts); the script, the icon and preview images are
 *   blobs named by hash.
 * - `integrationinstallation-<installationId>`: one installation of an integration in an
 *   organization (its id derived from both, so an organization installs an integration once), with
 *   its configuration and the spaces it is installed on.
 * - `integrationdelivery-<installationId>`: what became of each integration event of the
 *   installation (delivered to a tunnel or a script, or failed), with the trace.
 */
export const INTEGRATION_VISIBILITIES = ['public', 'private', 'unlisted'] as const;
export type IntegrationVisibility = (typeof INTEGRATION_VISIBILITIES)[number];
export const INTEGRATION_TARGETS = ['all', 'site', 'space', 'organization'] as const;
export type IntegrationTarget = (typeof INTEGRATION_TARGETS)[number];

/** A `configurations.account|space|site` schema as published. */
export interface ConfigurationSchema {
  properties: Record<string, { title?: string; description?: string; type: string; default?: unknown; completion_url?: string; enum?: string[] }>;
  required?: string[];
}

/** Everything a publication defines (the body of POST /integrations/{name}, with blobs stored by hash). */
export interface IntegrationDefinition {
  runtime: 'v1';
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
  blocks: Array<{ id: string; title: string; description?: string; icon?: string; urlUnfurl?: string[]; markdown?: { codeblock: string; body: string } }>;
  contentSources: Array<{ id: string; title: string; description?: string; icon?: string; configuration: { componentId: string } }>;
  externalLinks: Array<{ url: string; label: string }>;
  configurations: { account?: ConfigurationSchema; space?: ConfigurationSchema; site?: ConfigurationSchema };
  /** Blob hash of the script source. */
  script: string | null;
  contentSecurityPolicy: string | null;
}

export type IntegrationStreamEvent =
  | {
      type: 'IntegrationPublished';
      data: { name: string; organizationId: string; version: number; definition: IntegrationDefinition; secrets: string | null; signingSecret: string; publishedBy: string; publishedAt: string };
    }
  | { type: 'IntegrationDeleted'; data: { name: string; organizationId: string; deletedBy: string; deletedAt: string } }
  | { type: 'IntegrationDevModeSet'; data: { name: string; organizationId: string; tunnelUrl: string; all: boolean; setBy: string; setAt: string } }
  | { type: 'IntegrationDevModeCleared'; data: { name: string; organizationId: string; clearedBy: string; clearedAt: string } };

export type InstallationStatus = 'active' | 'paused';
export type SpaceSelection = 'all' | 'selected';

interface InstallationAbout {
  installationId: string;
  integrationName: string;
  organizationId: string;
}

export type InstallationEvent =
  | { type: 'IntegrationInstalled'; data: InstallationAbout & { configuration: Record<string, unknown>; spaceSelection: SpaceSelection; installedBy: string; installedAt: string } }
  | {
      type: 'IntegrationInstallationUpdated';
      data: InstallationAbout & {
        status: InstallationStatus;
        configuration: Record<string, unknown>;
        spaceSelection: SpaceSelection;
        previous: { status: InstallationStatus; configuration: Record<string, unknown> };
        updatedBy: string;
        updatedAt: string;
      };
    }
  | { type: 'IntegrationUninstalled'; data: InstallationAbout & { uninstalledBy: string; uninstalledAt: string } }
  | {
      type: 'IntegrationSpaceInstallationSet';
      data: InstallationAbout & { spaceId: string; status: InstallationStatus; configuration: Record<string, unknown>; previous: { status: InstallationStatus; configuration: Record<string, unknown> } | null; setBy: string; setAt: string };
    }
  | { type: 'IntegrationSpaceInstallationRemoved'; data: InstallationAbout & { spaceId: string; removedBy: string; removedAt: string } };

export interface TraceLog {
  message: string;
  timestamp: string;
  level: 'debug' | 'info' | 'warn' | 'error';
}

export type DeliveryEvent =
  | { type: 'IntegrationEventProcessed'; data: InstallationAbout & { eventId: string; status: 'success' | 'failed'; logs: TraceLog[]; processedAt: string; worker: string } }
  /** A worker takes the installation's deliveries until `until`: replicas of the worker never deliver one installation's events at once. */
  | { type: 'IntegrationDeliveriesClaimed'; data: InstallationAbout & { worker: string; until: string } };
