import { DomainError } from '../../platform/src/errors';
import type { OrganizationEvent } from './organization.events';
import { hostnameDecider, organizationDecider, type OrganizationCommand } from './organization.decider';

const now = '2026-01-01T00:00:00.000Z';
const given = (events: OrganizationEvent[]) => events.reduce(organizationDecider.evolve, organizationDecider.initialState());
const when = (events: OrganizationEvent[], command: OrganizationCommand) => organizationDecider.decide(command, given(events));

const created: OrganizationEvent[] = [
  { type: 'OrganizationCreated', data: { organizationId: 'o1', title: 'Acme', emailDomains: ['acme.io'], createdBy: 'ada', createdAt: now } },
  { type: 'MemberAdded', data: { organizationId: 'o1', userId: 'ada', role: 'admin', sso: false, joinedAt: now, via: 'creation' } },
];
const withEditor: OrganizationEvent[] = [
  ...created,
  { type: 'MemberAdded', data: { organizationId: 'o1', userId: 'eve', role: 'edit', sso: false, joinedAt: now } },
];
const update = (changes: object, byUserId = 'ada'): OrganizationCommand => ({ kind: 'UpdateOrganization', organizationId: 'o1', changes, byUserId, now });

describe('organization decider', () => {
  it('given nothing, when creating, then the organization is created with its creator as admin', () => {
    expect(when([], { kind: 'CreateOrganization', organizationId: 'o1', title: 'Acme', emailDomains: ['ACME.io', 'acme.io'], creatorId: 'ada', now })).toEqual(created);
  });

  it('given an organization, when creating it again, then 409', () => {
    expect(when(created, { kind: 'CreateOrganization', organizationId: 'o1', title: 'X', emailDomains: [], creatorId: 'ada', now })).toEqual(
      DomainError.conflict('organization o1 already exists'),
    );
  });

  it('given an organization, when its admin changes fields, then only the changed ones are recorded', () => {
    expect(when(created, update({ title: 'Acme', ai: true, hostname: 'acme', emailDomains: ['acme.io'] }))).toEqual([
      { type: 'OrganizationUpdated', data: { organizationId: 'o1', changes: { ai: true, hostname: 'acme' }, updatedAt: now } },
    ]);
  });

  it('given an organization, when nothing would change, then no event', () => {
    expect(when(created, update({ title: 'Acme', inviteLinks: true, defaultRole: null }))).toEqual([]);
  });

  it('given a changed organization, then later decisions see the change', () => {
    const events = [...created, { type: 'OrganizationUpdated', data: { organizationId: 'o1', changes: { title: 'Acme Inc' }, updatedAt: now } } as OrganizationEvent];
    expect(when(events, update({ title: 'Acme Inc' }))).toEqual([]);
    expect(given(events).fields.title).toBe('Acme Inc');
  });

  it('given a member below admin, when changing the organization, then 403', () => {
    expect(when(withEditor, update({ title: 'Mine' }, 'eve'))).toMatchObject({ status: 403 });
  });

  it('given a non-member or no organization, when changing it, then 404', () => {
    expect(when(created, update({ title: 'Mine' }, 'mallory'))).toMatchObject({ status: 404 });
    expect(when([], update({ title: 'Mine' }))).toMatchObject({ status: 404 });
  });
});

describe('hostname claim decider', () => {
  const claim = (organizationId: string) => ({ kind: 'ClaimHostname' as const, hostname: 'acme', organizationId });
  const claimed = [{ type: 'HostnameClaimed' as const, data: { hostname: 'acme', organizationId: 'o1' } }];
  const state = (events: typeof claimed) => events.reduce(hostnameDecider.evolve, hostnameDecider.initialState());

  it('given a free hostname, when claimed, then it is held', () => {
    expect(hostnameDecider.decide(claim('o1'), state([]))).toEqual(claimed);
  });
  it('given a hostname held by another organization, when claimed, then 409', () => {
    expect(hostnameDecider.decide(claim('o2'), state(claimed))).toMatchObject({ status: 409 });
  });
  it('given a hostname held by the same organization, when claimed again, then nothing happens', () => {
    expect(hostnameDecider.decide(claim('o1'), state(claimed))).toEqual([]);
  });
  it('given a held hostname, when released by its holder, then it is free again; by another, nothing', () => {
    const released = hostnameDecider.decide({ kind: 'ReleaseHostname', hostname: 'acme', organizationId: 'o1' }, state(claimed));
    expect(released).toEqual([{ type: 'HostnameReleased', data: { hostname: 'acme', organizationId: 'o1' } }]);
    expect(hostnameDecider.decide({ kind: 'ReleaseHostname', hostname: 'acme', organizationId: 'o2' }, state(claimed))).toEqual([]);
  });
});
