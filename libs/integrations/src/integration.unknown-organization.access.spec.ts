import type { Caller } from '#platform/http/auth';
import { MemoryReadStore } from '#read-store/memory/memory-read-store';
import { IntegrationAccess } from './integration.access';

/** An organization the organizations context does not know (`roleOf` answers null). */
const ada: Caller = {
  kind: 'user',
  userId: 'ada',
  tokenId: 't',
  user: { id: 'ada', displayName: 'Ada', email: 'ada@example.com', photoURL: null },
};

describe('integration access: an unknown organization', () => {
  it('given an organization nobody knows, when asked whether the caller administers it, then 404 naming it', async () => {
    const access = new IntegrationAccess(new MemoryReadStore(), {
      roleOf: async () => null,
      memberOrganizations: async () => [],
      present: async () => null,
    });
    await expect(access.isAdmin('o9', ada)).rejects.toMatchObject({ status: 404, message: 'no organization o9' });
  });
});
