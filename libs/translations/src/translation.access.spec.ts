import type { Caller } from '#platform/http/auth';
import type { OrganizationRole } from '#platform/permissions';
import { TranslationAccess } from './translation.access';

/** Who reads and edits translation settings: 404 outside the organization, 403 for guests, edit for admins. */
const user = (userId: string): Caller => ({ kind: 'user', userId, tokenId: 't', user: { id: userId } as never });
const members: Record<string, { member: boolean; role: OrganizationRole }> = {
  ada: { member: true, role: 'admin' },
  rita: { member: true, role: 'read' },
  gus: { member: true, role: null },
  old: { member: false, role: 'admin' },
};
const access = new TranslationAccess({
  roleOf: async (organizationId: string, userId: string) => (organizationId === 'o1' ? (members[userId] ?? null) : null),
} as never);

async function statusOf(promise: Promise<unknown>): Promise<number | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    return (error as { status: number }).status;
  }
}

describe('translation settings access', () => {
  it('given an admin, then they view and edit, with their role and id', async () => {
    expect(await access.permissions('o1', user('ada'))).toEqual({ view: true, edit: true, role: 'admin', userId: 'ada' });
    expect(await access.viewer('o1', user('ada'))).toEqual({ view: true, edit: true });
  });

  it('given a reader, then they view and do not edit', async () => {
    expect(await access.viewer('o1', user('rita'))).toEqual({ view: true, edit: false });
  });

  it('given a guest, when they read the settings, then 403', async () => {
    expect(await statusOf(access.viewer('o1', user('gus')))).toBe(403);
    await expect(access.viewer('o1', user('gus'))).rejects.toThrow(
      'translation settings of organization o1 are for its members with a role; guests do not see them',
    );
    await expect(access.viewer('o1', user('zed'))).rejects.toThrow('no organization o1');
  });

  it('given someone outside, a former member, the admin token, or another organization, then 404', async () => {
    expect(await statusOf(access.permissions('o1', user('zed')))).toBe(404);
    expect(await statusOf(access.permissions('o1', user('old')))).toBe(404);
    expect(await statusOf(access.permissions('o1', { kind: 'admin' }))).toBe(404);
    expect(await statusOf(access.viewer('o2', user('ada')))).toBe(404);
  });
});
