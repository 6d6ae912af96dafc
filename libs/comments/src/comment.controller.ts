import { CommandBus, QueryBus } from '@nestjs/cqrs';
import {
  Body,
  Controller,
  createParamDecorator,
  Delete,
  Get,
  Headers,
  HttpCode,
  Post,
  Put,
  Query,
  Res,
  type ExecutionContext,
  type Type,
} from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiParam } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, type Caller } from '#platform/http/auth';
import { parseIfMatch, tagged } from '#platform/http/etag';
import { PathId, pathId, PATH_ID_KINDS } from '#platform/http/id-param';
import { ListQuery } from '#platform/http/list';
import { CachedRead } from '#platform/http/response-cache';
import { Valid } from '#platform/http/validation';
import { ID_SHAPES } from '#platform/ids';
import { etagHeader, listOf, ref } from '#platform/platform.schemas';
import { DeleteComment, DeleteReply, PostComment, PostReply, UpdateComment, UpdateReply } from './comment.commands';
import { CommentListQueryDto, FormatQuery, PostCommentBody, PostReplyBody, ReplyListQuery, UpdateCommentBody } from './comment.dto';
import type { CommentPlace } from './comment.places';
import { GetComment, GetReply, ListCommenters, ListComments, ListReplies } from './comment.queries';

/** The place of a route: `{spaceId}`, and `{changeRequestId}` (id or number) in the change-request group; 404 for what cannot be an id. */
function Place(inChangeRequest: boolean): ParameterDecorator {
  const names = inChangeRequest ? ['spaceId', 'changeRequestId'] : ['spaceId'];
  const documented = (target: object, key: string | symbol | undefined) => {
    if (key === undefined) return;
    for (const name of names)
      ApiParam({ name, required: true, schema: { type: 'string', pattern: ID_SHAPES[PATH_ID_KINDS[name]].source } })(
        target,
        key,
        Object.getOwnPropertyDescriptor(target, key)!,
      );
  };
  return createParamDecorator(
    (_: unknown, context: ExecutionContext): CommentPlace => {
      const params = context.switchToHttp().getRequest<{ params: Record<string, unknown> }>().params;
      const spaceId = pathId(params.spaceId, 'space', PATH_ID_KINDS.spaceId);
      return inChangeRequest
        ? { spaceId, changeRequest: pathId(params.changeRequestId, 'change request', PATH_ID_KINDS.changeRequestId) }
        : { spaceId };
    },
    [documented],
  )();
}

/**
 * The comment routes of one group (the interface's "Comments" table): the space's comments under
 * `/v1/spaces/{spaceId}`, a change request's under `/v1/spaces/{spaceId}/change-requests/{changeRequestId}`.
 * Both groups are the same routes over a different place, so one definition makes both controllers.
 * A comment and its replies live in one stream: both answer its revision as `ETag`, and their
 * writes accept it as `If-Match` (412 when stale).
 */
function commentRoutes(path: string, inChangeRequest: boolean): Type {
  @Controller(path)
  class CommentRoutes {
    constructor(
      private readonly commandBus: CommandBus,
      private readonly queryBus: QueryBus,
    ) {}

    @Get('comments')
    @CachedRead()
    @ApiOkResponse({ description: 'OK', schema: listOf('Comment') })
    list(@Place(inChangeRequest) place: CommentPlace, @Query(Valid) query: CommentListQueryDto, @CurrentCaller() caller: Caller) {
      return this.queryBus.execute(new ListComments(place, caller, query));
    }

    @Post('comments')
    @ApiCreatedResponse({
      description: 'the comment posted (201; the platform answers 200: README, "Where the service differs from the platform")',
      schema: ref('Comment'),
      headers: etagHeader,
    })
    async post(
      @Place(inChangeRequest) place: CommentPlace,
      @Body(Valid) body: PostCommentBody,
      @CurrentCaller() caller: Caller,
      @Res({ passthrough: true }) reply: FastifyReply,
    ) {
      const id = await this.commandBus.execute(new PostComment(place, body, caller));
      return tagged(reply, await this.queryBus.execute(new GetComment(place, id, caller)));
    }

    @Get('comments/:commentId')
    @ApiOkResponse({ description: 'OK', schema: ref('Comment'), headers: etagHeader })
    async get(
      @Place(inChangeRequest) place: CommentPlace,
      @PathId('commentId', 'comment') commentId: string,
      @Query(Valid) query: FormatQuery,
      @CurrentCaller() caller: Caller,
      @Res({ passthrough: true }) reply: FastifyReply,
    ) {
      return tagged(reply, await this.queryBus.execute(new GetComment(place, commentId, caller, query.format)));
    }

    @Put('comments/:commentId')
    @ApiOkResponse({ description: 'OK', schema: ref('Comment'), headers: etagHeader })
    async update(
      @Place(inChangeRequest) place: CommentPlace,
      @PathId('commentId', 'comment') commentId: string,
      @Body(Valid) body: UpdateCommentBody,
      @Headers('if-match') ifMatch: string | undefined,
      @CurrentCaller() caller: Caller,
      @Res({ passthrough: true }) reply: FastifyReply,
    ) {
      await this.commandBus.execute(new UpdateComment(place, commentId, body, caller, parseIfMatch(ifMatch)));
      return tagged(reply, await this.queryBus.execute(new GetComment(place, commentId, caller)));
    }

    @Delete('comments/:commentId')
    @HttpCode(204)
    @ApiNoContentResponse({ description: 'deleted, with its replies' })
    async delete(
      @Place(inChangeRequest) place: CommentPlace,
      @PathId('commentId', 'comment') commentId: string,
      @Headers('if-match') ifMatch: string | undefined,
      @CurrentCaller() caller: Caller,
    ) {
      await this.commandBus.execute(new DeleteComment(place, commentId, caller, parseIfMatch(ifMatch)));
    }

    @Get('comments/:commentId/replies')
    @ApiOkResponse({ description: 'OK', schema: listOf('CommentReply') })
    replies(
      @Place(inChangeRequest) place: CommentPlace,
      @PathId('commentId', 'comment') commentId: string,
      @Query(Valid) query: ReplyListQuery,
      @CurrentCaller() caller: Caller,
    ) {
      return this.queryBus.execute(new ListReplies(place, commentId, caller, query));
    }

    @Post('comments/:commentId/replies')
    @ApiCreatedResponse({
      description: 'the reply posted (201; the platform answers 200: README, "Where the service differs from the platform")',
      schema: ref('CommentReply'),
      headers: etagHeader,
    })
    async reply(
      @Place(inChangeRequest) place: CommentPlace,
      @PathId('commentId', 'comment') commentId: string,
      @Body(Valid) body: PostReplyBody,
      @CurrentCaller() caller: Caller,
      @Res({ passthrough: true }) response: FastifyReply,
    ) {
      const replyId = await this.commandBus.execute(new PostReply(place, commentId, body.body, caller));
      return tagged(response, await this.queryBus.execute(new GetReply(place, commentId, replyId, caller)));
    }

    @Get('comments/:commentId/replies/:commentReplyId')
    @ApiOkResponse({ description: 'OK', schema: ref('CommentReply'), headers: etagHeader })
    async getReply(
      @Place(inChangeRequest) place: CommentPlace,
      @PathId('commentId', 'comment') commentId: string,
      @PathId('commentReplyId', 'reply') replyId: string,
      @Query(Valid) query: FormatQuery,
      @CurrentCaller() caller: Caller,
      @Res({ passthrough: true }) reply: FastifyReply,
    ) {
      return tagged(reply, await this.queryBus.execute(new GetReply(place, commentId, replyId, caller, query.format)));
    }

    @Put('comments/:commentId/replies/:commentReplyId')
    @ApiOkResponse({ description: 'OK', schema: ref('CommentReply'), headers: etagHeader })
    async updateReply(
      @Place(inChangeRequest) place: CommentPlace,
      @PathId('commentId', 'comment') commentId: string,
      @PathId('commentReplyId', 'reply') replyId: string,
      @Body(Valid) body: UpdateCommentBody,
      @Headers('if-match') ifMatch: string | undefined,
      @CurrentCaller() caller: Caller,
      @Res({ passthrough: true }) reply: FastifyReply,
    ) {
      await this.commandBus.execute(new UpdateReply(place, commentId, replyId, body, caller, parseIfMatch(ifMatch)));
      return tagged(reply, await this.queryBus.execute(new GetReply(place, commentId, replyId, caller)));
    }

    @Delete('comments/:commentId/replies/:commentReplyId')
    @HttpCode(204)
    @ApiNoContentResponse({ description: 'deleted' })
    async deleteReply(
      @Place(inChangeRequest) place: CommentPlace,
      @PathId('commentId', 'comment') commentId: string,
      @PathId('commentReplyId', 'reply') replyId: string,
      @Headers('if-match') ifMatch: string | undefined,
      @CurrentCaller() caller: Caller,
    ) {
      await this.commandBus.execute(new DeleteReply(place, commentId, replyId, caller, parseIfMatch(ifMatch)));
    }

    @Get('commenters')
    @ApiOkResponse({ description: 'the members who commented or replied', schema: listOf('Member') })
    commenters(@Place(inChangeRequest) place: CommentPlace, @Query(Valid) query: ListQuery, @CurrentCaller() caller: Caller) {
      return this.queryBus.execute(new ListCommenters(place, caller, query));
    }
  }
  Object.defineProperty(CommentRoutes, 'name', { value: inChangeRequest ? 'ChangeRequestCommentController' : 'SpaceCommentController' });
  return CommentRoutes;
}

/** `/v1/spaces/{spaceId}/comments…` and `/v1/spaces/{spaceId}/commenters`. */
export const SpaceCommentController = commentRoutes('v1/spaces/:spaceId', false);
/** `/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments…` and `…/commenters`. */
export const ChangeRequestCommentController = commentRoutes('v1/spaces/:spaceId/change-requests/:changeRequestId', true);
