import { Command, CommandHandler } from '@nestjs/cqrs';
import { Inject } from '@nestjs/common';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { newId } from '#platform/ids';
import { DecidingHandler } from '#runtime/command-handler';
import { COMMENT_CONTENT, type CommentContent } from './comments.needs';
import { commentDecider, commentStream, type CommentAccess, type CommentChanges, type CommentCommand } from './comment.decider';
import { CommentBodies, type BodyInput } from './comment.bodies';
import type { TableCell } from './comment.events';
import { CommentPlaces, type CommentPlace } from './comment.places';

/*
 * The comment writes. Each resolves where the comment sits (the space, and the change request for
 * that group) with the caller's access (CommentPlaces), then decides on the thread's stream.
 */

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

/** `POST …/comments`: answers the new comment's id. */
export class PostComment extends Command<string> {
  constructor(
    readonly place: CommentPlace,
    readonly input: PostInput,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(PostComment)
export class PostCommentHandler extends DecidingHandler {
  constructor(
    @Inject(COMMENT_CONTENT) private readonly content: CommentContent,
    private readonly places: CommentPlaces,
    private readonly bodies: CommentBodies,
  ) {
    super();
  }

  async execute({ place: where, input, caller }: PostComment): Promise<string> {
    const by = author(caller);
    if (input.node !== undefined && input.page === undefined)
      throw DomainError.invalid('node needs page: a block is found in the page given');
    const place = await this.places.place(where, caller);
    let node: { id: string; preview: string; fingerprint: string } | null = null;
    if (input.page !== undefined) {
      const target = await this.content.target(place.space.id, place.revision, input.page, input.node);
      if (!target) throw DomainError.notFound(`no page ${input.page} in revision ${place.revision}`);
      if (input.node !== undefined && !target.node) throw DomainError.notFound(`no block ${input.node} in page ${input.page}`);
      if (input.node !== undefined && target.node) node = { id: input.node, ...target.node };
    }
    const commentId = newId();
    await this.decide(
      commentStream(commentId),
      commentDecider,
      {
        kind: 'PostComment',
        commentId,
        scope: { spaceId: place.space.id, organizationId: place.space.organizationId, changeRequestId: place.changeRequestId },
        target: {
          pageId: input.page ?? null,
          node,
          ...(input.tableCell !== undefined
            ? { tableCell: { record: input.tableCell.record, definition: input.tableCell.definition } }
            : {}),
          revision: place.revision,
        },
        body: await this.bodies.fromInput(input.body, place.space.organizationId),
        by,
        access: place.access,
        now: this.now(),
      },
      { caller },
    );
    return commentId;
  }
}

/** `PUT …/comments/{commentId}`: its body, resolution and reactions; `ifMatch` names the thread's stream revision. */
export class UpdateComment extends Command<void> {
  constructor(
    readonly place: CommentPlace,
    readonly commentId: string,
    readonly changes: ChangesInput,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(UpdateComment)
export class UpdateCommentHandler extends DecidingHandler {
  constructor(
    private readonly places: CommentPlaces,
    private readonly bodies: CommentBodies,
  ) {
    super();
  }

  async execute({ place: where, commentId, changes, caller, ifMatch }: UpdateComment): Promise<void> {
    const { access, space } = await this.places.thread(where, commentId, caller);
    const stream = commentStream(commentId);
    const command: CommentCommand = {
      kind: 'UpdateComment',
      commentId,
      changes: await changesOf(changes, space.organizationId, this.bodies),
      by: author(caller),
      access,
      now: this.now(),
    };
    await this.decide(stream, commentDecider, command, { caller, ifMatch });
  }
}

/** `DELETE …/comments/{commentId}`: the comment with its replies. */
export class DeleteComment extends Command<void> {
  constructor(
    readonly place: CommentPlace,
    readonly commentId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(DeleteComment)
export class DeleteCommentHandler extends DecidingHandler {
  constructor(private readonly places: CommentPlaces) {
    super();
  }

  async execute({ place: where, commentId, caller, ifMatch }: DeleteComment): Promise<void> {
    const { access } = await this.places.thread(where, commentId, caller);
    const stream = commentStream(commentId);
    const command: CommentCommand = { kind: 'DeleteComment', commentId, by: author(caller), access, now: this.now() };
    await this.decide(stream, commentDecider, command, { caller, ifMatch });
  }
}

/** `POST …/comments/{commentId}/replies`: answers the new reply's id. */
export class PostReply extends Command<string> {
  constructor(
    readonly place: CommentPlace,
    readonly commentId: string,
    readonly body: BodyInput,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(PostReply)
export class PostReplyHandler extends DecidingHandler {
  constructor(
    private readonly places: CommentPlaces,
    private readonly bodies: CommentBodies,
  ) {
    super();
  }

  async execute({ place: where, commentId, body, caller }: PostReply): Promise<string> {
    const { access, space } = await this.places.thread(where, commentId, caller);
    const replyId = newId();
    await this.decide(
      commentStream(commentId),
      commentDecider,
      {
        kind: 'PostReply',
        commentId,
        replyId,
        body: await this.bodies.fromInput(body, space.organizationId),
        by: author(caller),
        access,
        now: this.now(),
      },
      { caller },
    );
    return replyId;
  }
}

/** `PUT …/comments/{commentId}/replies/{commentReplyId}`. A reply is versioned by its comment's stream, where it lives: `ifMatch` names that stream's revision. */
export class UpdateReply extends Command<void> {
  constructor(
    readonly place: CommentPlace,
    readonly commentId: string,
    readonly replyId: string,
    readonly changes: ChangesInput,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(UpdateReply)
export class UpdateReplyHandler extends DecidingHandler {
  constructor(
    private readonly places: CommentPlaces,
    private readonly bodies: CommentBodies,
  ) {
    super();
  }

  async execute({ place: where, commentId, replyId, changes, caller, ifMatch }: UpdateReply): Promise<void> {
    const { access, space } = await this.places.thread(where, commentId, caller);
    const stream = commentStream(commentId);
    const command: CommentCommand = {
      kind: 'UpdateReply',
      commentId,
      replyId,
      changes: await changesOf(changes, space.organizationId, this.bodies),
      mayResolve: where.changeRequest !== undefined,
      by: author(caller),
      access,
      now: this.now(),
    };
    await this.decide(stream, commentDecider, command, { caller, ifMatch });
  }
}

/** `DELETE …/comments/{commentId}/replies/{commentReplyId}`; `ifMatch` names the comment's stream revision. */
export class DeleteReply extends Command<void> {
  constructor(
    readonly place: CommentPlace,
    readonly commentId: string,
    readonly replyId: string,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(DeleteReply)
export class DeleteReplyHandler extends DecidingHandler {
  constructor(private readonly places: CommentPlaces) {
    super();
  }

  async execute({ place: where, commentId, replyId, caller, ifMatch }: DeleteReply): Promise<void> {
    const { access } = await this.places.thread(where, commentId, caller);
    const stream = commentStream(commentId);
    const command: CommentCommand = { kind: 'DeleteReply', commentId, replyId, by: author(caller), access, now: this.now() };
    await this.decide(stream, commentDecider, command, { caller, ifMatch });
  }
}

export const commentCommandHandlers = [
  PostCommentHandler,
  UpdateCommentHandler,
  DeleteCommentHandler,
  PostReplyHandler,
  UpdateReplyHandler,
  DeleteReplyHandler,
];

/** The changes of a PUT as the decider takes them, a new body converted and stored. */
async function changesOf(input: ChangesInput, organizationId: string, bodies: CommentBodies): Promise<CommentChanges> {
  return {
    ...(input.body !== undefined ? { body: await bodies.fromInput(input.body, organizationId) } : {}),
    ...(input.resolved !== undefined ? { resolved: input.resolved } : {}),
    ...(input.addedReactions !== undefined ? { addedReactions: input.addedReactions } : {}),
    ...(input.removedReactions !== undefined ? { removedReactions: input.removedReactions } : {}),
  };
}

/** Comments are people's: the service's admin token posts none. */
function author(caller: Caller): string {
  if (caller.kind !== 'user') throw DomainError.forbidden('comments are written by users, not with the service token');
  return caller.userId;
}

export type { CommentAccess };
