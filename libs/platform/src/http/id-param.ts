import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { DomainError } from '../errors';
import { ID_SHAPES, type IdKind } from '../ids';

/**
 * The kind of id each path parameter names, hence its exact shape. A name missing here makes
 * `@PathId` throw when the controller is loaded, so a new path id cannot go unchecked.
 */
export const PATH_ID_KINDS: Readonly<Record<string, IdKind>> = Object.freeze(
  // No prototype: a parameter named `constructor` or `__proto__` has no kind either.
  Object.assign(Object.create(null) as Record<string, IdKind>, {
    organizationId: 'entity',
    userId: 'entity',
    tokenId: 'entity',
    teamId: 'entity',
    spaceId: 'entity',
    collectionId: 'entity',
    inviteId: 'entity',
    providerId: 'entity',
    samlProviderId: 'entity',
    pageId: 'entity',
    fileId: 'entity',
    revisionId: 'entity',
    changeRequestId: 'changeRequest',
    reviewId: 'entity',
    commentId: 'entity',
    commentReplyId: 'entity',
    installationId: 'entity',
    siteId: 'entity',
    siteSectionId: 'entity',
    siteSpaceId: 'entity',
    siteSectionGroupId: 'entity',
    shareLinkId: 'entity',
    translationSettingsId: 'entity',
    eventId: 'event',
    shareKey: 'shareKey',
    auditEventId: 'event',
    specSlug: 'openapiSlug',
    versionId: 'entity',
  } satisfies Record<string, IdKind>),
);

/**
 * The id in a path parameter, or 404: anything that cannot be an id of that kind is simply not
 * found. The exact shape (not a loose pattern) keeps names such as `__proto__` or `constructor`
 * from ever reaching a store, a record lookup or a decider.
 */
export function pathId(value: unknown, resource: string, kind: IdKind): string {
  if (typeof value !== 'string' || !ID_SHAPES[kind].test(value)) {
    throw DomainError.notFound(`no ${resource} ${JSON.stringify(String(value).slice(0, 64))}`);
  }
  return value;
}

/**
 * `@PathId('organizationId', 'organization')`: a path id, checked before it reaches a store, so
 * stream names and other internals never show in an error (404 for anything that cannot be an id).
 * The shape comes from the parameter's name (PATH_ID_KINDS) unless `kind` is given.
 *
 * Checked while Nest extracts the argument rather than in a pipe: one pipe on any parameter makes
 * Nest resolve the route's arguments through promises, which cost a GET about a tenth of its time
 * (the API benchmark, docs/architecture.md, Benchmarks). The enhancer documents the parameter in the OpenAPI document, as
 * `@Param` would.
 */
export function PathId(name: string, resource: string, kind: IdKind | undefined = PATH_ID_KINDS[name]): ParameterDecorator {
  if (kind === undefined || !(kind in ID_SHAPES))
    throw new Error(`@PathId('${name}'): unknown id kind; add '${name}' to PATH_ID_KINDS or pass a kind`);
  const shape = ID_SHAPES[kind];
  const documented = (target: object, key: string | symbol | undefined) => {
    if (key !== undefined)
      ApiParam({ name, required: true, schema: { type: 'string', pattern: shape.source } })(
        target,
        key,
        Object.getOwnPropertyDescriptor(target, key)!,
      );
  };
  return createParamDecorator(
    (_: unknown, context: ExecutionContext) =>
      pathId(context.switchToHttp().getRequest<{ params: Record<string, unknown> }>().params[name], resource, kind),
    [documented],
  )();
}
