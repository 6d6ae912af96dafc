import type { Caller } from '#platform/http/auth';
import type { OrganizationRole } from '#platform/permissions';
import { OpenapiAccess } from './openapi.access';

/** Who reads and writes an organization's OpenAPI specs: 404 outside it, every member reads, `create` and above write. */
const user = (userId: string): Caller => ({ kind: 'user', userId, tokenId: 't', user: { id: userId } as never });
const members: Record<string, { member: boolean; role: OrganizationRole }> = {
  ada: { member: true, role: 'admin' },
  cara: { member: true, role: 'create' },
  eve: { member: true, role: 'edit' },
  gus: { member: true, role: null },
  old: { member: false, role: 'admin' },
};
const access = new OpenapiAccess({
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

describe('OpenAPI access', () => {
  it('given a member, then their role; a guest’s role is null', async () => {
    expect(await access.role('o1', user('cara'))).toBe('create');
    expect(await access.role('o1', user('gus'))).toBeNull();
  });

  it('given someone outside the organization, a former member, the admin token or another organization, then 404', async () => {
    expect(await statusOf(access.role('o1', user('zed')))).toBe(404);
    expect(await statusOf(access.role('o1', user('old')))).toBe(404);
    expect(await statusOf(access.role('o1', { kind: 'admin' }))).toBe(404);
    expect(await statusOf(access.mayWrite('o2', user('ada')))).toBe(404);
  });

  it('given someone outside the organization, then the 404 names the organization', async () => {
    await expect(access.role('o1', user('zed'))).rejects.toThrow('no organization o1');
  });

  it.each([
    ['ada', true],
    ['cara', true],
    ['eve', false],
    ['gus', false],
  ])('given %s, when asked whether they may write specs, then %s (create and above)', async (name, expected) => {
    expect(await access.mayWrite('o1', user(name))).toBe(expected);
  });
});
