/**
 * A document page's layout as the platform's clients read it (`RevisionPageLayoutOptions`: every
 * member present). The service has no way to change a layout, so a page shows the platform's
 * default one; a layout a page node does carry (written by an older client, or merged in) keeps
 * each member that has one of the platform's values, the default filling in the rest.
 */
export interface PageLayout {
  width: 'default' | 'wide';
  cover: boolean;
  coverSize: 'hero' | 'full' | 'background';
  coverMask: 'none' | 'radial';
  title: boolean;
  description: boolean;
  tableOfContents: boolean;
  outline: boolean;
  pagination: boolean;
  metadata: boolean;
  tags: boolean;
  actions: boolean;
  anchors: boolean;
}

export const DEFAULT_PAGE_LAYOUT: Readonly<PageLayout> = Object.freeze({
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

/** The values each member may take; booleans for the rest. */
const CHOICES: Partial<Record<keyof PageLayout, readonly string[]>> = {
  width: ['default', 'wide'],
  coverSize: ['hero', 'full', 'background'],
  coverMask: ['none', 'radial'],
};

const MEMBERS = Object.keys(DEFAULT_PAGE_LAYOUT) as Array<keyof PageLayout>;

/** The layout a page shows: the stored members that are valid, over the default. */
export function pageLayout(stored: Readonly<Record<string, unknown>> | undefined): PageLayout {
  if (stored === undefined) return { ...DEFAULT_PAGE_LAYOUT };
  const layout: Record<string, unknown> = { ...DEFAULT_PAGE_LAYOUT };
  for (const member of MEMBERS) {
    // Own members only: a stored `__proto__` or `constructor` is not a layout member.
    if (!Object.hasOwn(stored, member)) continue;
    const value = stored[member];
    const choices = CHOICES[member];
    if (choices ? typeof value === 'string' && choices.includes(value) : typeof value === 'boolean') layout[member] = value;
  }
  return layout as unknown as PageLayout;
}
