import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import { ID_SHAPES, newId } from '../../platform/src/ids';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { COMMENT_CONTENT, type CommentContent } from './comments-content.port';
import { COMMENT_MEMBERS, COMMENT_USERS, type CommentMembers, type CommentPeople } from './comments-spaces.port';
import { commentDecider, commentStream, type CommentAccess, type CommentChanges, type CommentCommand } from './comment.decider';
import { CommentBodies } from './comment.bodies';
import type { BodyRef, TableCell } from './comment.events';
import { CommentQueries, type CommentPlace } from './comment.queries';

/**
 * A body as a request sends it: markdown, a JSON document as the platform sends it
 * (`{ document }`), or the document itself (`{ object: 'document', … }`, as this service took it first).
 */
export type BodyInput = { markdown: string } | { document: unknown } | { object: 'document'; [member: string]: unknown };

/** A comment as a request posts it: on the space or change request as a whole, on a page, or on a block of a page. */
export interface PostInput {
  page?: string;
  node?: string;
  tableCell?: TableCell;
  body: BodyInput;
}

/** A PUT on a comment or a reply, as the request sends it. */
export interface ChangesInput {
  body?: BodyInput;
  resolved?: boolean;
  addedReactions?: string[];
  removedReactions?: string[];
}

/** Longest markdown body of a comment or reply. */
export const MAX_BODY_LENGTH = 16_384;

/**
 * Longest markdown a JSON document body renders to. Events carry it (reads answer it as is), so it
 * is bounded like a markdown body, with room for what rendering adds (escapes, list markers).
 */
export const MAX_DOCUMENT_MARKDOWN_LENGTH = 4 * MAX_BODY_LENGTH;

const MENTION = /(^|[^\w@/[])@([0-9A-Za-z]{20})(?![0-9A-Za-z])/g;

/** `@<userId>` of the users given (members of the organization) as links to them, which content's converter reads as mentions; other ids stay as written. */
export function linkMentions(markdown: string, users: ReadonlyMap<string, { displayName?: string }>): string {
  return markdown.replace(MENTION, (whole, before: string, userId: string) => {
    const user = users.get(userId);
    if (!user) return whole;
    const name = (user.displayName ?? userId).replace(/[\\[\]]/g, (character) => `\\${character}`);
    return `${before}[@${name}](/users/${userId})`;
  });
}

/**
 * The comment writes: one method per command. Each resolves where the comment sits (the space, and
 * the change request for that group) with the caller's access, then runs the thread's decider.
 */
@Injectable()
export class CommentCommands {
  constructor(
    @Inject(COMMAND_RUNNER) private readonly commands: CommandRunner,
    @Inject(COMMENT_CONTENT) private readonly content: CommentContent,
    @Inject(COMMENT_USERS) private readonly users: CommentPeople,
    @Inject(COMMENT_MEMBERS) private readonly members: CommentMembers,
    private readonly queries: CommentQueries,
    private readonly bodies: CommentBodies,
  ) {}

  async post(where: CommentPlace, input: PostInput, caller: Caller): Promise<string> {
    const by = author(caller);
    if (input.node !== undefined && input.page === undefined) throw DomainError.invalid('node needs page: a block is found in the page given');
    const place = await this.queries.place(where, caller);
    let node: { id: string; preview: string; fingerprint: string } | null = null;
    if (input.page !== undefined) {
      const target = await this.content.target(place.space.id, place.revision, input.page, input.node);
      if (!target) throw DomainError.notFound(`no page ${input.page} in revision ${place.revision}`);
      if (input.node !== undefined && !target.node) throw DomainError.notFound(`no block ${input.node} in page ${input.page}`);
      if (input.node !== undefined && target.node) node = { id: input.node, ...target.node };
    }
    const commentId = newId();
    await this.run(
      {
        kind: 'PostComment',
        commentId,
        scope: { spaceId: place.space.id, organizationId: place.space.organizationId, changeRequestId: place.changeRequestId },
        target: { pageId: input.page ?? null, node, ...(input.tableCell !== undefined ? { tableCell: { record: input.tableCell.record, definition: input.tableCell.definition } } : {}), revision: place.revision },
        body: await this.body(input.body, place.space.organizationId),
        by,
        access: place.access,
        now: this.now(),
      },
      caller,
    );
    return commentId;
  }

  async update(where: CommentPlace, commentId: string, input: ChangesInput, caller: Caller, ifMatch?: number): Promise<void> {
    const { access, space } = await this.queries.thread(where, commentId, caller);
    await this.run({ kind: 'UpdateComment', commentId, changes: await this.changes(input, space.organizationId), by: author(caller), access, now: this.now() }, caller, ifMatch);
  }

  async delete(where: CommentPlace, commentId: string, caller: Caller, ifMatch?: number): Promise<void> {
    const { access } = await this.queries.thread(where, commentId, caller);
    await this.run({ kind: 'DeleteComment', commentId, by: author(caller), access, now: this.now() }, caller, ifMatch);
  }

  async reply(where: CommentPlace, commentId: string, body: BodyInput, caller: Caller): Promise<string> {
    const { access, space } = await this.queries.thread(where, commentId, caller);
    const replyId = newId();
    await this.run({ kind: 'PostReply', commentId, replyId, body: await this.body(body, space.organizationId), by: author(caller), access, now: this.now() }, caller);
    return replyId;
  }

  /** A reply is versioned by its comment's stream, where it lives: `ifMatch` names that stream's revision. */
  async updateReply(where: CommentPlace, commentId: string, replyId: string, input: ChangesInput, caller: Caller, ifMatch?: number): Promise<void> {
    const { access, space } = await this.queries.thread(where, commentId, caller);
    await this.run({ kind: 'UpdateReply', commentId, replyId, changes: await this.changes(input, space.organizationId), mayResolve: where.changeRequest !== undefined, by: author(caller), access, now: this.now() }, caller, ifMatch);
  }

  async deleteReply(where: CommentPlace, commentId: string, replyId: string, caller: Caller, ifMatch?: number): Promise<void> {
    const { access } = await this.queries.thread(where, commentId, caller);
    await this.run({ kind: 'DeleteReply', commentId, replyId, by: author(caller), access, now: this.now() }, caller, ifMatch);
  }

  private async changes(input: ChangesInput, organizationId: string): Promise<CommentChanges> {
    return {
      ...(input.body !== undefined ? { body: await this.body(input.body, organizationId) } : {}),
      ...(input.resolved !== undefined ? { resolved: input.resolved } : {}),
      ...(input.addedReactions !== undefined ? { addedReactions: input.addedReactions } : {}),
      ...(input.removedReactions !== undefined ? { removedReactions: input.removedReactions } : {}),
    };
  }

  /**
   * The body converted (content's converter, in the untrusted-work pool) and stored: its document
   * in the blob store, its markdown rendered from it with the event. In markdown, `@<userId>` of
   * members of the space's organization become mentions: anyone else's id stays plain text, so a
   * mention reveals no name of someone the author shares no organization with, nor whether such a
   * user exists.
   */
  private async body(input: BodyInput, organizationId: string): Promise<BodyRef> {
    if ('markdown' in input) {
      if (typeof input.markdown !== 'string') throw DomainError.invalid('body.markdown must be a string');
      if (input.markdown.length > MAX_BODY_LENGTH) throw DomainError.invalid(`body.markdown must be at most ${MAX_BODY_LENGTH} characters`);
      if (input.markdown.trim() === '') throw DomainError.invalid('body.markdown must not be blank');
      const mentioned = [...new Set([...input.markdown.matchAll(MENTION)].map((match) => match[2]))].filter((id) => ID_SHAPES.entity.test(id)).slice(0, 50);
      const members = mentioned.length > 0 ? await this.members.membersAmong(organizationId, mentioned) : new Set<string>();
      const users = members.size > 0 ? await this.users.byIds([...members]) : new Map();
      return this.bodies.store(await this.content.document({ markdown: linkMentions(input.markdown, users) }));
    }
    const field = 'document' in input ? 'body.document' : 'body';
    const document = 'document' in input ? input.document : input;
    if (document === null || typeof document !== 'object' || Array.isArray(document) || (document as { object?: unknown }).object !== 'document') {
      throw DomainError.invalid(`${field} must be a JSON document ({ object: "document", nodes }); body takes { markdown } or { document }`);
    }
    const converted = await this.content.document({ document });
    if (converted.markdown.trim() === '') throw DomainError.invalid(`${field} must not be empty: it has no text`);
    if (converted.markdown.length > MAX_DOCUMENT_MARKDOWN_LENGTH) throw DomainError.invalid(`${field} is too large: as markdown it is ${converted.markdown.length} characters, at most ${MAX_DOCUMENT_MARKDOWN_LENGTH}`);
    return this.bodies.store(converted);
  }

  /**
   * Runs a command on the thread's stream; with `ifMatch`, only at that revision (412 otherwise).
   * A conditional command is first decided against the thread as it is now: what the thread
   * refuses anyway (a reply the caller cannot see, 404; a change they may not make, 403; an invalid
   * one, 400) is refused for that reason, and only a command it would accept is compared with
   * If-Match (RFC 9110, 13.2.1), so a 412 never tells a caller the version of what they may not change.
   */
  private async run(command: CommentCommand, caller: Caller, ifMatch?: number): Promise<void> {
    const stream = commentStream(command.commentId);
    if (ifMatch !== undefined) {
      const { state } = await this.commands.load(stream, commentDecider);
      const refused = commentDecider.decide(command, state);
      if (refused instanceof DomainError) throw refused;
    }
    await this.commands.run(stream, commentDecider, command, { caller }, { ifMatch });
  }

  private now(): string {
    return this.commands.now().toISOString();
  }
}

/** Comments are people's: the service's admin token posts none. */
function author(caller: Caller): string {
  if (caller.kind !== 'user') throw DomainError.forbidden('comments are written by users, not with the service token');
  return caller.userId;
}

export type { CommentAccess };
