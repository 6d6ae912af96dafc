import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#platform/config';
import {
  CHANGE_REQUEST_COMMENTS,
  CHANGE_REQUEST_CONTENT,
  CHANGE_REQUEST_USERS,
  type ChangeRequestComments,
  type ChangeRequestContent,
  type ChangeRequestSpace,
  type ChangeRequestUsers,
} from './changerequests.needs';
import { ChangeRequestDescriptions } from './changerequest.descriptions';
import type { ChangeRequestDoc } from './changerequest.projections';
import type { ChangeRequestObject } from './changerequest.queries';

/** Presents change requests: besides the requests, it reads main's head, open comments, users and descriptions, once for a whole page. */
@Injectable()
export class ChangeRequestPresenter {
  constructor(
    @Inject(CHANGE_REQUEST_USERS) private readonly users: ChangeRequestUsers,
    @Inject(CHANGE_REQUEST_CONTENT) private readonly content: ChangeRequestContent,
    @Inject(CHANGE_REQUEST_COMMENTS) private readonly comments: ChangeRequestComments,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly descriptions: ChangeRequestDescriptions,
  ) {}

  async present(space: ChangeRequestSpace, requests: readonly ChangeRequestDoc[]): Promise<ChangeRequestObject[]> {
    if (requests.length === 0) return [];
    const [heads, comments, users, descriptions] = await Promise.all([
      this.content.heads([space.id]),
      this.comments.openComments(requests.map((request) => request._id)),
      this.users.byIds([
        ...new Set(
          requests.flatMap((request) => [request.createdBy, request.mergedBy].filter((id): id is string => typeof id === 'string')),
        ),
      ]),
      this.descriptions.read(requests.flatMap((request) => (request.description !== undefined ? [request.description] : []))),
    ]);
    const main = heads.get(space.id);
    const base = this.config.publicUrl;
    const user = (id: string | null | undefined) => (id ? users.get(id) : undefined);
    // Member by member, in the interface's order: a literal with conditional spreads followed by
    // more members takes V8's slow path on Node 20, and lists present fifty requests a page.
    return requests.map((request) => {
      const createdBy = user(request.createdBy);
      const mergedBy = user(request.mergedBy);
      const object = {
        object: 'change-request',
        id: request._id,
        number: request.number,
        status: request.status,
        subject: request.subject,
      } as ChangeRequestObject;
      if (request.description !== undefined) object.description = descriptions.get(request.description);
      if (createdBy) object.createdBy = this.users.present(createdBy);
      object.createdAt = request.createdAt;
      object.updatedAt = request.updatedAt;
      object.revision = request.revision;
      object.revisionInitial = request.revisionInitial;
      if (request.revisionMergedAncestor !== undefined) object.revisionMergedAncestor = request.revisionMergedAncestor;
      if (request.revisionMerged !== undefined) object.revisionMerged = request.revisionMerged;
      if (mergedBy) object.mergedBy = this.users.present(mergedBy);
      if (request.mergedAt !== undefined) object.mergedAt = request.mergedAt;
      if (request.agentTaskId !== undefined) object.agentTaskId = request.agentTaskId;
      object.space = request.spaceId;
      object.comments = comments.get(request._id) ?? 0;
      object.outdated = request.status !== 'merged' && main !== undefined && main !== request.baseRevision;
      object.links = (request.links ?? []).map((link) =>
        link.title !== undefined
          ? { id: link.id, ref: { kind: 'url', url: link.url }, title: link.title }
          : { id: link.id, ref: { kind: 'url', url: link.url } },
      );
      object.urls = {
        app: `${base}/s/${request.spaceId}/~/changes/${request.number}`,
        location: `${base}/v1/spaces/${request.spaceId}/change-requests/${request._id}`,
      };
      object.permissions = {
        view: space.permissions.view,
        edit: space.permissions.edit,
        review: space.permissions.review,
        merge: space.permissions.merge,
      };
      return object;
    });
  }
}
