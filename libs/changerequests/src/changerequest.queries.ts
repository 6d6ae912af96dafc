import { createHmac, timingSafeEqual } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { Query, QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import { CLOCK, type Clock } from '#platform/clock';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { listEnvelope, type ListEnvelope } from '#platform/http/list';
import { READ_STORE, type Filter, type ReadStore } from '#read-store/read-store.port';
import {
  CHANGE_REQUEST_CONTENT,
  CHANGE_REQUEST_SPACES,
  CHANGE_REQUEST_URL_KEY,
  CHANGE_REQUEST_USERS,
  type ChangeRequestContent,
  type ChangeRequestDocument,
  type ChangeRequestSpace,
  type ChangeRequestSpaces,
  type ChangeRequestUsers,
} from './changerequests.needs';
import type { ChangeRequestStatus } from './changerequest.events';
import { ChangeRequestPresenter } from './changerequest.presenter';
import {
  CHANGE_REQUEST_COUNTS,
  CHANGE_REQUEST_REVIEWS,
  CHANGE_REQUEST_REVIEWS as REVIEWS,
  CHANGE_REQUESTS,
  type ChangeRequestCountsDoc,
  type ChangeRequestDoc,
  type ReviewDoc,
} from './changerequest.projections';
import { byIds } from '#platform/by-ids';

type PresentedUser = { object: 'user'; id: string };

export interface ChangeRequestObject {
  object: 'change-request';
  id: string;
  number: number;
  status: ChangeRequestStatus;
  subject: string;
  description?: ChangeRequestDocument;
  createdBy?: PresentedUser;
  createdAt: string;
  updatedAt: string;
  revision: string;
  revisionInitial: string;
  revisionMergedAncestor?: string;
  revisionMerged?: string;
  mergedBy?: PresentedUser;
  mergedAt?: string;
  agentTaskId?: string;
  space: string;
  comments: number;
  outdated: boolean;
  /** The platform's ChangeRequestLinks (`expanded` is left out: the service has no ticket connectors). */
  links: Array<{ id: string; ref: { kind: 'url'; url: string }; title?: string }>;
  urls: { app: string; location: string };
  permissions: { view: boolean; edit: boolean; review: boolean; merge: boolean };
}

export interface ReviewObject {
  object: 'change-request-review';
  id: string;
  changeRequest: string;
  status: string;
  body?: string;
  reviewer?: PresentedUser;
  revision: string;
  outdated: boolean;
  createdAt: string;
}

/** The list filters of the platform's `GET …/change-requests` (and of the organization-wide list). */
export interface ChangeRequestListFilters {
  status?: ChangeRequestStatus;
  creator?: string;
  contributor?: string;
  requestedReviewer?: string;
  topic?: string;
  orderBy?: 'updatedAt' | 'createdAt';
}

/**
 * The read-model filter of a list's query: `status` (default `open`), `creator` (who created it),
 * `contributor` (who created or edited it), `requestedReviewer` (asked to review it) and `topic`
 * (the site topic it came from: this service creates requests from no topic, so none match).
 */
export function listFilter(query: ChangeRequestListFilters): Filter {
  const filter: Filter = { status: query.status ?? 'open' };
  if (query.creator !== undefined) filter.createdBy = query.creator;
  if (query.contributor !== undefined) filter.contributors = query.contributor;
  if (query.requestedReviewer !== undefined) filter.reviewers = query.requestedReviewer;
  if (query.topic !== undefined) filter['siteTopic.topic'] = query.topic;
  return filter;
}

/** Newest first by `orderBy` (the platform's default: `updatedAt`), the number breaking ties. */
export function listOrder(query: ChangeRequestListFilters): Record<string, 1 | -1> {
  return { [query.orderBy ?? 'updatedAt']: -1, number: -1 };
}

/** How long a signed PDF URL stays valid. */
export const PDF_URL_LIFETIME_SECONDS = 15 * 60;

/*
 * The change-request reads: every read resolves the space first (404 when the caller may not see
 * it), then the request by id or number (`ref`: the path's `changeRequestId` accepts both).
 * `outdated` is decided when read: main's head is not the revision the request builds on.
 */

/** The request of the space named by id or number (`changeRequestId` accepts both), or 404. */
export async function findChangeRequest(reads: ReadStore, spaceId: string, ref: string): Promise<ChangeRequestDoc> {
  const requests = reads.collection<ChangeRequestDoc>(CHANGE_REQUESTS);
  const request =
    /^[1-9][0-9]*$/.test(ref) && ref.length < 12 ? await requests.findOne({ spaceId, number: Number(ref) }) : await requests.get(ref);
  if (!request || request.spaceId !== spaceId || request.purged) throw DomainError.notFound(`no change request ${ref} in space ${spaceId}`);
  return request;
}

/** The request a path names, without the caller's access check (comments make their own). */
export class FindChangeRequest extends Query<ChangeRequestDoc> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
  ) {
    super();
  }
}

@QueryHandler(FindChangeRequest)
export class FindChangeRequestHandler implements IQueryHandler<FindChangeRequest> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  execute({ spaceId, ref }: FindChangeRequest): Promise<ChangeRequestDoc> {
    return findChangeRequest(this.reads, spaceId, ref);
  }
}

/** `GET /spaces/{spaceId}/change-requests/{changeRequestId}`: the request and its ETag source (its stream revision), from one read. */
export class GetChangeRequest extends Query<{ object: ChangeRequestObject; streamRevision: number }> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetChangeRequest)
export class GetChangeRequestHandler implements IQueryHandler<GetChangeRequest> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CHANGE_REQUEST_SPACES) private readonly spaces: ChangeRequestSpaces,
    private readonly presenter: ChangeRequestPresenter,
  ) {}

  async execute({ spaceId, ref, caller }: GetChangeRequest): Promise<{ object: ChangeRequestObject; streamRevision: number }> {
    const space = await this.spaces.spaceFor(spaceId, caller);
    const request = await findChangeRequest(this.reads, spaceId, ref);
    return { object: (await this.presenter.present(space, [request]))[0], streamRevision: request.streamRevision };
  }
}

/** `GET /spaces/{spaceId}/change-requests`: filtered (default: open), newest first; `page` is the list's cursor. */
export class ListChangeRequests extends Query<ListEnvelope<ChangeRequestObject>> {
  constructor(
    readonly spaceId: string,
    readonly caller: Caller,
    readonly query: ChangeRequestListFilters & { page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListChangeRequests)
export class ListChangeRequestsHandler implements IQueryHandler<ListChangeRequests> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CHANGE_REQUEST_SPACES) private readonly spaces: ChangeRequestSpaces,
    private readonly presenter: ChangeRequestPresenter,
  ) {}

  async execute({ spaceId, caller, query }: ListChangeRequests): Promise<ListEnvelope<ChangeRequestObject>> {
    const space = await this.spaces.spaceFor(spaceId, caller);
    const filter: Filter = { spaceId, ...listFilter(query) };
    const page = await this.reads
      .collection<ChangeRequestDoc>(CHANGE_REQUESTS)
      .find(filter, { sort: listOrder(query), limit: query.limit, after: query.page });
    return listEnvelope({ items: await this.presenter.present(space, page.items), count: page.count, next: page.next });
  }
}

/** `GET /orgs/{organizationId}/change-requests`: across the organization's spaces the caller can read, newest first. */
export class ListOrganizationChangeRequests extends Query<ListEnvelope<ChangeRequestObject>> {
  constructor(
    readonly organizationId: string,
    readonly caller: Caller,
    readonly query: ChangeRequestListFilters & { page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListOrganizationChangeRequests)
export class ListOrganizationChangeRequestsHandler implements IQueryHandler<ListOrganizationChangeRequests> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CHANGE_REQUEST_SPACES) private readonly spaces: ChangeRequestSpaces,
    private readonly presenter: ChangeRequestPresenter,
  ) {}

  async execute({ organizationId, caller, query }: ListOrganizationChangeRequests): Promise<ListEnvelope<ChangeRequestObject>> {
    const matching = { organizationId, spaceDeleted: { $exists: false }, purged: { $exists: false }, ...listFilter(query) };
    // A member with a role reads every space: one page through the index. A guest's readable spaces are listed
    // first (every one of them: a cut-off would leave the requests of the others out without a word).
    const filter: Filter = (await this.spaces.readsEverySpace(organizationId, caller))
      ? matching
      : { ...matching, spaceId: { $in: (await this.spaces.readableSpaces(organizationId, caller)).map((space) => space.id) } };
    const page = await this.reads
      .collection<ChangeRequestDoc>(CHANGE_REQUESTS)
      .find(filter, { sort: listOrder(query), limit: query.limit, after: query.page });
    const spaces = new Map<string, ChangeRequestSpace>();
    for (const spaceId of new Set(page.items.map((request) => request.spaceId)))
      spaces.set(spaceId, await this.spaces.spaceFor(spaceId, caller));
    const items: ChangeRequestObject[] = [];
    for (const request of page.items) items.push(...(await this.presenter.present(spaces.get(request.spaceId)!, [request])));
    return listEnvelope({ items, count: page.count, next: page.next });
  }
}

/** `GET /spaces/{spaceId}/change-requests/{changeRequestId}/reviews`: newest first. */
export class ListChangeRequestReviews extends Query<ListEnvelope<ReviewObject>> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly caller: Caller,
    readonly paging: { page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListChangeRequestReviews)
export class ListChangeRequestReviewsHandler implements IQueryHandler<ListChangeRequestReviews> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CHANGE_REQUEST_SPACES) private readonly spaces: ChangeRequestSpaces,
    @Inject(CHANGE_REQUEST_USERS) private readonly users: ChangeRequestUsers,
  ) {}

  async execute({ spaceId, ref, caller, paging }: ListChangeRequestReviews): Promise<ListEnvelope<ReviewObject>> {
    await this.spaces.spaceFor(spaceId, caller);
    const request = await findChangeRequest(this.reads, spaceId, ref);
    const page = await this.reads
      .collection<ReviewDoc>(CHANGE_REQUEST_REVIEWS)
      .find({ changeRequestId: request._id }, { sort: { createdAt: -1 }, limit: paging.limit, after: paging.page });
    return listEnvelope({ items: await presentReviews(this.users, request, page.items), count: page.count, next: page.next });
  }
}

/** `GET /spaces/{spaceId}/change-requests/{changeRequestId}/reviews/{reviewId}` */
export class GetChangeRequestReview extends Query<ReviewObject> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly reviewId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetChangeRequestReview)
export class GetChangeRequestReviewHandler implements IQueryHandler<GetChangeRequestReview> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CHANGE_REQUEST_SPACES) private readonly spaces: ChangeRequestSpaces,
    @Inject(CHANGE_REQUEST_USERS) private readonly users: ChangeRequestUsers,
  ) {}

  async execute({ spaceId, ref, reviewId, caller }: GetChangeRequestReview): Promise<ReviewObject> {
    await this.spaces.spaceFor(spaceId, caller);
    const request = await findChangeRequest(this.reads, spaceId, ref);
    const review = await this.reads.collection<ReviewDoc>(REVIEWS).get(reviewId);
    if (!review || review.changeRequestId !== request._id) throw DomainError.notFound(`no review ${reviewId} on change request ${ref}`);
    return (await presentReviews(this.users, request, [review]))[0];
  }
}

/** `GET /spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers`: the users asked to review, as identity presents them. */
export class ListRequestedReviewers extends Query<ListEnvelope<{ object: 'requested-reviewer'; user: PresentedUser }>> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly caller: Caller,
    readonly paging: { page?: string; limit?: number },
  ) {
    super();
  }
}

@QueryHandler(ListRequestedReviewers)
export class ListRequestedReviewersHandler implements IQueryHandler<ListRequestedReviewers> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CHANGE_REQUEST_SPACES) private readonly spaces: ChangeRequestSpaces,
    @Inject(CHANGE_REQUEST_USERS) private readonly users: ChangeRequestUsers,
  ) {}

  async execute({
    spaceId,
    ref,
    caller,
    paging,
  }: ListRequestedReviewers): Promise<ListEnvelope<{ object: 'requested-reviewer'; user: PresentedUser }>> {
    await this.spaces.spaceFor(spaceId, caller);
    const request = await findChangeRequest(this.reads, spaceId, ref);
    // The list is short (a request's reviewers) and kept on the request: its page token is an offset.
    if (paging.page !== undefined && !/^\d{1,6}$/.test(paging.page)) throw DomainError.invalid('page is not a page token of this list');
    const start = paging.page === undefined ? 0 : Number(paging.page);
    const limit = paging.limit ?? 100;
    const slice = request.reviewers.slice(start, start + limit);
    const users = await this.users.byIds(slice);
    const items = slice
      .filter((id) => users.has(id))
      .map((id) => ({ object: 'requested-reviewer' as const, user: this.users.present(users.get(id)!) }));
    return listEnvelope({
      items,
      count: request.reviewers.length,
      next: start + limit < request.reviewers.length ? String(start + limit) : undefined,
    });
  }
}

/** `GET /spaces/{spaceId}/change-requests/{changeRequestId}/changes`: what the request changes against the main revision it builds on. */
export class GetChangeRequestChanges extends Query<{ changes: unknown[] }> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetChangeRequestChanges)
export class GetChangeRequestChangesHandler implements IQueryHandler<GetChangeRequestChanges> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CHANGE_REQUEST_SPACES) private readonly spaces: ChangeRequestSpaces,
    @Inject(CHANGE_REQUEST_CONTENT) private readonly content: ChangeRequestContent,
  ) {}

  async execute({ spaceId, ref, caller }: GetChangeRequestChanges): Promise<{ changes: unknown[] }> {
    await this.spaces.spaceFor(spaceId, caller);
    const request = await findChangeRequest(this.reads, spaceId, ref);
    return { changes: await this.content.changes(spaceId, request.baseRevision, request.revision) };
  }
}

/** Open, draft and total requests of spaces (the Space object's counters), one read for the page. */
export class CountChangeRequests extends Query<Map<string, ChangeRequestCountsDoc>> {
  constructor(readonly spaceIds: readonly string[]) {
    super();
  }
}

@QueryHandler(CountChangeRequests)
export class CountChangeRequestsHandler implements IQueryHandler<CountChangeRequests> {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  async execute({ spaceIds }: CountChangeRequests): Promise<Map<string, ChangeRequestCountsDoc>> {
    const counts = await byIds(this.reads.collection<ChangeRequestCountsDoc>(CHANGE_REQUEST_COUNTS), spaceIds);
    return new Map(counts.map((counts) => [counts._id, counts]));
  }
}

// ---- PDF ----------------------------------------------------------------------------------------

/** `GET /spaces/{spaceId}/change-requests/{changeRequestId}/pdf`: a signed URL for a PDF of the request's head (all pages, or one page), valid for a limited time. */
export class GetChangeRequestPdfUrl extends Query<{ url: string }> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly caller: Caller,
    readonly options: { page?: string; only?: boolean },
  ) {
    super();
  }
}

@QueryHandler(GetChangeRequestPdfUrl)
export class GetChangeRequestPdfUrlHandler implements IQueryHandler<GetChangeRequestPdfUrl> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CHANGE_REQUEST_SPACES) private readonly spaces: ChangeRequestSpaces,
    @Inject(CHANGE_REQUEST_URL_KEY) private readonly urlKey: Buffer,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ spaceId, ref, caller, options }: GetChangeRequestPdfUrl): Promise<{ url: string }> {
    await this.spaces.spaceFor(spaceId, caller);
    const request = await findChangeRequest(this.reads, spaceId, ref);
    const expires = Math.floor(this.clock.now().getTime() / 1000) + PDF_URL_LIFETIME_SECONDS;
    const params = new URLSearchParams({
      revision: request.revision,
      ...(options.page !== undefined ? { page: options.page } : {}),
      ...(options.only ? { only: 'true' } : {}),
      expires: String(expires),
    });
    params.set('signature', pdfSignature(this.urlKey, spaceId, request._id, params));
    return { url: `${this.config.publicUrl}/v1/spaces/${spaceId}/change-requests/${request._id}/pdf/download?${params.toString()}` };
  }
}

/** `GET /spaces/{spaceId}/change-requests/{changeRequestId}/pdf/download`: the PDF a signed URL names; 404 for a URL this service did not sign or that has expired. */
export class GetChangeRequestPdf extends Query<{ bytes: Buffer; filename: string }> {
  constructor(
    readonly spaceId: string,
    readonly changeRequestId: string,
    readonly query: { revision: string; page?: string; only?: string; expires: string; signature: string },
  ) {
    super();
  }
}

@QueryHandler(GetChangeRequestPdf)
export class GetChangeRequestPdfHandler implements IQueryHandler<GetChangeRequestPdf> {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CHANGE_REQUEST_CONTENT) private readonly content: ChangeRequestContent,
    @Inject(CHANGE_REQUEST_URL_KEY) private readonly urlKey: Buffer,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ spaceId, changeRequestId, query }: GetChangeRequestPdf): Promise<{ bytes: Buffer; filename: string }> {
    const params = new URLSearchParams({
      revision: query.revision,
      ...(query.page !== undefined ? { page: query.page } : {}),
      ...(query.only === 'true' ? { only: 'true' } : {}),
      expires: query.expires,
    });
    const expected = Buffer.from(pdfSignature(this.urlKey, spaceId, changeRequestId, params));
    const given = Buffer.from(query.signature);
    const valid =
      expected.length === given.length && timingSafeEqual(expected, given) && Number(query.expires) * 1000 >= this.clock.now().getTime();
    if (!valid) throw DomainError.notFound(`no PDF at this address (its link is invalid or has expired)`);
    const request = await findChangeRequest(this.reads, spaceId, changeRequestId);
    const bytes = await this.content.pdf(spaceId, query.revision, {
      ...(query.page !== undefined ? { page: query.page } : {}),
      only: query.only === 'true',
      title: request.subject,
    });
    return { bytes, filename: `change-request-${request.number}.pdf` };
  }
}

export const changeRequestQueryHandlers = [
  FindChangeRequestHandler,
  GetChangeRequestHandler,
  ListChangeRequestsHandler,
  ListOrganizationChangeRequestsHandler,
  ListChangeRequestReviewsHandler,
  GetChangeRequestReviewHandler,
  ListRequestedReviewersHandler,
  GetChangeRequestChangesHandler,
  CountChangeRequestsHandler,
  GetChangeRequestPdfUrlHandler,
  GetChangeRequestPdfHandler,
];

function pdfSignature(urlKey: Buffer, spaceId: string, changeRequestId: string, params: URLSearchParams): string {
  return createHmac('sha256', urlKey).update(`${spaceId}\n${changeRequestId}\n${params.toString()}`).digest('base64url');
}

// ---- presenting -----------------------------------------------------------------------------------

async function presentReviews(
  identity: ChangeRequestUsers,
  request: ChangeRequestDoc,
  reviews: readonly ReviewDoc[],
): Promise<ReviewObject[]> {
  const users = await identity.byIds([...new Set(reviews.map((review) => review.reviewer))]);
  return reviews.map((review) => {
    const reviewer = users.get(review.reviewer);
    return {
      object: 'change-request-review',
      id: review._id,
      changeRequest: request._id,
      status: review.status,
      ...(review.body !== undefined ? { body: review.body } : {}),
      ...(reviewer ? { reviewer: identity.present(reviewer) } : {}),
      revision: review.revision,
      outdated: review.revision !== request.revision,
      createdAt: review.createdAt,
    };
  });
}
