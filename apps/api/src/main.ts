import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, type AppConfig } from '#platform/config';
import { newSecret } from '#platform/ids';
import { configureLogging, log } from '#platform/logging';
import { EX_READ_MODELS_DAMAGED, exitCodeOf, requireSharedKeys } from '#runtime/process-settings';
import { handleUnhandledRejections } from '#runtime/unhandled-rejections';

/**
 * The admin token (docs/architecture.md, Extensions): ADMIN_TOKEN, or in embedded mode one generated on first
 * start and stored in DATA_DIR/admin-token (0600); `created` says it was just generated, to be shown
 * once. Distributed mode needs it set (`requireSharedKeys`), since every API replica must accept
 * the same one.
 */
function adminToken(config: AppConfig): { token: string; created: string | null } {
  if (config.adminToken) return { token: config.adminToken, created: null };
  const file = join(config.dataDir, 'admin-token');
  if (existsSync(file)) return { token: readFileSync(file, 'utf8').trim(), created: null };
  mkdirSync(config.dataDir, { recursive: true });
  const token = newSecret('dpa');
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return { token, created: file };
}

/**
 * The first start's token between two rules, printed after the start-up log lines (Nest's route
 * mapping among them) so that it is the last thing on screen rather than scrolled away.
 */
function adminTokenBox(token: string, file: string): string {
  const lines = [
    `Admin token (shown once, stored in ${file}, mode 0600):`,
    '',
    `  ${token}`,
    '',
    'It authorizes /v1/admin/*, where users and their tokens are made.',
  ];
  const rule = '='.repeat(Math.max(...lines.map((line) => line.length)));
  return ['', rule, ...lines, rule, '', ''].join('\n');
}

/** Set once the process is closing to exit: a start cut short by it is not a failure to start. */
let closing = false;

async function main(): Promise<void> {
  const config = loadConfig();
  configureLogging(config.logLevel);
  handleUnhandledRejections();
  requireSharedKeys(config, 'API');
  const admin = adminToken(config);
  // The application's modules (seconds of loading) are required once the configuration is known to
  // be one it can run with: a refused one exits at once.
  const { createService } = require('#composition/api/app') as typeof import('#composition/api/app');
  const service = await createService({ config, adminToken: admin.token });
  const { runner } = service.runtime;
  const shutdown = async (signal: string, code = 0) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down');
    await service.close();
    process.exit(code);
  };
  // Found after the start (the read-model file's checksum is compared in the background): closed, then
  // exited with a code of its own, so that a restart policy (or the operator) starts it again and
  // that start rebuilds the read models from the log.
  service.runtime.stores.onReadModelsDamaged?.(() => void shutdown('read models damaged', EX_READ_MODELS_DAMAGED));
  // Listen first: /health/live answers at once, /health reports progress while the projections replay the log; /v1 answers 503 until they catch up.
  await service.app.listen({ port: config.port, host: config.host });
  log.info({ url: `http://${config.host}:${config.port}`, publicUrl: config.publicUrl, mode: service.runtime.stores.mode }, 'listening');
  if (admin.created) process.stdout.write(adminTokenBox(admin.token, admin.created));
  if (runner) {
    const started = Date.now();
    await runner.start();
    await runner.whenCaughtUp();
    log.info({ ms: Date.now() - started, checkpoint: runner.position()?.toString() ?? null }, 'read models caught up');
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error) => {
  if (closing) return;
  log.fatal({ err: error }, `could not start: ${(error as Error).message}`);
  process.exit(exitCodeOf(error));
});
