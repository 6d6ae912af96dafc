import { ConfigError, type AppConfig } from '#platform/config';
import { secretsKeyFrom } from '#platform/secrets';

/**
 * The exit status of a process that refuses its configuration (EX_CONFIG of sysexits.h): tells a
 * supervisor, and whoever reads `docker compose ps`, that restarting will not help.
 */
export const EX_CONFIG = 78;

/**
 * The exit status of a process that found its read models damaged while it ran (EX_TEMPFAIL of
 * sysexits.h): restarting helps, the next start rebuilds them from the log.
 */
export const EX_READ_MODELS_DAMAGED = 75;

/** EX_CONFIG for a configuration error, 1 for anything else. */
export function exitCodeOf(error: unknown): number {
  return error instanceof ConfigError ? EX_CONFIG : 1;
}

/**
 * In distributed mode every process (each API replica, the projector, the integrations worker)
 * must hold the same two keys: ADMIN_TOKEN, from which the keys signing download, PDF and visitor
 * URLs are derived, and INTEGRATION_SECRETS_KEY, which seals integrations' secrets. A key made up
 * at start would differ per process and per restart (URLs signed by one replica refused by the
 * next, sealed secrets unreadable), so the process refuses to start without them. Embedded mode
 * keeps generated ones in DATA_DIR instead.
 */
export function requireSharedKeys(config: AppConfig, name: string): void {
  if (!config.eventStoreUrl && !config.mongodbUrl) return;
  const missing = [
    config.adminToken ? null : 'ADMIN_TOKEN (at least 16 characters)',
    config.integrationSecretsKey ? null : 'INTEGRATION_SECRETS_KEY (64 hex characters)',
  ].filter((entry): entry is string => entry !== null);
  if (missing.length > 0) {
    throw new ConfigError(
      `the ${name} needs ${missing.join(' and ')} in distributed mode: every process must share them, and they must outlive restarts (deploy/init-env.sh writes them into .env once)`,
    );
  }
  secretsKeyFrom(config); // its format, checked now rather than at the first sealed secret
}
