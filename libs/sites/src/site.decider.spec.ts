import { deciderSpec } from '#testing';
import { changeableSite, placed, siteDecider, siteHostnameDecider, uniquePath, type SiteCommand } from './site.decider';
import type { SiteEvent } from './site.events';
import { inVerifiedDomain, isIpLiteral } from './site.hostnames';

const t0 = '2026-01-01T00:00:00.000Z';
const spec = deciderSpec(siteDecider);
const about = { siteId: 'site1', organizationId: 'o1' };
const act = { siteId: 'site1', organizationId: 'o1', allowed: true, now: t0 };
const created: SiteEvent = {
  type: 'SiteCreated',
  data: { ...about, type: 'basic', title: 'Docs', visibility: 'public', createdBy: 'ada', createdAt: t0 },
};
const spaceAdded = (siteSpaceId: string, path: string, isDefault: boolean, sectionId: string | null = null): SiteEvent => ({
  type: 'SiteSpaceAdded',
  data: { ...about, siteSpaceId, spaceId: `space-${siteSpaceId}`, sectionId, path, default: isDefault, addedAt: t0 },
});
const sectionAdded = (sectionId: string, isDefault: boolean): SiteEvent => ({
  type: 'SiteSectionAdded',
  data: { ...about, sectionId, title: sectionId, icon: null, path: sectionId, default: isDefault, addedAt: t0 },
});

describe('site decider', () => {
  it('given nothing, when a site is created with two spaces, then the first is the default site space and paths are unique', () => {
    const create: SiteCommand = {
      kind: 'CreateSite',
      ...act,
      type: 'basic',
      title: 'Docs',
      visibility: 'public',
      by: 'ada',
      siteSpaces: [
        { siteSpaceId: 'a', spaceId: 'space-a', path: 'guide' },
        { siteSpaceId: 'b', spaceId: 'space-b', path: 'guide' },
      ],
    };
    spec
      .given([])
      .when(create)
      .then([created, spaceAdded('a', 'guide', true), spaceAdded('b', 'guide-2', false)]);
  });

  it('given nothing, when someone below create creates a site, then 403', () => {
    spec
      .given([])
      .when({ kind: 'CreateSite', ...act, allowed: false, type: 'basic', title: 'Docs', visibility: 'public', by: 'rita', siteSpaces: [] })
      .thenFails(403);
  });

  it('given a site of another organization, when changed through this one, then 404', () => {
    spec
      .given([created])
      .when({ kind: 'PublishSite', ...act, organizationId: 'o2', published: true })
      .thenFails(404);
  });

  it('given a default site space, when it is removed, then the next one in its scope becomes the default', () => {
    spec
      .given([created, spaceAdded('a', 'a', true), spaceAdded('b', 'b', false)])
      .when({ kind: 'RemoveSiteSpace', ...act, siteSpaceId: 'a' })
      .then([
        { type: 'SiteSpaceRemoved', data: { ...about, siteSpaceId: 'a', removedAt: t0 } },
        { type: 'SiteDefaultSiteSpaceSet', data: { ...about, siteSpaceId: 'b', sectionId: null } },
      ]);
  });

  it('given the default section, when it is removed, then the next section becomes the default', () => {
    spec
      .given([created, sectionAdded('s1', true), sectionAdded('s2', false)])
      .when({ kind: 'RemoveSection', ...act, sectionId: 's1' })
      .then([
        { type: 'SiteSectionRemoved', data: { ...about, sectionId: 's1', removedAt: t0 } },
        { type: 'SiteDefaultSectionSet', data: { ...about, sectionId: 's2' } },
      ]);
  });

  it('given sections, when a site space is added without a section, then it goes to the default section', () => {
    spec
      .given([created, sectionAdded('s1', true)])
      .when({ kind: 'AddSiteSpace', ...act, siteSpaceId: 'a', spaceId: 'space-a', sectionId: undefined, path: 'a' })
      .then([spaceAdded('a', 'a', true, 's1')]);
  });

  it('given two site spaces, when one takes the other’s path, then 409', () => {
    spec
      .given([created, spaceAdded('a', 'a', true), spaceAdded('b', 'b', false)])
      .when({ kind: 'UpdateSiteSpace', ...act, siteSpaceId: 'b', changes: { path: 'a' } })
      .thenFails(409);
  });

  it('given a site space in a section, when made the site’s default space while another section is the default, then 400', () => {
    spec
      .given([created, sectionAdded('s1', true), sectionAdded('s2', false), spaceAdded('a', 'a', true, 's2')])
      .when({ kind: 'UpdateSite', ...act, changes: {}, defaultSiteSpace: 'a' })
      .thenFails(400);
  });

  it('given two sections, when the structure is sorted listing only one, then 400 (every section exactly once)', () => {
    spec
      .given([created, sectionAdded('s1', true), sectionAdded('s2', false)])
      .when({ kind: 'SortStructure', ...act, sections: [{ id: 's1', group: null }], siteSpaces: {} })
      .thenFails(400);
  });

  it('given two sections, when the structure is sorted listing both, then one SiteStructureSorted with the new order', () => {
    spec
      .given([created, sectionAdded('s1', true), sectionAdded('s2', false)])
      .when({
        kind: 'SortStructure',
        ...act,
        sections: [
          { id: 's2', group: null },
          { id: 's1', group: null },
        ],
        siteSpaces: {},
      })
      .then([{ type: 'SiteStructureSorted', data: { ...about, sections: ['s2', 's1'], siteSpaces: {} } }]);
  });

  it('places an item before or after another, at the end without a position, and refuses a position outside the order', () => {
    expect(placed(['a', 'b', 'c'], 'c', { before: 'a' })).toEqual(['c', 'a', 'b']);
    expect(placed(['a', 'b', 'c'], 'a', { after: 'b' })).toEqual(['b', 'a', 'c']);
    expect(placed(['a', 'b', 'c'], 'a', null)).toEqual(['b', 'c', 'a']);
    expect(placed(['a', 'b'], 'a', { before: 'z' })).toBeNull();
    expect(uniquePath('guide', new Set(['guide', 'guide-2']))).toBe('guide-3');
  });

  const linkCreated: SiteEvent = {
    type: 'SiteShareLinkCreated',
    data: { ...about, shareLinkId: 'l1', key: 'k'.repeat(32), name: 'Partners', createdBy: 'ada', createdAt: t0 },
  };

  it('given a site, when a share link is created, then SiteShareLinkCreated with its key', () => {
    spec
      .given([created])
      .when({ kind: 'CreateShareLink', ...act, shareLinkId: 'l1', key: 'k'.repeat(32), name: 'Partners', by: 'ada' })
      .then([linkCreated]);
  });

  it('given an active share link, when it is set active again, then nothing', () => {
    spec
      .given([created, linkCreated])
      .when({ kind: 'UpdateShareLink', ...act, shareLinkId: 'l1', changes: { active: true } })
      .then([]);
  });

  it('given an active share link, when it is deactivated, then SiteShareLinkUpdated with only that change', () => {
    spec
      .given([created, linkCreated])
      .when({ kind: 'UpdateShareLink', ...act, shareLinkId: 'l1', changes: { active: false, name: 'Partners' } })
      .then([{ type: 'SiteShareLinkUpdated', data: { ...about, shareLinkId: 'l1', changes: { active: false }, updatedAt: t0 } }]);
  });

  it('given a deleted share link, when it is changed, then 404', () => {
    spec
      .given([created, linkCreated, { type: 'SiteShareLinkDeleted', data: { ...about, shareLinkId: 'l1', deletedAt: t0 } }])
      .when({ kind: 'UpdateShareLink', ...act, shareLinkId: 'l1', changes: { active: false } })
      .thenFails(404);
  });

  it('given a rotated visitor key, when it is rotated again, then the next generation', () => {
    spec
      .given([created, { type: 'SiteVisitorKeyRotated', data: { ...about, keyGeneration: 1, rotatedAt: t0 } }])
      .when({ kind: 'RotateVisitorKey', ...act })
      .then([{ type: 'SiteVisitorKeyRotated', data: { ...about, keyGeneration: 2, rotatedAt: t0 } }]);
  });

  it('given a space shown twice, the first the default, when the space leaves the site, then both site spaces go and the default moves on', () => {
    const other: SiteEvent = {
      type: 'SiteSpaceAdded',
      data: { ...about, siteSpaceId: 'c', spaceId: 'space-c', sectionId: null, path: 'c', default: false, addedAt: t0 },
    };
    const twice: SiteEvent = {
      type: 'SiteSpaceAdded',
      data: { ...about, siteSpaceId: 'b', spaceId: 'space-a', sectionId: null, path: 'b', default: false, addedAt: t0 },
    };
    spec
      .given([created, spaceAdded('a', 'a', true), twice, other])
      .when({ kind: 'RemoveSpaceFromSite', ...act, spaceId: 'space-a' })
      .then([
        { type: 'SiteSpaceRemoved', data: { ...about, siteSpaceId: 'a', removedAt: t0 } },
        { type: 'SiteDefaultSiteSpaceSet', data: { ...about, siteSpaceId: 'b', sectionId: null } },
        { type: 'SiteSpaceRemoved', data: { ...about, siteSpaceId: 'b', removedAt: t0 } },
        { type: 'SiteDefaultSiteSpaceSet', data: { ...about, siteSpaceId: 'c', sectionId: null } },
      ]);
  });
});

describe('a space leaving a site (deleted, purged or transferred to another organization)', () => {
  const inSection = (siteSpaceId: string, spaceId: string, sectionId: string, isDefault: boolean): SiteEvent => ({
    type: 'SiteSpaceAdded',
    data: { ...about, siteSpaceId, spaceId, sectionId, path: siteSpaceId, default: isDefault, addedAt: t0 },
  });
  const leave: SiteCommand = { kind: 'RemoveSpaceFromSite', ...act, spaceId: 'moving' };
  const history = [
    created,
    sectionAdded('s1', true),
    inSection('m1', 'moving', 's1', true),
    sectionAdded('s2', false),
    inSection('k2', 'kept', 's2', true),
    inSection('m2', 'moving', 's2', false),
  ];

  it('given the space alone in the default section and beside another in a second, then its site spaces go, the section it leaves empty goes and the default section moves on', () => {
    spec
      .given(history)
      .when(leave)
      .then([
        { type: 'SiteSpaceRemoved', data: { ...about, siteSpaceId: 'm1', removedAt: t0 } },
        { type: 'SiteSpaceRemoved', data: { ...about, siteSpaceId: 'm2', removedAt: t0 } },
        { type: 'SiteSectionRemoved', data: { ...about, sectionId: 's1', removedAt: t0 } },
        { type: 'SiteDefaultSectionSet', data: { ...about, sectionId: 's2' } },
      ]);
  });

  it('given the space already gone from the site, when it leaves again (a redelivered reaction), then nothing', () => {
    const gone: SiteEvent[] = [
      { type: 'SiteSpaceRemoved', data: { ...about, siteSpaceId: 'm1', removedAt: t0 } },
      { type: 'SiteSpaceRemoved', data: { ...about, siteSpaceId: 'm2', removedAt: t0 } },
      { type: 'SiteSectionRemoved', data: { ...about, sectionId: 's1', removedAt: t0 } },
      { type: 'SiteDefaultSectionSet', data: { ...about, sectionId: 's2' } },
    ];
    spec
      .given([...history, ...gone])
      .when(leave)
      .thenNothing();
  });

  it('given a section an administrator already left empty, when another space leaves, then that section stays', () => {
    spec
      .given([
        created,
        sectionAdded('s1', true),
        sectionAdded('s2', false),
        inSection('k2', 'kept', 's2', true),
        inSection('m2', 'moving', 's2', false),
      ])
      .when(leave)
      .then([{ type: 'SiteSpaceRemoved', data: { ...about, siteSpaceId: 'm2', removedAt: t0 } }]);
  });
});

describe('the first section of a site that shows spaces at its root', () => {
  const add: SiteCommand = {
    kind: 'AddSection',
    ...act,
    sectionId: 'new',
    title: 'Reference',
    icon: null,
    path: 'reference',
    draft: false,
    rootSectionId: 'root',
    siteSpace: { siteSpaceId: 'n', spaceId: 'space-n', path: 'n' },
  };

  it('given two site spaces at the root, when a section is added, then a default section named after the site takes them, and the new section follows with its space', () => {
    spec
      .given([created, spaceAdded('a', 'a', true), spaceAdded('b', 'b', false)])
      .when(add)
      .then([
        {
          type: 'SiteSectionAdded',
          data: { ...about, sectionId: 'root', title: 'Docs', icon: null, path: 'docs', default: true, addedAt: t0 },
        },
        { type: 'SiteRootSpacesSectioned', data: { ...about, sectionId: 'root' } },
        {
          type: 'SiteSectionAdded',
          data: { ...about, sectionId: 'new', title: 'Reference', icon: null, path: 'reference', default: false, addedAt: t0 },
        },
        {
          type: 'SiteSpaceAdded',
          data: { ...about, siteSpaceId: 'n', spaceId: 'space-n', sectionId: 'new', path: 'n', default: true, addedAt: t0 },
        },
      ]);
  });

  it('given the root content moved into its section, then those site spaces keep their order and default there, and a later site space goes to the default section', () => {
    const sectioned: SiteEvent[] = [
      created,
      spaceAdded('a', 'a', true),
      spaceAdded('b', 'b', false),
      sectionAdded('root', true),
      { type: 'SiteRootSpacesSectioned', data: { ...about, sectionId: 'root' } },
    ];
    spec
      .given(sectioned)
      .when({ kind: 'AddSiteSpace', ...act, siteSpaceId: 'c', spaceId: 'space-c', sectionId: undefined, path: 'c' })
      .then([spaceAdded('c', 'c', false, 'root')]);
    spec
      .given(sectioned)
      .when({ kind: 'RemoveSiteSpace', ...act, siteSpaceId: 'a' })
      .then([
        { type: 'SiteSpaceRemoved', data: { ...about, siteSpaceId: 'a', removedAt: t0 } },
        { type: 'SiteDefaultSiteSpaceSet', data: { ...about, siteSpaceId: 'b', sectionId: 'root' } },
      ]);
  });

  it('given a site without site spaces, when a section is added, then it is the only section and the default', () => {
    spec
      .given([created])
      .when(add)
      .then([
        {
          type: 'SiteSectionAdded',
          data: { ...about, sectionId: 'new', title: 'Reference', icon: null, path: 'reference', default: true, addedAt: t0 },
        },
        {
          type: 'SiteSpaceAdded',
          data: { ...about, siteSpaceId: 'n', spaceId: 'space-n', sectionId: 'new', path: 'n', default: true, addedAt: t0 },
        },
      ]);
  });

  it('given a site whose title makes the path the new section asks for, then the new section’s path is made unique', () => {
    spec
      .given([created, spaceAdded('a', 'a', true)])
      .when({ ...add, path: 'docs' })
      .then([
        {
          type: 'SiteSectionAdded',
          data: { ...about, sectionId: 'root', title: 'Docs', icon: null, path: 'docs', default: true, addedAt: t0 },
        },
        { type: 'SiteRootSpacesSectioned', data: { ...about, sectionId: 'root' } },
        {
          type: 'SiteSectionAdded',
          data: { ...about, sectionId: 'new', title: 'Reference', icon: null, path: 'docs-2', default: false, addedAt: t0 },
        },
        {
          type: 'SiteSpaceAdded',
          data: { ...about, siteSpaceId: 'n', spaceId: 'space-n', sectionId: 'new', path: 'n', default: true, addedAt: t0 },
        },
      ]);
  });
});

describe('moves without a position, or next to themselves', () => {
  const groupAdded = (groupId: string, sections: string[]): SiteEvent => ({
    type: 'SiteSectionGroupAdded',
    data: { ...about, groupId, title: groupId, icon: null, sections, addedAt: t0 },
  });
  const sorted = (sections: string[]): SiteEvent => ({ type: 'SiteStructureSorted', data: { ...about, sections, siteSpaces: {} } });

  it('given two sections, when the first moves without a position, then it goes to the end', () => {
    spec
      .given([created, sectionAdded('s1', true), sectionAdded('s2', false)])
      .when({ kind: 'MoveSection', ...act, sectionId: 's1', position: null })
      .then([sorted(['s2', 's1'])]);
  });

  it('given a section, when it moves before itself, then nothing (it is where it is)', () => {
    spec
      .given([created, sectionAdded('s1', true), sectionAdded('s2', false)])
      .when({ kind: 'MoveSection', ...act, sectionId: 's1', position: { before: 's1' } })
      .thenNothing();
  });

  it('given a site space, when it moves after itself, then nothing', () => {
    spec
      .given([created, spaceAdded('a', 'a', true), spaceAdded('b', 'b', false)])
      .when({ kind: 'MoveSiteSpace', ...act, siteSpaceId: 'a', position: { after: 'a' } })
      .thenNothing();
  });

  it('given two groups, when one moves before the other (a site-section-group pointer), then its sections move as a block before the other’s', () => {
    const history = [
      created,
      sectionAdded('s1', true),
      sectionAdded('s2', false),
      sectionAdded('s3', false),
      groupAdded('g1', ['s1']),
      groupAdded('g2', ['s2', 's3']),
    ];
    spec
      .given(history)
      .when({ kind: 'MoveSectionGroup', ...act, groupId: 'g2', position: { before: { type: 'site-section-group', id: 'g1' } } })
      .then([sorted(['s2', 's3', 's1'])]);
  });

  it('given a group, when it moves before one of its own sections, then nothing', () => {
    spec
      .given([created, sectionAdded('s1', true), sectionAdded('s2', false), groupAdded('g1', ['s1'])])
      .when({ kind: 'MoveSectionGroup', ...act, groupId: 'g1', position: { before: { type: 'site-section', id: 's1' } } })
      .thenNothing();
  });

  it('given a group, when it moves next to a group the site does not have, then 404', () => {
    spec
      .given([created, sectionAdded('s1', true), groupAdded('g1', ['s1'])])
      .when({ kind: 'MoveSectionGroup', ...act, groupId: 'g1', position: { after: { type: 'site-section-group', id: 'nope' } } })
      .thenFails(404);
  });
});

describe('the site’s default level', () => {
  const rita = { ...act, allowed: false, role: 'read' as const };
  const raised: SiteEvent = { type: 'SiteUpdated', data: { ...about, changes: { defaultLevel: 'admin' }, updatedAt: t0 } };

  it('given a site that inherits the organization’s roles, when a reader changes it, then 403', () => {
    spec
      .given([created])
      .when({ kind: 'PublishSite', ...rita, published: true })
      .thenFails(403);
  });

  it('given a site whose default level is admin, when a member with the read role changes it, then it changes', () => {
    spec
      .given([created, raised])
      .when({ kind: 'PublishSite', ...rita, published: true })
      .then([{ type: 'SitePublished', data: { ...about, publishedAt: t0 } }]);
  });

  it('given a site whose default level is admin, when a guest (no organization role) changes it, then 403', () => {
    spec
      .given([created, raised])
      .when({ kind: 'PublishSite', ...rita, role: null, published: true })
      .thenFails(403);
  });
});

describe('drafts, groups of a section, nesting and custom home pages', () => {
  const groupAdded: SiteEvent = {
    type: 'SiteSectionGroupAdded',
    data: { ...about, groupId: 'g1', title: 'Group', icon: null, sections: ['s1'], addedAt: t0 },
  };

  it('given a section in a group, when its group is set to null, then it leaves the group', () => {
    spec
      .given([created, sectionAdded('s1', true), groupAdded])
      .when({ kind: 'UpdateSection', ...act, sectionId: 's1', changes: {}, group: null })
      .then([{ type: 'SiteSectionUngrouped', data: { ...about, groupId: 'g1', sectionId: 's1' } }]);
  });

  it('given a group, when a group is created inside it, then 400 (groups are not nested); inside a group the site does not have, 404', () => {
    const nested: SiteCommand = { kind: 'AddSectionGroup', ...act, groupId: 'g2', title: 'Inner', icon: null, sections: [], parent: 'g1' };
    spec
      .given([created, sectionAdded('s1', true), groupAdded])
      .when(nested)
      .thenFails(400);
    spec.given([created]).when(nested).thenFails(404);
  });

  it('given a site space with a custom home page, when it shows another space, then the home page goes with the old space', () => {
    const withHome: SiteEvent = {
      type: 'SiteSpaceAdded',
      data: { ...about, siteSpaceId: 'a', spaceId: 'space-a', sectionId: null, path: 'a', default: true, pageId: 'p1', addedAt: t0 },
    };
    spec
      .given([created, withHome])
      .when({ kind: 'UpdateSiteSpace', ...act, siteSpaceId: 'a', changes: { spaceId: 'space-b' } })
      .then([
        { type: 'SiteSpaceUpdated', data: { ...about, siteSpaceId: 'a', changes: { spaceId: 'space-b', pageId: null }, updatedAt: t0 } },
      ]);
  });

  it('given a site, when a draft site space is added, then it is added as a draft', () => {
    spec
      .given([created])
      .when({ kind: 'AddSiteSpace', ...act, siteSpaceId: 'a', spaceId: 'space-a', sectionId: undefined, path: 'a', draft: true })
      .then([
        {
          type: 'SiteSpaceAdded',
          data: { ...about, siteSpaceId: 'a', spaceId: 'space-a', sectionId: null, path: 'a', default: true, draft: true, addedAt: t0 },
        },
      ]);
  });
});

describe('site hostname claim', () => {
  const hostnames = deciderSpec(siteHostnameDecider);
  const claimed = { type: 'SiteHostnameClaimed' as const, data: { hostname: 'docs.a.example', siteId: 'site1' } };
  const claim = (hostname: string, siteId: string, verifiedDomains: readonly string[] = ['a.example']) => ({
    kind: 'ClaimSiteHostname' as const,
    hostname,
    siteId,
    organizationId: 'o1',
    verifiedDomains,
  });

  it('given a free hostname in a verified domain, when claimed, then SiteHostnameClaimed', () => {
    hostnames.given([]).when(claim('docs.a.example', 'site1')).then([claimed]);
  });

  it('given a hostname another site holds, when claimed, then 409', () => {
    hostnames.given([claimed]).when(claim('docs.a.example', 'site2')).thenFails(409);
  });

  it('given a hostname the site holds, when claimed again, then nothing', () => {
    hostnames.given([claimed]).when(claim('docs.a.example', 'site1')).then([]);
  });

  it('given a hostname another site holds, when released by this one, then nothing', () => {
    hostnames.given([claimed]).when({ kind: 'ReleaseSiteHostname', hostname: 'docs.a.example', siteId: 'site2' }).then([]);
  });

  it('given a free hostname, when claimed by an organization that verified no domain it is in, then 403', () => {
    hostnames
      .given([])
      .when(claim('docs.victim.example', 'site1', []))
      .thenFails(403, /docs\.victim\.example .*verified/);
    hostnames
      .given([])
      .when(claim('docs.victim.example', 'site1', ['a.example', 'tim.example']))
      .thenFails(403);
    hostnames
      .given([])
      .when(claim('victim.example.a.example.evil', 'site1', ['a.example']))
      .thenFails(403);
  });

  it('given a free hostname, when it equals a verified domain or is under one, then it is claimed', () => {
    hostnames
      .given([])
      .when(claim('help.a.example', 'site1', ['help.a.example']))
      .thenMatches([{ type: 'SiteHostnameClaimed' }]);
    hostnames
      .given([])
      .when(claim('eu.help.a.example', 'site1', ['help.a.example']))
      .thenMatches([{ type: 'SiteHostnameClaimed' }]);
  });

  it('given any history, when an IP literal is claimed, then 400 (whatever domains are verified)', () => {
    for (const literal of [
      '169.254.169.254',
      '0xa9.0xfe.0xa9.0xfe',
      '0251.0376.0251.0376',
      '2852039166',
      '[::1]',
      'fd00::1',
      'docs.a.0x10',
      '1.2.3.4.5',
    ]) {
      hostnames
        .given([])
        .when(claim(literal, 'site1', [literal]))
        .thenFails(400, /IP address/);
    }
  });
});

describe('hostname rules', () => {
  it('knows IP literals in every notation from host names', () => {
    for (const literal of [
      '169.254.169.254',
      '127.1',
      '0x7f000001',
      '017700000001',
      '[::ffff:169.254.169.254]',
      '::1',
      'a.b.123',
      'a.b.0x',
      'a.b.1.',
    ])
      expect(isIpLiteral(literal)).toBe(true);
    for (const name of ['docs.example.com', '1.docs.example', '0x7f.example.com', 'docs.example.c0m'])
      expect(isIpLiteral(name)).toBe(false);
  });

  it('counts a hostname in a domain when it is the domain or under it, never a look-alike', () => {
    expect(inVerifiedDomain('docs.example.com', ['example.com'])).toBe(true);
    expect(inVerifiedDomain('docs.example.com', ['docs.example.com'])).toBe(true);
    expect(inVerifiedDomain('docs.badexample.com', ['example.com'])).toBe(false);
    expect(inVerifiedDomain('docs.example.com.evil.com', ['example.com'])).toBe(false);
    expect(inVerifiedDomain('docs.example.com', [])).toBe(false);
  });
});

describe('visitor authentication settings', () => {
  const configure = (jwksUrl: string | null, issuer: string | null): SiteCommand => ({
    kind: 'ConfigureVisitorAuth',
    ...act,
    jwksUrl,
    issuer,
  });

  it('given a site, when an issuer is set with a JWKS URL, then SiteVisitorAuthConfigured carries both', () => {
    spec
      .given([created])
      .when(configure('https://login.example.com/jwks.json', 'https://login.example.com/'))
      .then([
        {
          type: 'SiteVisitorAuthConfigured',
          data: { ...about, jwksUrl: 'https://login.example.com/jwks.json', issuer: 'https://login.example.com/', updatedAt: t0 },
        },
      ]);
  });

  it('given a site, when a JWKS URL is set without an issuer, then the event has none (tokens of any issuer)', () => {
    spec
      .given([created])
      .when(configure('https://login.example.com/jwks.json', null))
      .then([{ type: 'SiteVisitorAuthConfigured', data: { ...about, jwksUrl: 'https://login.example.com/jwks.json', updatedAt: t0 } }]);
  });

  it('given a site, when an issuer is set without a JWKS URL, then 400 naming the issuer', () => {
    spec
      .given([created])
      .when(configure(null, 'https://login.example.com/'))
      .thenFails(400, /issuer/);
  });
});

describe('the site a command may change, checked before its If-Match is compared', () => {
  const publish: SiteCommand = { kind: 'PublishSite', ...act, published: true };
  const deleted: SiteEvent = { type: 'SiteDeleted', data: { ...about, deletedAt: t0 } };

  it('given a site of another organization, when changed through this one, then 404 whatever its revision', () => {
    spec
      .given([created])
      .thenState((state) =>
        expect(changeableSite({ ...publish, organizationId: 'o2' }, state)).toMatchObject({ status: 404, message: 'no site site1' }),
      );
  });

  it('given a deleted site, then 404', () => {
    spec.given([created, deleted]).thenState((state) => expect(changeableSite(publish, state)).toMatchObject({ status: 404 }));
  });

  it('given a site that inherits the organization’s roles, when a reader changes it, then 403', () => {
    spec
      .given([created])
      .thenState((state) => expect(changeableSite({ ...publish, allowed: false, role: 'read' }, state)).toMatchObject({ status: 403 }));
  });

  it('given a site, when its administrator changes it, then the site itself', () => {
    spec.given([created]).thenState((state) => expect(changeableSite(publish, state)).toEqual(state.site));
  });
});
