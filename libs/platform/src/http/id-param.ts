import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { DomainError } from '../errors';
import { ID_PATTERN } from '../ids';

/** The id in a path parameter, or 404: anything that cannot be an id of ours is simply not found. */
function pathId(value: unknown, resource: string): string {
  if (typeof value !== 'string' || !ID_PATTERN.test(value)) {
    throw DomainError.notFound(`no ${resource} ${JSON.stringify(String(value).slice(0, 64))}`);
  }
  return value;
}

/**
 * `@PathId('organizationId', 'organization')`: a path id, checked before it reaches a store, so
 * stream names and other internals never show in an error (404 for anything that cannot be an id).
 *
 * Checked while Nest extracts the argument rather than in a pipe: one pipe on any parameter makes
 * Nest resolve the route's arguments through promises, which cost a GET about a tenth of its time
 * (issue 3's benchmark). The enhancer documents the parameter in the OpenAPI document, as
 * `@Param` would.
 */
export function PathId(name: string, resource: string): ParameterDecorator {
  const documented = (target: object, key: string | symbol | undefined) => {
    if (key !== undefined) ApiParam({ name, type: String, required: true })(target, key, Object.getOwnPropertyDescriptor(target, key)!);
  };
  return createParamDecorator((_: unknown, context: ExecutionContext) => pathId(context.switchToHttp().getRequest<{ params: Record<string, unknown> }>().params[name], resource), [
    documented,
  ])();
}
