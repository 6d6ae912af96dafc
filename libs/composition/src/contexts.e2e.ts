import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createService } from './api/app';
import { loadConfig } from '#platform/config';
import { ORGANIZATION_ACCESS } from '#audit';
import { SSO_TEAMS } from '#sso';
import { BINDINGS, composeService, CONTEXTS, service } from './contexts';

describe('the composition root', () => {
  it('binds every port some context needs, and gathers every context’s projections, reactors and audit catalog', () => {
    const composed = service();
    expect(composed.projections.map((projection) => projection.name)).toEqual(expect.arrayContaining(['audit']));
    for (const context of CONTEXTS) {
      const own = typeof context.projections === 'function' ? context.projections(composed) : context.projections;
      expect(composed.projections.map((p) => p.name)).toEqual(expect.arrayContaining(own.map((p) => p.name)));
      for (const reactor of context.reactors ?? []) expect(composed.reactors).toContain(reactor);
      for (const type of Object.keys(context.audit ?? {})) expect(composed.auditCatalog[type]).toBe(context.audit![type]);
    }
  });

  it('refuses a port that nothing binds, naming the context and the port', () => {
    const without = BINDINGS.filter((binding) => binding.port !== SSO_TEAMS);
    expect(() => composeService(CONTEXTS, without)).toThrow("context 'sso' needs port SSO_TEAMS, which nothing binds");
  });

  it('makes the service fail at start, before it opens a store', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'unbound-')), 'data');
    try {
      const without = BINDINGS.filter((binding) => binding.port !== ORGANIZATION_ACCESS);
      const start = createService({
        config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }),
        adminToken: 'admin-token-for-tests-0123456789',
        wiring: { contexts: CONTEXTS, bindings: without },
      });
      await expect(start).rejects.toThrow("context 'audit' needs port ORGANIZATION_ACCESS, which nothing binds");
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      rmSync(join(dataDir, '..'), { recursive: true, force: true });
    }
  });
});
