/** The seed's collections and spaces, their content revisions, change requests and comments. */
import { newId } from '#platform/ids';
import {
  changeRequestNumbersStream,
  changeRequestDecider,
  changeRequestStream,
  numberingDecider,
  type ChangeRequestSpaceFacts,
} from '#changerequests';
import { commentDecider, commentStream, type CommentAccess } from '#comments';
import { contentDecider, contentStream, initialRevisionId, type TouchedPages } from '#content';
import { collectionDecider, collectionStream, spaceDecider, spaceStream } from '#spaces';
import type { SeedContent, SeedRevision } from './seed-content';
import type { SeedLog } from './seed-log';
import { nextPosition, type SeedClock, type SeedOrganization, type SeedSpace, type SeedUser } from './seed-model';
import type { Words } from './seed-words';

/** Content revisions after the first, each rewriting one page. */
const EDITS_PER_SPACE = 2;
const COMMENTS_PER_SPACE = 4;

export function seedCollections(log: SeedLog, clock: SeedClock, organization: SeedOrganization, count: number): void {
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
export function seedSpace(
  log: SeedLog,
  clock: SeedClock,
  words: Words,
  organization: SeedOrganization,
  index: number,
  pages: number,
): SeedSpace {
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
export async function seedContent(
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
export function seedChangeRequest(log: SeedLog, clock: SeedClock, organization: SeedOrganization, space: SeedSpace): void {
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

export function changeRequestFacts(organization: SeedOrganization): ChangeRequestSpaceFacts {
  return { organizationId: organization.id, deleted: false, editMode: 'live', mayEdit: true, mayReview: true };
}

const COMMENT_ACCESS: CommentAccess = { read: true, comment: true, admin: true, spaceDeleted: false };

/** Comments on pages of the space's head revision, each with a reply by another member. */
export function seedComments(log: SeedLog, clock: SeedClock, words: Words, organization: SeedOrganization, space: SeedSpace): void {
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
