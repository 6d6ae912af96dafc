import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { derivedSecret, open, seal, secretsKeyFrom } from './secrets';

describe('the service secrets key', () => {
  const key = randomBytes(32);

  it('opens what it sealed', () => {
    expect(open(key, seal(key, 'API_TOKEN=s3cr3t'))).toBe('API_TOKEN=s3cr3t');
  });

  it('never shows the text in the sealed form, and seals the same text differently each time', () => {
    const once = seal(key, 's3cr3t-value');
    expect(once).not.toContain('s3cr3t');
    expect(seal(key, 's3cr3t-value')).not.toBe(once);
  });

  it('refuses a sealed text that was tampered with', () => {
    const sealed = Buffer.from(seal(key, 'value').slice(3), 'base64');
    sealed[sealed.length - 1] ^= 1;
    expect(() => open(key, `v1:${sealed.toString('base64')}`)).toThrow();
  });

  it('refuses another key', () => {
    expect(() => open(randomBytes(32), seal(key, 'value'))).toThrow();
  });

  it('takes the key from INTEGRATION_SECRETS_KEY in hex or base64, and refuses a wrong length', () => {
    expect(secretsKeyFrom({ integrationSecretsKey: key.toString('hex'), dataDir: '/nonexistent' })).toEqual(key);
    expect(secretsKeyFrom({ integrationSecretsKey: key.toString('base64'), dataDir: '/nonexistent' })).toEqual(key);
    expect(() => secretsKeyFrom({ integrationSecretsKey: 'short', dataDir: '/nonexistent' })).toThrow(/32 bytes/);
  });

  it('without a configured key, generates one into DATA_DIR once, readable by the owner only', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'secrets-'));
    const first = secretsKeyFrom({ integrationSecretsKey: undefined, dataDir });
    expect(secretsKeyFrom({ integrationSecretsKey: undefined, dataDir })).toEqual(first);
    expect(first).toHaveLength(32);
    expect(statSync(join(dataDir, 'integration-secrets.key')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dataDir, 'integration-secrets.key'), 'utf8')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('derived secrets', () => {
  const key = randomBytes(32);

  it('derives the same secret for the same purpose', () => {
    expect(derivedSecret(key, 'site-visitor-auth:s1:1')).toBe(derivedSecret(key, 'site-visitor-auth:s1:1'));
  });

  it('derives another secret for another purpose', () => {
    expect(derivedSecret(key, 'site-visitor-auth:s1:2')).not.toBe(derivedSecret(key, 'site-visitor-auth:s1:1'));
  });

  it('derives another secret under another key', () => {
    expect(derivedSecret(randomBytes(32), 'site-visitor-auth:s1:1')).not.toBe(derivedSecret(key, 'site-visitor-auth:s1:1'));
  });
});
