import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type AppConfig } from './config';

const KEY_FILE = 'integration-secrets.key';
const VERSION = 'v1';

/**
 * The service's secrets key, which seals integrations' secrets and derives sites' visitor-token keys:
 * INTEGRATION_SECRETS_KEY (64 hex characters or base64 of 32 bytes), else one generated once into DATA_DIR.
 */
export function secretsKeyFrom(config: Pick<AppConfig, 'integrationSecretsKey' | 'dataDir'>): Buffer {
  if (config.integrationSecretsKey !== undefined) {
    const text = config.integrationSecretsKey.trim();
    const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
    if (key.length !== 32) throw new ConfigError('INTEGRATION_SECRETS_KEY must be 32 bytes, as 64 hex characters or base64');
    return key;
  }
  const path = join(config.dataDir, KEY_FILE);
  if (!existsSync(path)) {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(path, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  }
  chmodSync(path, 0o600);
  return Buffer.from(readFileSync(path, 'utf8').trim(), 'hex');
}

/** Seals a text with AES-256-GCM: `v1:` then base64 of the 12-byte nonce, the 16-byte tag and the ciphertext. */
export function seal(key: Buffer, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
}

export function open(key: Buffer, sealed: string): string {
  if (!sealed.startsWith(`${VERSION}:`)) throw new Error('not a sealed secret');
  const bytes = Buffer.from(sealed.slice(VERSION.length + 1), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}

/** A key of its own for one purpose (`purpose` names it), derived from the secrets key: nothing to store, and it changes with the purpose's name. */
export function derivedSecret(key: Buffer, purpose: string): string {
  return createHmac('sha256', key).update(purpose).digest('base64url');
}
