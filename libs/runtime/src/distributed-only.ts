import { ConfigError, type AppConfig } from '#platform/config';

/**
 * Refuses to start a process of the distributed mode (`name`) without both stores' URLs; `embedded`
 * says what does its work in embedded mode instead.
 */
export function distributedOnly(config: AppConfig, name: string, embedded: string): void {
  if (config.eventStoreUrl && config.mongodbUrl) return;
  if (!config.eventStoreUrl && !config.mongodbUrl) {
    throw new ConfigError(
      `the ${name} runs in distributed mode only: set EVENTSTORE_URL and MONGODB_URL. In embedded mode (neither set) ${embedded}.`,
    );
  }
  throw new ConfigError(
    `the ${name} needs both EVENTSTORE_URL and MONGODB_URL; ${config.eventStoreUrl ? 'MONGODB_URL' : 'EVENTSTORE_URL'} is not set`,
  );
}
