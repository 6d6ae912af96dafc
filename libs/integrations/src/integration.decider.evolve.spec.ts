import { deciderSpec } from '#testing';
import { installationDecider, installationIdOf } from './integration.decider';
import type { InstallationEvent } from './integration.events';

/** What the installation's history leaves in its state, seen through the next command. */
const t0 = '2026-01-01T00:00:00.000Z';
const spec = deciderSpec(installationDecider);
const id = installationIdOf('slack', 'o2');
const about = { installationId: id, integrationName: 'slack', organizationId: 'o2' };
const by = { installationId: id, organizationAdmin: true, by: 'otto', now: t0 };
const installed: InstallationEvent = {
  type: 'IntegrationInstalled',
  data: { ...about, configuration: {}, spaceSelection: 'selected', siteSelection: 'selected', installedBy: 'otto', installedAt: t0 },
};

describe('installation decider: what the history leaves', () => {
  it('given a space installation removed, when removed again, then 404: the place is gone', () => {
    spec
      .given([
        installed,
        {
          type: 'IntegrationSpaceInstallationSet',
          data: { ...about, spaceId: 's1', status: 'active', configuration: {}, previous: null, setBy: 'otto', setAt: t0 },
        },
        { type: 'IntegrationSpaceInstallationRemoved', data: { ...about, spaceId: 's1', removedBy: 'otto', removedAt: t0 } },
      ])
      .when({ kind: 'RemovePlaceInstallation', ...by, place: 'space', placeId: 's1' })
      .thenFails(404, 'integration slack is not installed on space s1');
  });

  it('given an update that selected every site, when every site is selected again, then nothing', () => {
    spec
      .given([
        installed,
        {
          type: 'IntegrationInstallationUpdated',
          data: {
            ...about,
            status: 'active',
            configuration: {},
            spaceSelection: 'selected',
            siteSelection: 'all',
            previous: { status: 'active', configuration: {} },
            updatedBy: 'otto',
            updatedAt: t0,
          },
        },
      ])
      .when({ kind: 'UpdateInstallation', ...by, siteSelection: 'all' })
      .thenNothing();
  });
});
