/**
 * The test kit: given/when/then specifications for deciders, projections and the API in process.
 * `apiSpec` loads the whole service, so it is required only when called: decider and projection
 * specs importing this index stay light.
 */
import type { ApiSpec, ApiSpecOptions } from './api-spec';

export { deciderSpec, type CommandOf, type EventOf, type DeciderGiven, type DeciderSpec, type DeciderWhen } from './decider-spec';
export {
  eventIdAt,
  inStream,
  projectionSpec,
  recordEvents,
  type ExpectedDocuments,
  type GivenEvent,
  type ProjectionGiven,
  type ProjectionSpec,
  type ProjectionSpecOptions,
} from './projection-spec';
export type { ApiRequest, ApiResponse, ApiSpec, ApiSpecOptions, AppendedEvent, RequestOptions } from './api-spec';

export async function apiSpec(options?: ApiSpecOptions): Promise<ApiSpec> {
  // Required on call, not at import (see above).
  const { apiSpec: start } = require('./api-spec') as typeof import('./api-spec');
  return start(options);
}
