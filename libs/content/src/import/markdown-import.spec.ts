import { ImportFailure } from './import-failure';
import type { ImportDeps } from './import-plan';
import { importMarkdown, markdownPage } from './markdown-import';
import { type LocalServer, bytes, html, sequentialIds, startLocalServer, withConversions } from './testing/local-server';

const GUIDE = `---
title: Getting started
description: The first steps
---
# Welcome

Install it, then [configure it](configure.md).
`;

describe('importMarkdown', () => {
  let server: LocalServer;
  let deps: ImportDeps;

  beforeAll(async () => {
    server = await startLocalServer({
      '/notes/getting-started.md': bytes('text/markdown; charset=utf-8', GUIDE),
      '/notes/plain.txt': bytes('text/plain', '# Plain title\n\nSome text.\n'),
      '/notes/octet.md': bytes('application/octet-stream', 'Just text.\n'),
      '/notes/page.html': html('<h1>Not markdown</h1>'),
    });
    deps = withConversions({ newId: sequentialIds(), allowPrivateNetworks: true });
  });

  afterAll(() => server.close());

  it('imports one markdown file as one page', async () => {
    const plan = await importMarkdown(server.url('/notes/getting-started.md'), {}, deps);
    expect(plan).toEqual({
      pages: [
        {
          id: expect.stringMatching(/^[0-9A-Za-z]{20}$/),
          title: 'Getting started',
          description: 'The first steps',
          markdown: '# Welcome\n\nInstall it, then [configure it](configure.md).\n',
          pages: [],
        },
      ],
      files: [],
      importedResources: 1,
      totalResources: 1,
      warnings: [],
    });
  });

  it('accepts text/plain', async () => {
    const plan = await importMarkdown(server.url('/notes/plain.txt'), {}, deps);
    expect(plan.pages[0]).toMatchObject({ title: 'Plain title', markdown: 'Some text.\n' });
  });

  it('accepts a .md file whatever non-HTML type it is served as', async () => {
    const plan = await importMarkdown(server.url('/notes/octet.md'), {}, deps);
    expect(plan.pages[0]).toMatchObject({ title: 'octet', markdown: 'Just text.\n' });
  });

  it('refuses an HTML page (422)', async () => {
    const failure = await importMarkdown(server.url('/notes/page.html'), {}, deps).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ImportFailure);
    expect((failure as ImportFailure).status).toBe(422);
    expect((failure as ImportFailure).message).toMatch(/not a markdown file/);
  });

  it('refuses a file larger than the byte limit (413)', async () => {
    const failure = await importMarkdown(server.url('/notes/getting-started.md'), { maxBytes: 10 }, deps).catch((error: unknown) => error);
    expect((failure as ImportFailure).status).toBe(413);
  });
});

describe('markdownPage', () => {
  const newId = sequentialIds();

  it('takes the title from front matter and keeps the text after it as written', () => {
    const planned = markdownPage('---\ntitle: "Release notes"\n---\n# Version 2\n\n* a\n', 'fallback', newId);
    expect(planned).toMatchObject({ title: 'Release notes', markdown: '# Version 2\n\n* a\n' });
  });

  it('takes the title from the first # heading and leaves that heading out of the body', () => {
    expect(markdownPage('# Setup\n\nSteps.\n', 'fallback', newId)).toMatchObject({ title: 'Setup', markdown: 'Steps.\n' });
  });

  it('keeps a first # heading that is not at the start in the body', () => {
    expect(markdownPage('Intro.\n\n# Setup\n', 'fallback', newId)).toMatchObject({
      title: 'Setup',
      markdown: 'Intro.\n\n# Setup\n',
    });
  });

  it('takes the title from the file name when there is neither', () => {
    expect(markdownPage('## Only a second-level heading\n', 'my notes', newId).title).toBe('my notes');
  });

  it('ignores front matter that is not valid YAML', () => {
    expect(markdownPage('---\ntitle: [unclosed\n---\n# Heading\n', 'fallback', newId)).toMatchObject({
      title: 'Heading',
      markdown: '',
    });
  });
});
