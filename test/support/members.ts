/**
 * Making people members in end-to-end tests. An invitation by e-mail only makes someone a member
 * once they accept it, so setting up members takes both steps:
 *
 *   const bob = await service.createUser('bob@acme.io', 'Bob');
 *   await joinAs(service, organizationId, ada.token, [{ token: bob.token, email: 'bob@acme.io', role: 'edit' }]);
 */
import type { RunningService } from './service';

export interface Joiner {
  token: string;
  email: string;
  /** The organization role; null is a guest; absent takes the organization's default. */
  role?: string | null;
}

/** The Member object each person got by accepting, in the order given. */
export interface JoinedMember {
  object: 'member';
  id: string;
  role: string | null;
  [key: string]: unknown;
}

/**
 * The admin invites every address (one request), then each person accepts their invitation to the
 * organization as themselves. Throws, with what came back, unless every step succeeds.
 */
export async function joinAs(
  service: RunningService,
  organizationId: string,
  adminToken: string,
  people: Joiner[],
  options: { sso?: boolean } = {},
): Promise<JoinedMember[]> {
  const emails = people.map(({ email, role }) => (role === undefined ? { email } : { email, role }));
  const invited = await service.request('POST', `/v1/orgs/${organizationId}/invites`, {
    token: adminToken,
    body: { emails, ...(options.sso ? { sso: true } : {}) },
  });
  if (invited.status !== 200)
    throw new Error(`POST /v1/orgs/${organizationId}/invites answered ${invited.status}: ${invited.text.slice(0, 500)}`);
  const joined: JoinedMember[] = [];
  for (const person of people) {
    const pending = await service.request('GET', '/v1/user/invites?limit=1000', { token: person.token });
    if (pending.status !== 200)
      throw new Error(`GET /v1/user/invites for ${person.email} answered ${pending.status}: ${pending.text.slice(0, 500)}`);
    const invitation = (pending.body.items as Array<{ id: string; organization: { id: string } }>).find(
      (item) => item.organization.id === organizationId,
    );
    if (!invitation)
      throw new Error(`${person.email} has no pending invitation to organization ${organizationId}: ${pending.text.slice(0, 500)}`);
    const accepted = await service.request('POST', `/v1/user/invites/${invitation.id}`, { token: person.token });
    if (accepted.status !== 200)
      throw new Error(
        `POST /v1/user/invites/${invitation.id} for ${person.email} answered ${accepted.status}: ${accepted.text.slice(0, 500)}`,
      );
    joined.push(accepted.body);
  }
  return joined;
}
