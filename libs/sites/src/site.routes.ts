import { applyDecorators } from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants.js';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { DomainError } from '#platform/errors';
import type { Position } from './site.decider';

/**
 * The tag and operationIds of every `/v1/orgs/{organizationId}/sites…` route, whichever controller
 * serves it: `Site` and `SiteController_<handler>`, the names the routes were published under, so
 * clients generated from the OpenAPI document keep their method names.
 */
export function SiteRoutes(): ClassDecorator {
  return applyDecorators(ApiTags('Site'), (target: Function) => {
    const prototype = target.prototype as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const descriptor = Object.getOwnPropertyDescriptor(prototype, name);
      if (typeof descriptor?.value !== 'function' || !Reflect.hasMetadata(METHOD_METADATA, descriptor.value)) continue;
      // No summary: ApiOperation would otherwise add an empty one to every operation.
      ApiOperation({ operationId: `SiteController_${name}`, summary: undefined })(prototype, name, descriptor);
    }
  });
}

/** A move's position: before or after a sibling, or (neither given, or no position at all) the end. */
export function positionOf<T>(position: { before?: T; after?: T } | undefined): { before: T } | { after: T } | null {
  if (position?.before && position.after) throw DomainError.invalid('position takes before or after, not both');
  return position?.before ? { before: position.before } : position?.after ? { after: position.after } : null;
}

/** A position naming sections or site spaces as the decider reads it: their ids. */
export function idPosition<T>(position: { before?: T; after?: T } | undefined, idOf: (anchor: T) => string): Position {
  const placed = positionOf(position);
  return placed === null ? null : 'before' in placed ? { before: idOf(placed.before) } : { after: idOf(placed.after) };
}
