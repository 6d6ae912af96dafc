import { DEFAULT_PAGE_LAYOUT, pageLayout } from './page-layout';

describe('page layout', () => {
  it('is the platform’s default layout, every member present, when the page has none', () => {
    expect(pageLayout(undefined)).toEqual({
      width: 'default',
      cover: true,
      coverSize: 'hero',
      coverMask: 'none',
      title: true,
      description: true,
      tableOfContents: true,
      outline: true,
      pagination: true,
      metadata: true,
      tags: true,
      actions: true,
      anchors: true,
    });
  });

  it('keeps the stored members that have the platform’s values, the default filling in the rest', () => {
    expect(pageLayout({ width: 'wide', outline: false })).toEqual({ ...DEFAULT_PAGE_LAYOUT, width: 'wide', outline: false });
  });

  it('ignores stored members with values outside the platform’s, unknown members and prototype names', () => {
    const stored = JSON.parse(
      '{"width":"huge","cover":"yes","coverSize":"full","extra":1,"__proto__":{"title":false},"constructor":false}',
    ) as Record<string, unknown>;
    expect(pageLayout(stored)).toEqual({ ...DEFAULT_PAGE_LAYOUT, coverSize: 'full' });
  });

  it('gives each page its own copy', () => {
    const layout = pageLayout(undefined);
    layout.title = false;
    expect(DEFAULT_PAGE_LAYOUT.title).toBe(true);
  });
});
