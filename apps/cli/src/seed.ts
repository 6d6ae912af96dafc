import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EventStore } from '#event-store/event-store.port';
import type { AppConfig } from '#platform/config';
import { hashToken, type Caller } from '#platform/http/auth';
import { newId, newSecret } from '#platform/ids';
import {
  changeRequestNumbersStream,
  changeRequestDecider,
  changeRequestStream,
  numberingDecider,
  type ChangeRequestSpaceFacts,
} from '#changerequests';
import { commentDecider, commentStream, type CommentAccess } from '#comments';
import { contentDecider, contentStream, initialRevisionId, type TouchedPages } from '#content';
import { emailClaimDecider, emailClaimStream, tokenDecider, tokenStream, userDecider, userStream } from '#identity';
import {
  installationDecider,
  installationIdOf,
  installationStream,
  integrationDecider,
  integrationStream,
  IntegrationSecrets,
} from '#integrations';
import { memberSeenDecider, memberSeenStream, organizationDecider, organizationStream } from '#organizations';
import { pathOf, siteDecider, siteStream } from '#sites';
import { collectionDecider, collectionStream, keyBetween, spaceDecider, spaceStream } from '#spaces';
import { teamDecider, teamStream } from '#teams';
import type { SeedContent, SeedRevision } from './seed-content';
import { SeedBodies } from './seed-content-builders';
import { SeedLog } from './seed-log';

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

const TEAMS_PER_ORGANIZATION = 3;
const TEAM_SIZE = 5;
const SPACES_PER_COLLECTION = 10;
/** Content revisions after the first, each rewriting one page. */
const EDITS_PER_SPACE = 2;
const COMMENTS_PER_SPACE = 4;
const SITE_SPACES = 5;
/** Spaces whose content is handed to the content builders at once: enough to keep every worker busy, few enough to bound the documents in flight. */
const CONTENT_CONCURRENCY = 32;
const INTEGRATION = 'seed-analytics';

interface SeedUser {
  id: string;
  email: string;
  caller: Caller;
}

interface SeedSpace {
  id: string;
  organizationId: string;
  title: string;
  pages: string[];
  head: { revisionId: string; tree: string } | null;
  changeRequests: string[];
}

interface SeedOrganization {
  id: string;
  title: string;
  admin: SeedUser;
  adminToken: string;
  members: SeedUser[];
  teams: string[];
  collections: string[];
  spaces: SeedSpace[];
  /** The last sibling key given out under each parent (null: the top level): spaces are appended at the end. */
  lastPosition: Map<string | null, string>;
}

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

// ---- identity and organizations ---------------------------------------------------------------------

const ADMIN: Caller = { kind: 'admin' };

/** A user as `POST /v1/admin/users` makes one: the e-mail claimed, the user created, a token issued. */
function seedUser(log: SeedLog, clock: SeedClock, email: string, displayName: string): { user: SeedUser; token: string } {
  const userId = newId();
  log.decide(emailClaimStream(email), emailClaimDecider, { kind: 'ClaimEmail', email, userId }, ADMIN, clock.now());
  log.forget(emailClaimStream(email));
  log.decide(
    userStream(userId),
    userDecider,
    { kind: 'CreateUser', userId, email, displayName, photoURL: null, now: clock.tick() },
    ADMIN,
    clock.now(),
  );
  const tokenId = newId();
  const token = newSecret('dpt');
  log.decide(
    tokenStream(tokenId),
    tokenDecider,
    { kind: 'IssueToken', tokenId, userId, tokenHash: hashToken(token), now: clock.tick() },
    ADMIN,
    clock.now(),
  );
  log.forget(tokenStream(tokenId));
  const caller: Caller = { kind: 'user', userId, tokenId, user: { id: userId, displayName, email, photoURL: null } };
  return { user: { id: userId, email, caller }, token };
}

/** The organization created by its admin, who invites every other member by e-mail; each accepts. */
function seedOrganization(log: SeedLog, clock: SeedClock, words: Words, index: number, members: number): SeedOrganization {
  const name = words.title(2);
  const domain = `org${index}.seed.example`;
  const { user: admin, token: adminToken } = seedUser(log, clock, `admin@${domain}`, `${words.name()} (admin of ${name})`);
  const organizationId = newId();
  const stream = organizationStream(organizationId);
  log.decide(
    stream,
    organizationDecider,
    { kind: 'CreateOrganization', organizationId, title: name, emailDomains: [domain], creatorId: admin.id, now: clock.tick() },
    admin.caller,
    clock.now(),
  );
  const invited: SeedUser[] = [];
  for (let m = 1; m < members; m += 1) invited.push(seedUser(log, clock, `member${m}@${domain}`, words.name()).user);
  const invitations = invited.map((user, m) => ({
    invitationId: newId(),
    email: user.email,
    role: m % 7 === 0 ? ('admin' as const) : m % 3 === 0 ? ('review' as const) : ('edit' as const),
  }));
  if (invitations.length > 0)
    log.decide(
      stream,
      organizationDecider,
      { kind: 'InviteByEmail', organizationId, invitations, sso: false, byUserId: admin.id, now: clock.tick() },
      admin.caller,
      clock.now(),
    );
  invited.forEach((user, m) => {
    const command = {
      kind: 'AcceptInvitation' as const,
      organizationId,
      invitationId: invitations[m].invitationId,
      userId: user.id,
      email: user.email,
      now: clock.tick(),
    };
    log.decide(stream, organizationDecider, command, user.caller, clock.now());
  });
  return {
    id: organizationId,
    title: name,
    admin,
    adminToken,
    members: [admin, ...invited],
    teams: [],
    collections: [],
    spaces: [],
    lastPosition: new Map(),
  };
}

function seedTeams(log: SeedLog, clock: SeedClock, organization: SeedOrganization): void {
  for (let t = 0; t < TEAMS_PER_ORGANIZATION; t += 1) {
    const teamId = newId();
    const members = organization.members.slice(1 + t * 2, 1 + t * 2 + TEAM_SIZE).map((user) => user.id);
    const by = { userId: organization.admin.id, organizationRole: 'admin' as const };
    log.decide(
      teamStream(teamId),
      teamDecider,
      { kind: 'CreateTeam', teamId, organizationId: organization.id, title: `Team ${t + 1}`, members, by, now: clock.tick() },
      organization.admin.caller,
      clock.now(),
    );
    organization.teams.push(teamId);
  }
}

// ---- spaces and content ---------------------------------------------------------------------------

function seedCollections(log: SeedLog, clock: SeedClock, organization: SeedOrganization, count: number): void {
  for (let c = 0; c < count; c += 1) {
    const collectionId = newId();
    const position = nextPosition(organization, null);
    const by = { userId: organization.admin.id, role: 'admin' as const };
    const command = {
      kind: 'CreateCollection' as const,
      collectionId,
      organizationId: organization.id,
      title: `Collection ${c + 1}`,
      parent: null,
      position,
      by,
      now: clock.tick(),
    };
    log.decide(collectionStream(collectionId), collectionDecider, command, organization.admin.caller, clock.now());
    organization.collections.push(collectionId);
  }
}

/** A space in one of the organization's collections (every tenth at the top level), as `POST /orgs/{id}/spaces` makes it. */
function seedSpace(log: SeedLog, clock: SeedClock, words: Words, organization: SeedOrganization, index: number, pages: number): SeedSpace {
  const spaceId = newId();
  const parent = index % 10 === 9 ? null : organization.collections[index % organization.collections.length];
  const title = words.title(3);
  const command = {
    kind: 'CreateSpace' as const,
    spaceId,
    organizationId: organization.id,
    title,
    emoji: null,
    visibility: parent === null ? ('private' as const) : ('in-collection' as const),
    editMode: 'live' as const,
    defaultLevel: null,
    parent,
    position: nextPosition(organization, parent),
    by: { userId: organization.admin.id, role: 'admin' as const },
    now: clock.tick(),
  };
  log.decide(spaceStream(spaceId), spaceDecider, command, organization.admin.caller, clock.now());
  return {
    id: spaceId,
    organizationId: organization.id,
    title,
    pages: Array.from({ length: pages }, () => newId()),
    head: null,
    changeRequests: [],
  };
}

/**
 * The space's pages in one first revision (as an import writes them), then a few revisions that
 * each rewrite one page. The bodies are made here, in order, so a seed's text does not depend on
 * which worker finishes first.
 */
async function seedContent(
  log: SeedLog,
  clock: SeedClock,
  words: Words,
  content: SeedContent,
  organization: SeedOrganization,
  space: SeedSpace,
): Promise<void> {
  if (space.pages.length === 0) return;
  const author = organization.members[1] ?? organization.admin;
  const insert = space.pages.map((id, index) => {
    const title = words.title(3);
    return { id, title, document: words.body(), into: index % 5 === 0 ? null : space.pages[index - (index % 5)] };
  });
  const revisions: SeedRevision[] = [{ edits: { insert }, now: clock.tick() }];
  for (let edit = 0; edit < EDITS_PER_SPACE; edit += 1) {
    const id = space.pages[(edit * 7) % space.pages.length];
    revisions.push({ edits: { update: [{ id, document: words.body() }] }, now: clock.tick() });
  }
  const built = await content.build(revisions);
  built.forEach((revision, index) =>
    commit(log, clock, organization, space, author, revision.tree, revision.pages, index === 0 ? 'import' : 'batch'),
  );
}

function commit(
  log: SeedLog,
  clock: SeedClock,
  organization: SeedOrganization,
  space: SeedSpace,
  author: SeedUser,
  tree: string,
  pages: TouchedPages,
  source: 'import' | 'batch',
): void {
  const revisionId = newId();
  const command = {
    kind: 'CommitRevision' as const,
    spaceId: space.id,
    revisionId,
    base: space.head?.revisionId ?? initialRevisionId(space.id),
    revisionType: 'edits' as const,
    tree,
    pages,
    source:
      source === 'import'
        ? { kind: 'import' as const, source: 'markdown' as const, url: `https://docs.example.com/${space.id}.md` }
        : { kind: 'batch' as const },
    space: { organizationId: organization.id, editMode: 'live' as const, deleted: false, mayEdit: true },
    by: author.id,
    now: clock.now(),
  };
  if (log.decide(contentStream(space.id), contentDecider, command, author.caller, clock.now()).length > 0)
    space.head = { revisionId, tree };
}

/** One change request per space, numbered as `POST /spaces/{id}/change-requests` numbers it. */
function seedChangeRequest(log: SeedLog, clock: SeedClock, organization: SeedOrganization, space: SeedSpace): void {
  const author = organization.members[2] ?? organization.admin;
  const changeRequestId = newId();
  const numbers = changeRequestNumbersStream(space.id);
  log.decide(numbers, numberingDecider, { kind: 'NumberChangeRequest', spaceId: space.id, changeRequestId }, author.caller, clock.tick());
  const number = log.state(numbers, numberingDecider).numbers.get(changeRequestId)!;
  // Every space has pages (the options ask for at least one per space), so a head to branch from.
  if (!space.head) return;
  const main = space.head;
  const command = {
    kind: 'CreateChangeRequest' as const,
    changeRequestId,
    spaceId: space.id,
    number,
    subject: `Change request #${number}`,
    main,
    space: changeRequestFacts(organization),
    by: author.id,
    now: clock.tick(),
  };
  log.decide(changeRequestStream(changeRequestId), changeRequestDecider, command, author.caller, clock.now());
  space.changeRequests.push(changeRequestId);
}

function changeRequestFacts(organization: SeedOrganization): ChangeRequestSpaceFacts {
  return { organizationId: organization.id, deleted: false, editMode: 'live', mayEdit: true, mayReview: true };
}

const COMMENT_ACCESS: CommentAccess = { read: true, comment: true, admin: true, spaceDeleted: false };

/** Comments on pages of the space's head revision, each with a reply by another member. */
function seedComments(log: SeedLog, clock: SeedClock, words: Words, organization: SeedOrganization, space: SeedSpace): void {
  if (!space.head) return;
  for (let c = 0; c < COMMENTS_PER_SPACE; c += 1) {
    const commentId = newId();
    const stream = commentStream(commentId);
    const author = organization.members[(c + 1) % organization.members.length];
    const replier = organization.members[(c + 2) % organization.members.length];
    const scope = { spaceId: space.id, organizationId: organization.id, changeRequestId: null };
    const target = { pageId: space.pages[(c * 3) % space.pages.length], node: null, revision: space.head.revisionId };
    log.decide(
      stream,
      commentDecider,
      {
        kind: 'PostComment',
        commentId,
        scope,
        target,
        body: { document: words.comment() },
        by: author.id,
        access: COMMENT_ACCESS,
        now: clock.tick(),
      },
      author.caller,
      clock.now(),
    );
    log.decide(
      stream,
      commentDecider,
      {
        kind: 'PostReply',
        commentId,
        replyId: newId(),
        body: { document: words.comment() },
        by: replier.id,
        access: COMMENT_ACCESS,
        now: clock.tick(),
      },
      replier.caller,
      clock.now(),
    );
    log.forget(stream);
  }
}

/** A published site over the organization's first spaces, as `POST /orgs/{id}/sites` and publishing make it. */
function seedSite(log: SeedLog, clock: SeedClock, organization: SeedOrganization): void {
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
function seedIntegration(
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

// ---- updates up to the requested total -------------------------------------------------------------

/** What a living platform mostly appends once set up: renames, members seen, profile edits, change request subjects. */
const UPDATE_MIX = [
  'space',
  'seen',
  'space',
  'seen',
  'changeRequest',
  'space',
  'seen',
  'organization',
  'collection',
  'seen',
  'team',
  'user',
  'space',
  'changeRequest',
] as const;

async function fillWithUpdates(
  log: SeedLog,
  clock: SeedClock,
  words: Words,
  organizations: SeedOrganization[],
  total: number,
  flushIfFull: () => Promise<void>,
): Promise<void> {
  const spaces = organizations.flatMap((organization) => organization.spaces.map((space) => ({ organization, space })));
  const members = organizations.flatMap((organization) => organization.members.map((user) => ({ organization, user })));
  const counters = { space: 0, seen: 0, changeRequest: 0, organization: 0, collection: 0, team: 0, user: 0 };
  for (let step = 0; log.decided < total; step += 1) {
    const kind = UPDATE_MIX[step % UPDATE_MIX.length];
    const n = counters[kind]++;
    const now = clock.tick();
    switch (kind) {
      case 'space': {
        if (spaces.length === 0) break;
        const { organization, space } = spaces[n % spaces.length];
        const by = { userId: organization.admin.id, role: 'admin' as const };
        log.decide(
          spaceStream(space.id),
          spaceDecider,
          { kind: 'UpdateSpace', spaceId: space.id, changes: { title: `${space.title} (${n})` }, by, now },
          organization.admin.caller,
          now,
        );
        break;
      }
      case 'seen': {
        const { organization, user } = members[n % members.length];
        const stream = memberSeenStream(organization.id, user.id);
        log.decide(
          stream,
          memberSeenDecider,
          { kind: 'RecordSeen', organizationId: organization.id, userId: user.id, now },
          user.caller,
          now,
        );
        break;
      }
      case 'changeRequest': {
        if (spaces.length === 0) break;
        const { organization, space } = spaces[n % spaces.length];
        const author = organization.members[2] ?? organization.admin;
        for (const changeRequestId of space.changeRequests) {
          const command = {
            kind: 'EditChangeRequest' as const,
            changeRequestId,
            subject: `${words.title(4)} (${n})`,
            space: changeRequestFacts(organization),
            by: author.id,
            now,
          };
          log.decide(changeRequestStream(changeRequestId), changeRequestDecider, command, author.caller, now);
        }
        break;
      }
      case 'organization': {
        const organization = organizations[n % organizations.length];
        log.decide(
          organizationStream(organization.id),
          organizationDecider,
          {
            kind: 'UpdateOrganization',
            organizationId: organization.id,
            changes: { title: `${organization.title} (${n})` },
            byUserId: organization.admin.id,
            now,
          },
          organization.admin.caller,
          now,
        );
        break;
      }
      case 'collection': {
        const organization = organizations[n % organizations.length];
        const collectionId = organization.collections[Math.floor(n / organizations.length) % organization.collections.length];
        const by = { userId: organization.admin.id, role: 'admin' as const };
        log.decide(
          collectionStream(collectionId),
          collectionDecider,
          { kind: 'UpdateCollection', collectionId, changes: { title: `${words.title(2)} (${n})` }, by, now },
          organization.admin.caller,
          now,
        );
        break;
      }
      case 'team': {
        const organization = organizations[n % organizations.length];
        const teamId = organization.teams[Math.floor(n / organizations.length) % organization.teams.length];
        const by = { userId: organization.admin.id, organizationRole: 'admin' as const };
        log.decide(
          teamStream(teamId),
          teamDecider,
          { kind: 'RenameTeam', teamId, organizationId: organization.id, title: `${words.title(2)} (${n})`, by },
          organization.admin.caller,
          now,
        );
        break;
      }
      case 'user': {
        const { user } = members[n % members.length];
        log.decide(
          userStream(user.id),
          userDecider,
          { kind: 'UpdateUserProfile', userId: user.id, changes: { displayName: `${words.name()} (${n})` }, now },
          user.caller,
          now,
        );
        break;
      }
    }
    await flushIfFull();
  }
}

// ---- helpers ---------------------------------------------------------------------------------------

/** Command times: one second apart, ending about now. */
class SeedClock {
  private at: number;
  constructor(start: number) {
    this.at = start;
  }
  tick(): string {
    this.at += 1000;
    return this.now();
  }
  now(): string {
    return new Date(this.at).toISOString();
  }
}

/** `total` split into `parts` near-equal whole shares. */
function spread(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, index) => Math.floor(total / parts) + (index < total % parts ? 1 : 0));
}

/** A key after every sibling given out so far under `parent`, as `positionAtEnd` gives a new space. */
function nextPosition(organization: SeedOrganization, parent: string | null): string {
  const key = keyBetween(organization.lastPosition.get(parent) ?? '', null);
  organization.lastPosition.set(parent, key);
  return key;
}

/** `run` on every item, at most `limit` at a time; after a failure no item starts, and the first is thrown once the running ones have settled. */
async function eachConcurrently<T>(items: readonly T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const runner = async (): Promise<void> => {
    while (next < items.length && !failed) {
      try {
        await run(items[next++]);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, runner));
  const rejected = results.find((result) => result.status === 'rejected');
  if (rejected) throw rejected.reason;
}

const VOCABULARY = (
  'account api authentication backup branch build cache change client cluster collection comment configuration content deploy ' +
  'document domain editor endpoint environment error event export feature file guide hook import index install integration ' +
  'key language limit link member merge metric migration module network node organization page permission plugin policy ' +
  'project publish query queue record release request review role schema search secret server service session setting site ' +
  'space storage stream team template token topic update upload user version view webhook workflow workspace'
).split(' ');

/** Deterministic text: titles, names, sentences and page bodies that differ from one another. */
class Words {
  private state: number;
  private readonly bodies = new SeedBodies();
  private readonly templates: string[];
  private readonly commentTemplates: string[];
  constructor(seedValue: number) {
    this.state = seedValue;
    this.templates = Array.from({ length: 16 }, () => this.page(this.title(3)));
    this.commentTemplates = Array.from({ length: 8 }, (_, index) =>
      index % 2 === 0 ? this.sentence() : `${this.sentence()} **${this.title(2)}** \`${this.word()}\`?`,
    );
  }
  private next(): number {
    // xorshift32: fast, deterministic, good enough for picking words.
    this.state ^= this.state << 13;
    this.state ^= this.state >>> 17;
    this.state ^= this.state << 5;
    return (this.state >>> 0) / 4294967296;
  }
  word(): string {
    return VOCABULARY[Math.floor(this.next() * VOCABULARY.length)];
  }
  title(words: number): string {
    const text = Array.from({ length: words }, () => this.word()).join(' ');
    return text[0].toUpperCase() + text.slice(1);
  }
  name(): string {
    const first = this.word();
    return `${first[0].toUpperCase()}${first.slice(1)} ${this.title(1)}son`;
  }
  sentence(): string {
    return `${this.title(8 + Math.floor(this.next() * 8))}.`;
  }
  /** A page body of about 1 KB, made from one of a few converted templates with words of its own. */
  body() {
    const template = this.templates[Math.floor(this.next() * this.templates.length)];
    return this.bodies.body(template, (text) => text.replace(/[A-Za-z]+/g, (word) => (word.length > 2 ? this.word() : word)));
  }

  /** A comment of a sentence or two, from converted templates with words of its own. */
  comment() {
    const template = this.commentTemplates[Math.floor(this.next() * this.commentTemplates.length)];
    return this.bodies.body(template, (text) => text.replace(/[A-Za-z]+/g, (word) => (word.length > 2 ? this.word() : word)));
  }

  /** Markdown of about 1 KB: headings, paragraphs, a list, a table and a code block. */
  private page(title: string): string {
    const paragraph = () => Array.from({ length: 3 }, () => this.sentence()).join(' ');
    return [
      `# ${title}`,
      paragraph(),
      `## ${this.title(2)}`,
      paragraph(),
      Array.from({ length: 4 }, () => `- ${this.title(4)}`).join('\n'),
      `| ${this.word()} | ${this.word()} |\n| --- | --- |\n| ${this.word()} | ${this.word()} |`,
      '```js\n' + `const ${this.word()} = await client.${this.word()}('${this.word()}');\n` + '```',
      `## ${this.title(2)}`,
      paragraph(),
    ].join('\n\n');
  }
}
