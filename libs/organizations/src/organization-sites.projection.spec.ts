import { inStream, projectionSpec } from '#testing';
import { ORGANIZATION_SITES, organizationSitesProjection, type SiteLifecycleEvent } from './organization-sites.projection';

const spec = projectionSpec(organizationSitesProjection);
const site = (events: SiteLifecycleEvent[]) => inStream('site-w1', events);

describe('organization sites projection', () => {
  it('given a site created, then a live site of its organization', async () => {
    await spec
      .given(site([{ type: 'SiteCreated', data: { siteId: 'w1', organizationId: 'o1' } }]))
      .then({ [ORGANIZATION_SITES]: [{ _id: 'w1', organizationId: 'o1', deleted: false }] });
  });

  it('given a site created then deleted, then a tombstone that no replayed creation revives', async () => {
    await spec
      .given(
        site([
          { type: 'SiteCreated', data: { siteId: 'w1', organizationId: 'o1' } },
          { type: 'SiteDeleted', data: { siteId: 'w1', organizationId: 'o1' } },
        ]),
      )
      .then({ [ORGANIZATION_SITES]: [{ _id: 'w1', organizationId: 'o1', deleted: true }] });
  });
});
