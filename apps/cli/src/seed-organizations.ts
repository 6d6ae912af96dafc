/** The seed's users, organizations (members invited, each accepting) and teams. */
import { hashToken, type Caller } from '#platform/http/auth';
import { newId, newSecret } from '#platform/ids';
import { emailClaimDecider, emailClaimStream, tokenDecider, tokenStream, userDecider, userStream } from '#identity';
import { organizationDecider, organizationStream } from '#organizations';
import { teamDecider, teamStream } from '#teams';
import type { SeedLog } from './seed-log';
import type { SeedClock, SeedOrganization, SeedUser } from './seed-model';
import type { Words } from './seed-words';

const TEAMS_PER_ORGANIZATION = 3;
const TEAM_SIZE = 5;

const ADMIN: Caller = { kind: 'admin' };

/** A user as `POST /v1/admin/users` makes one: the e-mail claimed, the user created, a token issued. */
function seedUser(log: SeedLog, clock: SeedClock, email: string, displayName: string): { user: SeedUser; token: string } {
  const userId = newId();
  log.decide(emailClaimStream(email), emailClaimDecider, { kind: 'ClaimEmail', email, userId }, ADMIN, clock.now());
  log.forget(emailClaimStream(email));
  log.decide(
    userStream(userId),
    userDecider,
    { kind: 'CreateUser', userId, email, displayName, photoURL: null, now: clock.tick() },
    ADMIN,
    clock.now(),
  );
  const tokenId = newId();
  const token = newSecret('dpt');
  log.decide(
    tokenStream(tokenId),
    tokenDecider,
    { kind: 'IssueToken', tokenId, userId, tokenHash: hashToken(token), now: clock.tick() },
    ADMIN,
    clock.now(),
  );
  log.forget(tokenStream(tokenId));
  const caller: Caller = { kind: 'user', userId, tokenId, user: { id: userId, displayName, email, photoURL: null } };
  return { user: { id: userId, email, caller }, token };
}

/** The organization created by its admin, who invites every other member by e-mail; each accepts. */
export function seedOrganization(log: SeedLog, clock: SeedClock, words: Words, index: number, members: number): SeedOrganization {
  const name = words.title(2);
  const domain = `org${index}.seed.example`;
  const { user: admin, token: adminToken } = seedUser(log, clock, `admin@${domain}`, `${words.name()} (admin of ${name})`);
  const organizationId = newId();
  const stream = organizationStream(organizationId);
  log.decide(
    stream,
    organizationDecider,
    { kind: 'CreateOrganization', organizationId, title: name, emailDomains: [domain], creatorId: admin.id, now: clock.tick() },
    admin.caller,
    clock.now(),
  );
  const invited: SeedUser[] = [];
  for (let m = 1; m < members; m += 1) invited.push(seedUser(log, clock, `member${m}@${domain}`, words.name()).user);
  const invitations = invited.map((user, m) => ({
    invitationId: newId(),
    email: user.email,
    role: m % 7 === 0 ? ('admin' as const) : m % 3 === 0 ? ('review' as const) : ('edit' as const),
  }));
  if (invitations.length > 0)
    log.decide(
      stream,
      organizationDecider,
      { kind: 'InviteByEmail', organizationId, invitations, sso: false, byUserId: admin.id, now: clock.tick() },
      admin.caller,
      clock.now(),
    );
  invited.forEach((user, m) => {
    const command = {
      kind: 'AcceptInvitation' as const,
      organizationId,
      invitationId: invitations[m].invitationId,
      userId: user.id,
      email: user.email,
      now: clock.tick(),
    };
    log.decide(stream, organizationDecider, command, user.caller, clock.now());
  });
  return {
    id: organizationId,
    title: name,
    admin,
    adminToken,
    members: [admin, ...invited],
    teams: [],
    collections: [],
    spaces: [],
    lastPosition: new Map(),
  };
}

export function seedTeams(log: SeedLog, clock: SeedClock, organization: SeedOrganization): void {
  for (let t = 0; t < TEAMS_PER_ORGANIZATION; t += 1) {
    const teamId = newId();
    const members = organization.members.slice(1 + t * 2, 1 + t * 2 + TEAM_SIZE).map((user) => user.id);
    const by = { userId: organization.admin.id, organizationRole: 'admin' as const };
    log.decide(
      teamStream(teamId),
      teamDecider,
      { kind: 'CreateTeam', teamId, organizationId: organization.id, title: `Team ${t + 1}`, members, by, now: clock.tick() },
      organization.admin.caller,
      clock.now(),
    );
    organization.teams.push(teamId);
  }
}
