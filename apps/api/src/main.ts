import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, type AppConfig } from '../../../libs/platform/src/config';
import { newSecret } from '../../../libs/platform/src/ids';
import { configureLogging, log } from '../../../libs/platform/src/logging';
import { createService } from '../../../libs/composition/src/api/app';

/**
 * The admin token (docs/architecture.md, Extensions): ADMIN_TOKEN, or in embedded mode one generated on first
 * start, stored in DATA_DIR/admin-token (0600) and printed once. Distributed mode needs it set,
 * since every API replica must accept the same one.
 */
function adminToken(config: AppConfig): string {
  if (config.adminToken) return config.adminToken;
  if (config.eventStoreUrl) throw new Error('ADMIN_TOKEN must be set in distributed mode');
  const file = join(config.dataDir, 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(config.dataDir, { recursive: true });
  const token = newSecret('dpa');
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  process.stdout.write(`\nAdmin token (shown once, stored in ${file}):\n\n  ${token}\n\n`);
  return token;
}

async function main(): Promise<void> {
  const config = loadConfig();
  configureLogging(config.logLevel);
  const service = await createService({ config, adminToken: adminToken(config) });
  const { runner } = service.runtime;
  // Listen first: /health reports progress while the projections replay the log; /v1 answers 503 until they catch up.
  await service.app.listen({ port: config.port, host: config.host });
  log.info({ url: `http://${config.host}:${config.port}`, publicUrl: config.publicUrl, mode: service.runtime.stores.mode }, 'listening');
  if (runner) {
    const started = Date.now();
    await runner.start();
    await runner.whenCaughtUp();
    log.info({ ms: Date.now() - started, checkpoint: runner.position()?.toString() ?? null }, 'read models caught up');
  }
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down');
    await service.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error) => {
  log.fatal({ err: error }, `could not start: ${(error as Error).message}`);
  process.exit(1);
});
