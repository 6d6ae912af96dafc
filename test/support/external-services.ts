/**
 * Where a suite that needs a real KurrentDB or MongoDB gets it: the URL in the environment, or a
 * testcontainers container when a runtime was found by `global-setup.ts`, or nowhere, in which
 * case the suite is skipped and the reason was printed once by the global setup.
 */
export type ExternalService = 'kurrentdb' | 'mongodb';

const URL_VARIABLE: Record<ExternalService, string> = {
  kurrentdb: 'EVENTSTORE_URL',
  mongodb: 'MONGODB_URL',
};

export function externalServiceAvailable(service: ExternalService): boolean {
  return Boolean(process.env[URL_VARIABLE[service]] || process.env.TEST_CONTAINER_RUNTIME);
}

export function configuredUrl(service: ExternalService): string | undefined {
  return process.env[URL_VARIABLE[service]] || undefined;
}

/** `describe` when the service can be had, otherwise `describe.skip`. */
export function describeWith(service: ExternalService): jest.Describe {
  return externalServiceAvailable(service) ? describe : describe.skip;
}
