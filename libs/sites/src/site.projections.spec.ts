import { inStream, projectionSpec } from '#testing';
import { SITES, siteProjection } from './site.projections';
import type { SiteEvent } from './site.events';

const t0 = '2026-01-01T00:00:00.000Z';
const spec = projectionSpec(siteProjection);
const about = { siteId: 'site1', organizationId: 'o1' };
const rootSpace = (siteSpaceId: string, isDefault: boolean): SiteEvent => ({
  type: 'SiteSpaceAdded',
  data: { ...about, siteSpaceId, spaceId: `space-${siteSpaceId}`, sectionId: null, path: siteSpaceId, default: isDefault, addedAt: t0 },
});
const history = inStream('site-site1', [
  { type: 'SiteCreated', data: { ...about, type: 'premium', title: 'Docs', visibility: 'public', createdBy: 'ada', createdAt: t0 } },
  rootSpace('a', true),
  rootSpace('b', false),
  { type: 'SiteSectionAdded', data: { ...about, sectionId: 'root', title: 'Docs', icon: null, path: 'docs', default: true, addedAt: t0 } },
  { type: 'SiteRootSpacesSectioned', data: { ...about, sectionId: 'root' } },
  {
    type: 'SiteSectionAdded',
    data: { ...about, sectionId: 'new', title: 'Reference', icon: null, path: 'reference', default: false, draft: true, addedAt: t0 },
  },
  {
    type: 'SiteSpaceAdded',
    data: {
      ...about,
      siteSpaceId: 'n',
      spaceId: 'space-n',
      sectionId: 'new',
      path: 'n',
      default: true,
      title: 'API',
      pageId: 'p1',
      addedAt: t0,
    },
  },
  { type: 'SiteUpdated', data: { ...about, changes: { defaultLevel: 'edit', styleguide: 'space-a' }, updatedAt: t0 } },
]);

describe('site projection', () => {
  it('given a site’s first section taking its root site spaces, then they sit in that section with the root’s default', async () => {
    await spec.given(history).then({
      [SITES]: [
        expect.objectContaining({
          _id: 'site1',
          type: 'premium',
          defaultSection: 'root',
          defaultSiteSpace: { root: 'a', new: 'n' },
          siteSpaces: [
            expect.objectContaining({ id: 'a', sectionId: 'root' }),
            expect.objectContaining({ id: 'b', sectionId: 'root' }),
            expect.objectContaining({ id: 'n', sectionId: 'new', title: 'API', pageId: 'p1' }),
          ],
        }),
      ],
    });
  });

  it('given a draft section and a default level and style guide, then the document keeps them', async () => {
    await spec.given(history).then({
      [SITES]: [
        expect.objectContaining({
          defaultLevel: 'edit',
          styleguide: 'space-a',
          sections: [expect.objectContaining({ id: 'root' }), expect.objectContaining({ id: 'new', draft: true })],
        }),
      ],
    });
  });

  it('given the events applied twice, then the document is unchanged', async () => {
    await spec.given(history).thenIdempotent();
  });
});
