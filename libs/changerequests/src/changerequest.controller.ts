import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Body, Controller, Delete, Get, Headers, HttpCode, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiHeader, ApiNoContentResponse, ApiOkResponse, ApiProduces } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, Public, type Caller } from '#platform/http/auth';
import { etagOf, parseIfMatch } from '#platform/http/etag';
import { PathId } from '#platform/http/id-param';
import { ListQuery } from '#platform/http/list';
import { Valid } from '#platform/http/validation';
import { etagHeader, listOf, ref } from '#platform/platform.schemas';
import {
  CreateChangeRequest,
  EditChangeRequest,
  MergeChangeRequest,
  RemoveReviewer,
  RequestReviewers,
  ReviewChangeRequest,
  UpdateChangeRequestFromMain,
} from './changerequest.commands';
import {
  ChangeRequestListQuery,
  CreateChangeRequestBody,
  PdfDownloadQuery,
  PdfQuery,
  RequestReviewersBody,
  ReviewBody,
  UpdateChangeRequestBody,
} from './changerequest.dto';
import {
  GetChangeRequest,
  GetChangeRequestChanges,
  GetChangeRequestPdf,
  GetChangeRequestPdfUrl,
  GetChangeRequestReview,
  ListChangeRequestReviews,
  ListChangeRequests,
  ListOrganizationChangeRequests,
  ListRequestedReviewers,
} from './changerequest.queries';

/**
 * Change requests of a space: `/v1/spaces/{spaceId}/change-requests…` (the interface's "Change
 * requests" table), with reviews, requested reviewers, changes and the PDF download as extensions.
 * The content of a request (`…/change-requests/{changeRequestId}/content…`) is served by the
 * content context, which owns every content read and write. A request answers its stream revision
 * as its `ETag`; every write of it (edit, merge, update from main, removing a requested reviewer)
 * accepts it as `If-Match` (412 when stale, after the caller's 404 or 403).
 */
@Controller('v1/spaces/:spaceId/change-requests')
export class ChangeRequestController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get()
  @ApiOkResponse({ description: 'OK', schema: listOf('ChangeRequest') })
  list(@PathId('spaceId', 'space') spaceId: string, @Query(Valid) query: ChangeRequestListQuery, @CurrentCaller() caller: Caller) {
    return this.queryBus.execute(new ListChangeRequests(spaceId, caller, query));
  }

  @Post()
  @ApiCreatedResponse({ description: 'created', schema: ref('ChangeRequest'), headers: etagHeader })
  async create(
    @PathId('spaceId', 'space') spaceId: string,
    @Body(Valid) body: CreateChangeRequestBody,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const id = await this.commandBus.execute(new CreateChangeRequest(spaceId, body, caller));
    return this.answer(spaceId, id, caller, reply);
  }

  @Get(':changeRequestId')
  @ApiOkResponse({ description: 'OK', schema: ref('ChangeRequest'), headers: etagHeader })
  get(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') changeRequestId: string,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.answer(spaceId, changeRequestId, caller, reply);
  }

  @Patch(':changeRequestId')
  @ApiOkResponse({ description: 'OK', schema: ref('ChangeRequest'), headers: etagHeader })
  @ApiNoContentResponse({ description: 'changed, with `Prefer: return=minimal`' })
  @ApiHeader({
    name: 'prefer',
    required: false,
    schema: { type: 'string', enum: ['return=minimal', 'return=representation'] },
    description: 'return=minimal: answer 204 without the request',
  })
  async update(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') changeRequestId: string,
    @Body(Valid) body: UpdateChangeRequestBody,
    @Headers('if-match') ifMatch: string | undefined,
    @Headers('prefer') prefer: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const id = await this.commandBus.execute(new EditChangeRequest(spaceId, changeRequestId, body, caller, parseIfMatch(ifMatch)));
    // The platform's returnPreference: a client that asks for no representation gets 204.
    if (prefer?.trim().toLowerCase() === 'return=minimal') {
      void reply.code(204);
      return undefined;
    }
    return this.answer(spaceId, id, caller, reply);
  }

  @Post(':changeRequestId/merge')
  @HttpCode(200)
  @ApiOkResponse({ description: 'the merge revision on main', schema: ref('ChangeRequestMergeResult') })
  async merge(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') changeRequestId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    const { revision } = await this.commandBus.execute(new MergeChangeRequest(spaceId, changeRequestId, caller, parseIfMatch(ifMatch)));
    return { revision, result: 'merge' };
  }

  @Post(':changeRequestId/update')
  @HttpCode(200)
  @ApiOkResponse({ description: 'the request’s new head, with main merged in', schema: ref('ChangeRequestUpdateResult') })
  async updateFromMain(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') changeRequestId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    const { revision } = await this.commandBus.execute(
      new UpdateChangeRequestFromMain(spaceId, changeRequestId, caller, parseIfMatch(ifMatch)),
    );
    return { revision, result: 'update' };
  }

  @Get(':changeRequestId/changes')
  @ApiOkResponse({ description: 'what the request changes against the main revision it builds on', schema: ref('ChangeRequestChanges') })
  changes(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') changeRequestId: string,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new GetChangeRequestChanges(spaceId, changeRequestId, caller));
  }

  @Get(':changeRequestId/requested-reviewers')
  @ApiOkResponse({ description: 'OK', schema: listOf('RequestedReviewer') })
  requestedReviewers(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') changeRequestId: string,
    @Query(Valid) query: ListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListRequestedReviewers(spaceId, changeRequestId, caller, query));
  }

  @Post(':changeRequestId/requested-reviewers')
  @HttpCode(200)
  @ApiOkResponse({ description: 'the requested reviewers', schema: listOf('RequestedReviewer') })
  async requestReviewers(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') changeRequestId: string,
    @Body(Valid) body: RequestReviewersBody,
    @CurrentCaller() caller: Caller,
  ) {
    const id = await this.commandBus.execute(new RequestReviewers(spaceId, changeRequestId, body.users, caller));
    return this.queryBus.execute(new ListRequestedReviewers(spaceId, id, caller, {}));
  }

  @Delete(':changeRequestId/requested-reviewers/:userId')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'removed' })
  async removeReviewer(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') changeRequestId: string,
    @PathId('userId', 'user') userId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
  ) {
    await this.commandBus.execute(new RemoveReviewer(spaceId, changeRequestId, userId, caller, parseIfMatch(ifMatch)));
  }

  @Get(':changeRequestId/reviews')
  @ApiOkResponse({ description: 'OK', schema: listOf('ChangeRequestReview') })
  reviews(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') changeRequestId: string,
    @Query(Valid) query: ListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListChangeRequestReviews(spaceId, changeRequestId, caller, query));
  }

  @Post(':changeRequestId/reviews')
  @ApiCreatedResponse({ description: 'created', schema: ref('ChangeRequestReview') })
  async review(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') changeRequestId: string,
    @Body(Valid) body: ReviewBody,
    @CurrentCaller() caller: Caller,
  ) {
    const { reviewId, changeRequestId: id } = await this.commandBus.execute(
      new ReviewChangeRequest(spaceId, changeRequestId, body, caller),
    );
    return this.queryBus.execute(new GetChangeRequestReview(spaceId, id, reviewId, caller));
  }

  @Get(':changeRequestId/reviews/:reviewId')
  @ApiOkResponse({ description: 'OK', schema: ref('ChangeRequestReview') })
  getReview(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') changeRequestId: string,
    @PathId('reviewId', 'review') reviewId: string,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new GetChangeRequestReview(spaceId, changeRequestId, reviewId, caller));
  }

  @Get(':changeRequestId/pdf')
  @ApiOkResponse({ description: 'a signed URL of the PDF, valid for 15 minutes', schema: ref('PdfUrl') })
  pdf(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') changeRequestId: string,
    @Query(Valid) query: PdfQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(
      new GetChangeRequestPdfUrl(spaceId, changeRequestId, caller, {
        ...(query.page !== undefined ? { page: query.page } : {}),
        only: query.only === 'true',
      }),
    );
  }

  /** The PDF itself (extension): only by the signed URL `GET .../pdf` answers. */
  @Get(':changeRequestId/pdf/download')
  @Public()
  @ApiProduces('application/pdf')
  @ApiOkResponse({ description: 'the PDF', schema: { type: 'string', format: 'binary' } })
  async pdfDownload(
    @PathId('spaceId', 'space') spaceId: string,
    @PathId('changeRequestId', 'change request') changeRequestId: string,
    @Query(Valid) query: PdfDownloadQuery,
    @Res() reply: FastifyReply,
  ) {
    const { bytes, filename } = await this.queryBus.execute(new GetChangeRequestPdf(spaceId, changeRequestId, query));
    return reply
      .header('content-type', 'application/pdf')
      .header('content-length', String(bytes.length))
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'private, max-age=900')
      .header('content-disposition', `inline; filename="${filename}"`)
      .send(bytes);
  }

  private async answer(spaceId: string, changeRequestId: string, caller: Caller, reply: FastifyReply) {
    const { object, streamRevision } = await this.queryBus.execute(new GetChangeRequest(spaceId, changeRequestId, caller));
    void reply.header('etag', etagOf(streamRevision));
    return object;
  }
}

/** `GET /v1/orgs/{organizationId}/change-requests` (extension): requests across the spaces the caller can read. */
@Controller('v1/orgs/:organizationId/change-requests')
export class OrganizationChangeRequestController {
  constructor(private readonly queryBus: QueryBus) {}

  @Get()
  @ApiOkResponse({ description: 'OK', schema: listOf('ChangeRequest') })
  list(
    @PathId('organizationId', 'organization') organizationId: string,
    @Query(Valid) query: ChangeRequestListQuery,
    @CurrentCaller() caller: Caller,
  ) {
    return this.queryBus.execute(new ListOrganizationChangeRequests(organizationId, caller, query));
  }
}
