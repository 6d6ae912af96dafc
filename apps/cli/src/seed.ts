import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EventStore } from '#event-store/event-store.port';
import type { AppConfig } from '#platform/config';
import { IntegrationSecrets } from '#integrations';
import type { SeedContent } from './seed-content';
import { SeedLog } from './seed-log';
import { Words } from './seed-words';
import { seedOrganization, seedTeams } from './seed-organizations';
import { seedChangeRequest, seedCollections, seedComments, seedContent, seedSpace } from './seed-spaces';
import { seedIntegration, seedSite } from './seed-publishing';
import { fillWithUpdates } from './seed-updates';
import { eachConcurrently, SeedClock, spread, type SeedOrganization } from './seed-model';

/** The sizes of a seed; `--events` is the total the updates at the end fill up to. */
export interface SeedOptions {
  events: number;
  organizations: number;
  /** Members per organization, its admin included (each a user of their own). */
  members: number;
  spaces: number;
  pages: number;
}

export const DEFAULT_SEED: SeedOptions = { events: 1_000_000, organizations: 100, members: 20, spaces: 5_000, pages: 100_000 };

/** What a seed made, for the benchmarks: every organization with its admin's token, spaces and their pages. */
export interface SeedManifest {
  options: SeedOptions;
  events: number;
  organizations: Array<{ id: string; adminUserId: string; adminToken: string; spaces: Array<{ id: string; pages: string[] }> }>;
}

/** Written next to the log (mode 0600: it holds tokens). */
export const SEED_MANIFEST = 'seed.json';

const SPACES_PER_COLLECTION = 10;
/** Spaces whose content is handed to the content builders at once: enough to keep every worker busy, few enough to bound the documents in flight. */
const CONTENT_CONCURRENCY = 32;

/** Progress for a person watching: one line per tenth of the way (readable in logs and on terminals). */
export interface SeedProgress {
  (decided: number, total: number): void;
}

/**
 * Writes a realistic mix of events into an empty embedded log, as the service would have appended
 * them: every event comes from its aggregate's decider (SeedLog), trees and bodies from the
 * content context's tree building blocks (ContentSeedTrees, on the worker threads of `seed-content`) into the
 * blob store. Then updates (space and organization renames, members seen, …) fill the log up to
 * `options.events`.
 */
export async function seed(
  options: SeedOptions,
  stores: { events: EventStore; content: SeedContent },
  config: AppConfig,
  progress: SeedProgress,
): Promise<SeedManifest> {
  const log = new SeedLog(stores.events);
  const secrets = new IntegrationSecrets(config);
  const clock = new SeedClock(Date.now() - options.events * 1000);
  const words = new Words(1);
  const organizations: SeedOrganization[] = [];
  const report = () => progress(log.decided, options.events);
  const flushIfFull = async () => {
    if (!log.shouldFlush) return;
    await log.flush();
    report();
  };

  report();
  const spacesOf = spread(options.spaces, options.organizations);
  const pagesOf = spread(options.pages, options.spaces);
  let spaceIndex = 0;
  for (let o = 0; o < options.organizations; o += 1) {
    const organization = seedOrganization(log, clock, words, o, options.members);
    organizations.push(organization);
    seedTeams(log, clock, organization);
    const spaceCount = spacesOf[o];
    seedCollections(log, clock, organization, Math.max(1, Math.ceil(spaceCount / SPACES_PER_COLLECTION)));
    for (let s = 0; s < spaceCount; s += 1) organization.spaces.push(seedSpace(log, clock, words, organization, s, pagesOf[spaceIndex++]));
    await eachConcurrently(organization.spaces, CONTENT_CONCURRENCY, (space) =>
      seedContent(log, clock, words, stores.content, organization, space),
    );
    for (const space of organization.spaces) {
      seedChangeRequest(log, clock, organization, space);
      seedComments(log, clock, words, organization, space);
    }
    seedSite(log, clock, organization);
    seedIntegration(log, clock, secrets, organizations[0], organization);
    await flushIfFull();
  }
  await fillWithUpdates(log, clock, words, organizations, options.events, flushIfFull);
  await log.flush();
  report();
  return {
    options,
    events: log.appended,
    organizations: organizations.map((organization) => ({
      id: organization.id,
      adminUserId: organization.admin.id,
      adminToken: organization.adminToken,
      spaces: organization.spaces.map((space) => ({ id: space.id, pages: space.pages })),
    })),
  };
}

/** Writes the manifest into the data directory, readable by its owner only. */
export function writeSeedManifest(dataDir: string, manifest: SeedManifest): string {
  const path = join(dataDir, SEED_MANIFEST);
  writeFileSync(path, JSON.stringify(manifest), { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}
