import { strToU8, zipSync } from 'fflate';
import { DomainError } from '#platform/errors';
import { ImportFailure } from './import-failure';
import type { ImportSource } from './import-plan';
import { runImport } from './run-import';
import { type LocalServer, bytes, html, sequentialIds, startLocalServer, withConversions } from './testing/local-server';

describe('runImport', () => {
  let server: LocalServer;
  const options = withConversions({ allowPrivateNetworks: true, newId: sequentialIds() });

  beforeAll(async () => {
    server = await startLocalServer({
      '/site/': html('<h1>Site</h1><a href="next">Next</a>'),
      '/site/next': html('<h1>Next</h1>'),
      '/notes.md': bytes('text/markdown', '# Notes\n'),
      '/export.zip': bytes('application/zip', zipSync({ 'README.md': strToU8('# Exported\n') })),
    });
  });

  afterAll(() => server.close());

  it.each([
    ['website', '/site/', ['Site']],
    ['markdown', '/notes.md', ['Notes']],
    ['zip', '/export.zip', ['Exported']],
  ] as const)('imports the %s source', async (source, path, titles) => {
    const plan = await runImport({ source, url: server.url(path) }, options);
    expect(plan.pages.map((page) => page.title)).toEqual(titles);
  });

  it('applies the limits it is given over the defaults', async () => {
    const plan = await runImport({ source: 'website', url: server.url('/site/') }, { ...options, limits: { maxPages: 1 } });
    expect(plan.warnings).toEqual(['left out 1 page: page limit 1 reached']);
  });

  it.each(['website', 'markdown', 'zip'] as const)(
    'refuses a private address for the %s source unless private networks are allowed (400)',
    async (source) => {
      const failure = await runImport({ source, url: server.url('/site/') }, { ...options, allowPrivateNetworks: false }).catch(
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(ImportFailure);
      expect((failure as ImportFailure).status).toBe(400);
    },
  );

  it('fails with DomainErrors, so the API answers with the failure status', async () => {
    const failure = await runImport({ source: 'website', url: 'ftp://example.com/' }, options).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DomainError);
    expect(failure).toMatchObject({ status: 400, name: 'ImportFailure' });
  });

  it('refuses an unknown source (400)', async () => {
    const failure = await runImport({ source: 'svn' as ImportSource, url: server.url('/site/') }, options).catch((error: unknown) => error);
    expect((failure as ImportFailure).status).toBe(400);
  });
});
