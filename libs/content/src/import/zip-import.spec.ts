import * as fflate from 'fflate';
import { strToU8, zipSync } from 'fflate';
import { ImportFailure } from './import-failure';
import type { ImportPlan, PlannedPage } from './import-plan';
import { PIXEL_PNG, type LocalServer, bytes, sequentialIds, startLocalServer, withConversions } from './testing/local-server';
import { deflatedZeros, rawZip } from './testing/zip-bomb';
import { archiveTarget, importZip, importZipBytes, normaliseEntryPath } from './zip-import';

type Files = Record<string, string | Uint8Array>;

function zip(files: Files): Uint8Array {
  return zipSync(
    Object.fromEntries(Object.entries(files).map(([path, content]) => [path, typeof content === 'string' ? strToU8(content) : content])),
  );
}

function importFiles(files: Files, limits = {}): ImportPlan {
  return importZipBytes(zip(files), limits, sequentialIds());
}

function outline(pages: readonly PlannedPage[]): unknown[] {
  return pages.map((planned) => (planned.pages.length ? { [planned.title]: outline(planned.pages) } : planned.title));
}

function allPages(pages: readonly PlannedPage[]): PlannedPage[] {
  return pages.flatMap((planned) => [planned, ...allPages(planned.pages)]);
}

function byTitle(plan: ImportPlan, title: string): PlannedPage {
  const found = allPages(plan.pages).find((planned) => planned.title === title);
  if (!found) throw new Error(`no page titled ${title}`);
  return found;
}

function failureOf(run: () => unknown): ImportFailure {
  try {
    run();
  } catch (error) {
    if (error instanceof ImportFailure) return error;
    throw error;
  }
  throw new Error('expected an ImportFailure');
}

describe('importZipBytes', () => {
  afterEach(() => jest.restoreAllMocks());

  describe('without SUMMARY.md', () => {
    const plan = importFiles({
      'README.md': '# Introduction\n\nHello.\n',
      'zebra.md': '# Zebra\n',
      'apple.md': 'No heading here.\n',
      'guide/README.md': '# The guide\n\nRead on.\n',
      'guide/2-configure.md': '# Configure\n',
      'guide/10-deploy.md': '# Deploy\n',
      'reference/api/calls.md': '# Calls\n',
    });

    it('makes a page of every markdown file and of every folder, alphabetically with README first', () => {
      expect(outline(plan.pages)).toEqual([
        'Introduction',
        'apple',
        { 'The guide': ['Configure', 'Deploy'] },
        { reference: [{ api: ['Calls'] }] },
        'Zebra',
      ]);
    });

    it("uses a folder's README.md as the folder page's body", () => {
      expect(byTitle(plan, 'The guide').markdown).toBe('Read on.\n');
    });

    it('gives a folder without README.md a page with the folder name and an empty body', () => {
      expect(byTitle(plan, 'reference')).toMatchObject({ markdown: '' });
    });

    it('takes the title from the file name when the file has no heading', () => {
      expect(byTitle(plan, 'apple').markdown).toBe('No heading here.\n');
    });

    it('counts pages as imported resources', () => {
      expect(plan).toMatchObject({ importedResources: 9, totalResources: 9, warnings: [] });
    });
  });

  describe('with SUMMARY.md', () => {
    const plan = importFiles({
      'SUMMARY.md': [
        '# Table of contents',
        '',
        '* [Introduction](README.md)',
        '',
        '## Getting started',
        '',
        '* [Install it](setup/install.md)',
        '  * [On Linux](setup/linux.md)',
        '* [Quick start](quickstart.md)',
        '',
        '## Reference',
        '',
        '* [API](api.md)',
        '* [Planned](planned.md)',
        '',
      ].join('\n'),
      'README.md': '# Introduction\n',
      'api.md': '# API\n',
      'quickstart.md': '# Quick start\n',
      'setup/install.md': '# Installation\n\nSteps.\n',
      'setup/linux.md': '# On Linux\n',
      'unlisted.md': '# Unlisted\n',
    });

    it('orders and nests the pages as SUMMARY.md lists them, its ## headings as group pages', () => {
      expect(outline(plan.pages)).toEqual([
        'Introduction',
        { 'Getting started': [{ 'Install it': ['On Linux'] }, 'Quick start'] },
        { Reference: ['API', 'Planned'] },
      ]);
    });

    it('titles pages as SUMMARY.md does, keeping a differing first heading in the body', () => {
      expect(byTitle(plan, 'Install it').markdown).toBe('# Installation\n\nSteps.\n');
    });

    it('leaves out markdown files SUMMARY.md does not list, with a warning', () => {
      expect(plan.warnings).toContain('left out 1 markdown file not listed in SUMMARY.md: unlisted.md');
    });

    it('imports an entry whose file is missing as an empty page, with a warning', () => {
      expect(byTitle(plan, 'Planned').markdown).toBe('');
      expect(plan.warnings).toContain('SUMMARY.md lists planned.md, which is not in the archive: imported as an empty page');
    });
  });

  describe('links', () => {
    const plan = importFiles({
      'README.md': '# Home\n\nSee the [intro](guide/intro.md#setup), the [guide](guide/) and [nothing](guide/nothing.md).\n',
      'guide/README.md': '# Guide\n',
      'guide/intro.md':
        '# Intro\n\n![Diagram](../images/diagram.png "The diagram")\n\nBack [home](../README.md), [escape](../../outside.md), [web](https://example.com/a.md), [here](#setup).\n\n<figure><img src="../images/diagram.png" alt=""></figure>\n',
      'images/diagram.png': PIXEL_PNG,
      'images/unused.png': PIXEL_PNG,
    });
    const home = byTitle(plan, 'Home');
    const guide = byTitle(plan, 'Guide');
    const intro = byTitle(plan, 'Intro');

    it('rewrites relative links between markdown files to /pages/<id>, keeping the anchor', () => {
      expect(home.markdown).toContain(`[intro](/pages/${intro.id}#setup)`);
      expect(intro.markdown).toContain(`[home](/pages/${home.id})`);
    });

    it('rewrites a link to a folder to the folder page', () => {
      expect(home.markdown).toContain(`[guide](/pages/${guide.id})`);
    });

    it('imports linked images as files and rewrites them to /files/<id>', () => {
      expect(plan.files).toEqual([{ id: expect.any(String), name: 'diagram.png', contentType: 'image/png', bytes: PIXEL_PNG }]);
      expect(intro.markdown).toContain(`![Diagram](/files/${plan.files[0].id} "The diagram")`);
    });

    it('rewrites src attributes of raw HTML too', () => {
      expect(intro.markdown).toContain(`<img src="/files/${plan.files[0].id}" alt="">`);
    });

    it('leaves broken, escaping, absolute and same-page links as written', () => {
      expect(home.markdown).toContain('[nothing](guide/nothing.md)');
      expect(intro.markdown).toContain('[escape](../../outside.md)');
      expect(intro.markdown).toContain('[web](https://example.com/a.md)');
      expect(intro.markdown).toContain('[here](#setup)');
    });

    it('imports only the files that pages link to', () => {
      expect(plan.files.map((file) => file.name)).toEqual(['diagram.png']);
      expect(plan).toMatchObject({ importedResources: 4, totalResources: 4 });
    });
  });

  describe('paths', () => {
    it('ignores entries that climb out of the archive, with a warning', () => {
      const plan = importFiles({ 'README.md': '# Home\n', '../evil.md': '# Evil\n' });
      expect(outline(plan.pages)).toEqual(['Home']);
      expect(plan.warnings).toEqual(['ignored 1 entry with an unsafe path: ../evil.md']);
    });

    it('ignores __MACOSX resource forks', () => {
      const plan = importFiles({ 'README.md': '# Home\n', '__MACOSX/._README.md': 'binary' });
      expect(outline(plan.pages)).toEqual(['Home']);
      expect(plan.warnings).toEqual([]);
    });

    it('takes the content of a single folder wrapping everything as the root', () => {
      const plan = importFiles({ 'docs-main/README.md': '# Home\n', 'docs-main/guide/a.md': '# A\n' });
      expect(outline(plan.pages)).toEqual(['Home', { guide: ['A'] }]);
    });

    it.each([
      ['a\\b.md', { path: 'a/b.md' }],
      ['./a//b.md', { path: 'a/b.md' }],
      ['../a.md', { refused: 'unsafe' }],
      ['a/../../b.md', { refused: 'unsafe' }],
      ['/etc/passwd', { refused: 'unsafe' }],
      ['C:\\Windows\\x.md', { refused: 'unsafe' }],
      ['__MACOSX/a.md', { refused: 'ignored' }],
    ])('normalises the entry name %s', (name, expected) => {
      expect(normaliseEntryPath(name)).toEqual(expected);
    });

    it.each([
      ['guide/intro.md', 'README.md', { path: 'guide/intro.md', fragment: '' }],
      ['../guide/intro.md#setup', 'api/calls.md', { path: 'guide/intro.md', fragment: '#setup' }],
      ['my%20notes.md', 'README.md', { path: 'my notes.md', fragment: '' }],
      ['/images/a.png', 'guide/intro.md', { path: 'images/a.png', fragment: '' }],
      ['../../outside.md', 'guide/intro.md', undefined],
      ['https://example.com/a.md', 'README.md', undefined],
      ['#anchor', 'README.md', undefined],
    ])('resolves the link %s written in %s', (written, from, expected) => {
      expect(archiveTarget(written, from)).toEqual(expected);
    });
  });

  describe('limits', () => {
    it('stops at the page limit, in tree order, and says how many pages it left out', () => {
      const plan = importFiles({ 'a.md': '# A\n', 'b.md': '# B\n', 'c/d.md': '# D\n' }, { maxPages: 2 });
      expect(outline(plan.pages)).toEqual(['A', 'B']);
      expect(plan.warnings).toEqual(['left out 2 pages: page limit 2 reached']);
      expect(plan).toMatchObject({ importedResources: 2, totalResources: 4 });
    });

    it('refuses more entries than the entry limit (413)', () => {
      const failure = failureOf(() => importFiles({ 'a.md': 'a', 'b.md': 'b', 'c.md': 'c' }, { maxArchiveEntries: 2 }));
      expect(failure.status).toBe(413);
      expect(failure.message).toMatch(/has 3 entries; at most 2/);
    });

    it('refuses an entry declaring more than the entry size limit (413) without inflating anything', () => {
      const push = jest.spyOn(fflate.Inflate.prototype, 'push');
      const failure = failureOf(() => importFiles({ 'big.md': new Uint8Array(2_000_000) }, { maxEntryBytes: 1_000_000 }));
      expect(failure.status).toBe(413);
      expect(push).not.toHaveBeenCalled();
    });

    it('refuses entries declaring more than the total uncompressed limit together (413) without inflating anything', () => {
      const push = jest.spyOn(fflate.Inflate.prototype, 'push');
      const files = { 'a.md': new Uint8Array(600_000), 'b.md': new Uint8Array(600_000) };
      const failure = failureOf(() => importFiles(files, { maxUncompressedBytes: 1_000_000 }));
      expect(failure.status).toBe(413);
      expect(failure.message).toMatch(/larger than 1000000 bytes uncompressed/);
      expect(push).not.toHaveBeenCalled();
    });

    it('stops inflating a zip bomb that lies about its size as soon as it outgrows the declared size (413)', () => {
      const gigabyteOfZeros = deflatedZeros(4_200_000); // about 6.5 MB compressed
      const archive = rawZip([{ name: 'README.md', method: 8, data: gigabyteOfZeros, declaredSize: 1000 }]);
      const push = jest.spyOn(fflate.Inflate.prototype, 'push');
      const failure = failureOf(() => importZipBytes(archive, {}, sequentialIds()));
      expect(failure.status).toBe(413);
      expect(failure.message).toMatch(/inflates to more than its declared 1000 bytes/);
      const compressedBytesInflated = push.mock.calls.reduce((total, [chunk]) => total + chunk.length, 0);
      expect(compressedBytesInflated).toBeLessThan(gigabyteOfZeros.length / 100);
    });

    it('refuses what is not a zip archive (422)', () => {
      const failure = failureOf(() => importZipBytes(strToU8('just text'), {}, sequentialIds()));
      expect(failure.status).toBe(422);
      expect(failure.message).toMatch(/not a zip archive/);
    });
  });
});

describe('importZip', () => {
  let server: LocalServer;

  beforeAll(async () => {
    server = await startLocalServer({
      '/export.zip': bytes('application/zip', zip({ 'README.md': '# Home\n' })),
      '/page': bytes('text/html', '<h1>Not a zip</h1>'),
    });
  });

  afterAll(() => server.close());

  it('downloads the archive and imports it', async () => {
    const plan = await importZip(server.url('/export.zip'), {}, withConversions({ newId: sequentialIds(), allowPrivateNetworks: true }));
    expect(outline(plan.pages)).toEqual(['Home']);
  });

  it('refuses an archive larger than the archive byte limit (413)', async () => {
    const failure = await importZip(
      server.url('/export.zip'),
      { maxArchiveBytes: 10 },
      withConversions({ newId: sequentialIds(), allowPrivateNetworks: true }),
    ).catch((error: unknown) => error);
    expect((failure as ImportFailure).status).toBe(413);
  });

  it('refuses what is not served as a zip archive (422)', async () => {
    const failure = await importZip(server.url('/page'), {}, withConversions({ newId: sequentialIds(), allowPrivateNetworks: true })).catch(
      (error: unknown) => error,
    );
    expect((failure as ImportFailure).status).toBe(422);
  });
});
