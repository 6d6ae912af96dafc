import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

/**
 * The compose deployment, read as Compose reads it (YAML with merge keys): no container runtime
 * runs it here, so its rules are checked on the file itself.
 */
const ROOT = join(__dirname, '..');
const COMPOSE_TEXT = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');

interface Service {
  image?: string;
  build?: unknown;
  init?: boolean;
  restart?: string;
  command?: string | string[];
  entrypoint?: string | string[];
  ports?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[]; start_period?: string };
  depends_on?: Record<string, { condition: string }>;
}

function services(file: string): Record<string, Service> {
  return (parse(readFileSync(join(ROOT, file), 'utf8'), { merge: true }) as { services: Record<string, Service> }).services;
}

const compose = services('docker-compose.yml');
const OURS = ['api', 'projector', 'integrations-worker'];
const STORES = ['kurrentdb', 'mongodb'];
const words = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(' ') : (value ?? ''));

describe('docker-compose.yml', () => {
  it('publishes neither KurrentDB nor MongoDB on the host', () => {
    for (const name of STORES) expect({ name, ports: compose[name].ports }).toEqual({ name, ports: undefined });
  });

  it('runs the service’s processes from one image, built once, each with an init', () => {
    const images = new Set(OURS.map((name) => compose[name].image));
    expect([...images]).toEqual(['docs-platform:${TAG:-local}']);
    expect(OURS.filter((name) => compose[name].build !== undefined)).toEqual(['api']);
    for (const name of OURS) expect({ name, init: compose[name].init }).toEqual({ name, init: true });
  });

  it('restarts the service’s processes a bounded number of times, so that a configuration error (exit 78) does not loop', () => {
    for (const name of OURS) expect({ name, restart: compose[name].restart }).toEqual({ name, restart: 'on-failure:5' });
  });

  it('checks the service’s processes with their liveness probe, on each one’s own port', () => {
    const ports: Record<string, number> = { api: 8080, projector: 8081, 'integrations-worker': 8082 };
    for (const name of OURS) expect(words(compose[name].healthcheck?.test)).toContain(`http://127.0.0.1:${ports[name]}/health/live`);
    expect(compose['integrations-worker'].environment?.WORKER_PORT).toBe('8082');
  });

  it('starts the API and the worker once the stores are up, without waiting for the projector to catch up', () => {
    for (const name of OURS) {
      expect(Object.keys(compose[name].depends_on ?? {}).sort()).toEqual(['kurrentdb', 'mongodb', 'mongodb-init']);
      expect(compose[name].healthcheck?.start_period).not.toBe('300s');
    }
  });

  it('runs KurrentDB secure, with its admin password from .env, and connects to it over TLS with credentials', () => {
    const kurrentdb = compose.kurrentdb.environment ?? {};
    expect(kurrentdb.KURRENTDB_INSECURE).toBe('false');
    expect(Object.keys(kurrentdb)).not.toContain('KURRENTDB_DISABLE_TLS');
    expect(kurrentdb.KURRENTDB_DEFAULT_ADMIN_PASSWORD).toMatch(/^\$\{KURRENTDB_ADMIN_PASSWORD:\?/);
    for (const name of OURS) {
      const url = compose[name].environment?.EVENTSTORE_URL ?? '';
      expect(url).toMatch(/^kurrentdb:\/\/admin:\$\{KURRENTDB_ADMIN_PASSWORD:\?[^}]*\}@kurrentdb:2113\?/);
      expect(new URLSearchParams(url.split('@kurrentdb:2113?')[1]).get('tls')).toBe('true');
      expect(url).toContain('tlsCAFile=/certs/kurrentdb/ca.crt');
    }
  });

  it('runs MongoDB with authentication (a root user and a replica-set key file), the service connecting as its own user', () => {
    expect(compose.mongodb.environment?.MONGO_INITDB_ROOT_PASSWORD).toMatch(/^\$\{MONGODB_ROOT_PASSWORD:\?/);
    expect(compose.mongodb.command).toEqual(expect.arrayContaining(['--keyFile', '/keyfile/mongodb.key']));
    for (const name of OURS)
      expect(compose[name].environment?.MONGODB_URL).toMatch(
        /^mongodb:\/\/docs_platform:\$\{MONGODB_APP_PASSWORD:\?[^}]*\}@mongodb:27017\/docs_platform\?/,
      );
  });

  it('puts no secret on a command line: secrets reach containers only through their environment', () => {
    const secret = /\$\{?(ADMIN_TOKEN|INTEGRATION_SECRETS_KEY|[A-Z_]*PASSWORD)|--password|\s-p\s|-u\s+root/;
    for (const [name, service] of Object.entries(compose)) {
      for (const part of [words(service.command), words(service.entrypoint), words(service.healthcheck?.test)]) {
        expect({ name, part, secret: secret.test(part) }).toEqual({ name, part, secret: false });
      }
    }
  });

  it('takes every secret from .env as deploy/init-env.sh writes it, refusing to start without it', () => {
    const required = new Set([...COMPOSE_TEXT.matchAll(/\$\{([A-Z_]+):\?/g)].map((match) => match[1]));
    expect([...required].sort()).toEqual([
      'ADMIN_TOKEN',
      'INTEGRATION_SECRETS_KEY',
      'KURRENTDB_ADMIN_PASSWORD',
      'KURRENTDB_OPS_PASSWORD',
      'MONGODB_APP_PASSWORD',
      'MONGODB_ROOT_PASSWORD',
    ]);
    const directory = mkdtempSync(join(tmpdir(), 'init-env-'));
    try {
      execFileSync('sh', [join(ROOT, 'deploy', 'init-env.sh'), join(directory, '.env')], { stdio: 'pipe' });
      const written = Object.fromEntries(
        readFileSync(join(directory, '.env'), 'utf8')
          .split('\n')
          .filter((line) => /^[A-Z_]+=/.test(line))
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
      expect(Object.keys(written).sort()).toEqual([...required].sort());
      expect(written.INTEGRATION_SECRETS_KEY).toMatch(/^[0-9a-f]{64}$/);
      expect(written.ADMIN_TOKEN.length).toBeGreaterThanOrEqual(16);
      // URL-safe: the passwords go into connection strings as they are.
      for (const name of ['KURRENTDB_ADMIN_PASSWORD', 'MONGODB_APP_PASSWORD']) expect(written[name]).toMatch(/^[0-9a-f]{48}$/);
      expect(statSync(join(directory, '.env')).mode & 0o077).toBe(0);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('never overwrites an existing .env', () => {
    const directory = mkdtempSync(join(tmpdir(), 'init-env-'));
    try {
      writeFileSync(join(directory, '.env'), 'ADMIN_TOKEN=kept-as-it-is-0123456789\n');
      execFileSync('sh', [join(ROOT, 'deploy', 'init-env.sh'), join(directory, '.env')], { stdio: 'pipe' });
      expect(readFileSync(join(directory, '.env'), 'utf8')).toBe('ADMIN_TOKEN=kept-as-it-is-0123456789\n');
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('docker-compose.stores.yml', () => {
  it('publishes KurrentDB and MongoDB on the loopback interface only', () => {
    const stores = services('docker-compose.stores.yml');
    expect(Object.keys(stores).sort()).toEqual(STORES);
    expect(stores.kurrentdb.ports).toEqual(['127.0.0.1:2113:2113']);
    expect(stores.mongodb.ports).toEqual(['127.0.0.1:27017:27017']);
  });
});
