import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../../platform/src/errors';
import type { Caller } from '../../platform/src/http/auth';
import { ID_SHAPES, newId } from '../../platform/src/ids';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import { COMMENT_CONTENT, type CommentContent } from './comments-content.port';
import { COMMENT_MEMBERS, COMMENT_USERS, type CommentMembers, type CommentPeople } from './comments-spaces.port';
import { commentDecider, commentStream, type CommentAccess, type CommentChanges, type CommentCommand } from './comment.decider';
import type { CommentBody } from './comment.events';
import { CommentQueries, type CommentPlace } from './comment.queries';

/** A body as a request sends it: markdown, or a JSON document. */
export type BodyInput = { markdown: string } | { object: 'document'; [member: string]: unknown };

/** A PUT on a comment or a reply, as the request sends it. */
export interface ChangesInput {
  body?: BodyInput;
  resolved?: boolean;
  addedReactions?: string[];
  removedReactions?: string[];
}

/** Longest markdown body of a comment or reply. */
export const MAX_BODY_LENGTH = 16_384;

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
  ) {}

  async post(where: CommentPlace, input: { page: string; node?: string; body: BodyInput }, caller: Caller): Promise<string> {
    const by = author(caller);
    const place = await this.queries.place(where, caller);
    const target = await this.content.target(place.space.id, place.revision, input.page, input.node);
    if (!target) throw DomainError.notFound(`no page ${input.page} in revision ${place.revision}`);
    if (input.node !== undefined && !target.node) throw DomainError.notFound(`no block ${input.node} in page ${input.page}`);
    const commentId = newId();
    await this.run(
      {
        kind: 'PostComment',
        commentId,
        scope: { spaceId: place.space.id, organizationId: place.space.organizationId, changeRequestId: place.changeRequestId },
        target: { pageId: input.page, node: input.node !== undefined && target.node ? { id: input.node, ...target.node } : null, revision: place.revision },
        ...(await this.body(input.body, place.space.organizationId)),
        by,
        access: place.access,
        now: this.now(),
      },
      caller,
    );
    return commentId;
  }

  async update(where: CommentPlace, commentId: string, input: ChangesInput, caller: Caller): Promise<void> {
    const { access, space } = await this.queries.thread(where, commentId, caller);
    await this.run({ kind: 'UpdateComment', commentId, changes: await this.changes(input, space.organizationId), by: author(caller), access, now: this.now() }, caller);
  }

  async delete(where: CommentPlace, commentId: string, caller: Caller): Promise<void> {
    const { access } = await this.queries.thread(where, commentId, caller);
    await this.run({ kind: 'DeleteComment', commentId, by: author(caller), access, now: this.now() }, caller);
  }

  async reply(where: CommentPlace, commentId: string, body: BodyInput, caller: Caller): Promise<string> {
    const { access, space } = await this.queries.thread(where, commentId, caller);
    const replyId = newId();
    await this.run({ kind: 'PostReply', commentId, replyId, ...(await this.body(body, space.organizationId)), by: author(caller), access, now: this.now() }, caller);
    return replyId;
  }

  async updateReply(where: CommentPlace, commentId: string, replyId: string, input: ChangesInput, caller: Caller): Promise<void> {
    const { access, space } = await this.queries.thread(where, commentId, caller);
    await this.run({ kind: 'UpdateReply', commentId, replyId, changes: await this.changes(input, space.organizationId), mayResolve: where.changeRequest !== undefined, by: author(caller), access, now: this.now() }, caller);
  }

  async deleteReply(where: CommentPlace, commentId: string, replyId: string, caller: Caller): Promise<void> {
    const { access } = await this.queries.thread(where, commentId, caller);
    await this.run({ kind: 'DeleteReply', commentId, replyId, by: author(caller), access, now: this.now() }, caller);
  }

  private async changes(input: ChangesInput, organizationId: string): Promise<CommentChanges> {
    return {
      ...(input.body !== undefined ? await this.body(input.body, organizationId) : {}),
      ...(input.resolved !== undefined ? { resolved: input.resolved } : {}),
      ...(input.addedReactions !== undefined ? { addedReactions: input.addedReactions } : {}),
      ...(input.removedReactions !== undefined ? { removedReactions: input.removedReactions } : {}),
    };
  }

  /**
   * The body as a document (content's converter) and its markdown rendered from it, with
   * `@<userId>` of members of the space's organization as mentions: anyone else's id stays plain
   * text, so a mention reveals no name of someone the author shares no organization with, nor
   * whether such a user exists.
   */
  private async body(input: BodyInput, organizationId: string): Promise<{ body: CommentBody; bodyMarkdown: string }> {
    if ('markdown' in input) {
      if (typeof input.markdown !== 'string') throw DomainError.invalid('body.markdown must be a string');
      if (input.markdown.length > MAX_BODY_LENGTH) throw DomainError.invalid(`body.markdown must be at most ${MAX_BODY_LENGTH} characters`);
      if (input.markdown.trim() === '') throw DomainError.invalid('body.markdown must not be blank');
      const mentioned = [...new Set([...input.markdown.matchAll(MENTION)].map((match) => match[2]))].filter((id) => ID_SHAPES.entity.test(id)).slice(0, 50);
      const members = mentioned.length > 0 ? await this.members.membersAmong(organizationId, mentioned) : new Set<string>();
      const users = members.size > 0 ? await this.users.byIds([...members]) : new Map();
      return stored(await this.content.document({ markdown: linkMentions(input.markdown, users) }));
    }
    if ((input as { object?: unknown }).object !== 'document') throw DomainError.invalid('body must be { markdown } or a document ({ object: "document", nodes })');
    return stored(await this.content.document({ document: input }));
  }

  private async run(command: CommentCommand, caller: Caller): Promise<void> {
    await this.commands.run(commentStream(command.commentId), commentDecider, command, { caller });
  }

  private now(): string {
    return this.commands.now().toISOString();
  }
}

/**
 * A converted body as the command carries it; its event holds both. From a markdown body (at most
 * MAX_BODY_LENGTH) the document is about ten times the markdown (~170 KB for a 16 KiB nested list)
 * and the markdown rendered back about the markdown, well within the event store's batch limit
 * (~960 KB). A JSON document's markdown is about its text, so a document body takes up to about
 * twice its text: one too large for the event store is refused by it with a 400 naming the size.
 */
function stored(converted: { document: CommentBody; markdown: string }): { body: CommentBody; bodyMarkdown: string } {
  return { body: converted.document, bodyMarkdown: converted.markdown };
}

/** Comments are people's: the service's admin token posts none. */
function author(caller: Caller): string {
  if (caller.kind !== 'user') throw DomainError.forbidden('comments are written by users, not with the service token');
  return caller.userId;
}

export type { CommentAccess };
