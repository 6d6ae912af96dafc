/** The updates that fill the seed's log up to the requested total, as a living platform appends them. */
import { changeRequestDecider, changeRequestStream } from '#changerequests';
import { userDecider, userStream } from '#identity';
import { memberSeenDecider, memberSeenStream, organizationDecider, organizationStream } from '#organizations';
import { collectionDecider, collectionStream, spaceDecider, spaceStream } from '#spaces';
import { teamDecider, teamStream } from '#teams';
import type { SeedLog } from './seed-log';
import type { SeedClock, SeedOrganization } from './seed-model';
import type { Words } from './seed-words';
import { changeRequestFacts } from './seed-spaces';

/** What a living platform mostly appends once set up: renames, members seen, profile edits, change request subjects. */
const UPDATE_MIX = [
  'space',
  'seen',
  'space',
  'seen',
  'changeRequest',
  'space',
  'seen',
  'organization',
  'collection',
  'seen',
  'team',
  'user',
  'space',
  'changeRequest',
] as const;

export async function fillWithUpdates(
  log: SeedLog,
  clock: SeedClock,
  words: Words,
  organizations: SeedOrganization[],
  total: number,
  flushIfFull: () => Promise<void>,
): Promise<void> {
  const spaces = organizations.flatMap((organization) => organization.spaces.map((space) => ({ organization, space })));
  const members = organizations.flatMap((organization) => organization.members.map((user) => ({ organization, user })));
  const counters = { space: 0, seen: 0, changeRequest: 0, organization: 0, collection: 0, team: 0, user: 0 };
  for (let step = 0; log.decided < total; step += 1) {
    const kind = UPDATE_MIX[step % UPDATE_MIX.length];
    const n = counters[kind]++;
    const now = clock.tick();
    switch (kind) {
      case 'space': {
        if (spaces.length === 0) break;
        const { organization, space } = spaces[n % spaces.length];
        const by = { userId: organization.admin.id, role: 'admin' as const };
        log.decide(
          spaceStream(space.id),
          spaceDecider,
          { kind: 'UpdateSpace', spaceId: space.id, changes: { title: `${space.title} (${n})` }, by, now },
          organization.admin.caller,
          now,
        );
        break;
      }
      case 'seen': {
        const { organization, user } = members[n % members.length];
        const stream = memberSeenStream(organization.id, user.id);
        log.decide(
          stream,
          memberSeenDecider,
          { kind: 'RecordSeen', organizationId: organization.id, userId: user.id, now },
          user.caller,
          now,
        );
        break;
      }
      case 'changeRequest': {
        if (spaces.length === 0) break;
        const { organization, space } = spaces[n % spaces.length];
        const author = organization.members[2] ?? organization.admin;
        for (const changeRequestId of space.changeRequests) {
          const command = {
            kind: 'EditChangeRequest' as const,
            changeRequestId,
            subject: `${words.title(4)} (${n})`,
            space: changeRequestFacts(organization),
            by: author.id,
            now,
          };
          log.decide(changeRequestStream(changeRequestId), changeRequestDecider, command, author.caller, now);
        }
        break;
      }
      case 'organization': {
        const organization = organizations[n % organizations.length];
        log.decide(
          organizationStream(organization.id),
          organizationDecider,
          {
            kind: 'UpdateOrganization',
            organizationId: organization.id,
            changes: { title: `${organization.title} (${n})` },
            byUserId: organization.admin.id,
            now,
          },
          organization.admin.caller,
          now,
        );
        break;
      }
      case 'collection': {
        const organization = organizations[n % organizations.length];
        const collectionId = organization.collections[Math.floor(n / organizations.length) % organization.collections.length];
        const by = { userId: organization.admin.id, role: 'admin' as const };
        log.decide(
          collectionStream(collectionId),
          collectionDecider,
          { kind: 'UpdateCollection', collectionId, changes: { title: `${words.title(2)} (${n})` }, by, now },
          organization.admin.caller,
          now,
        );
        break;
      }
      case 'team': {
        const organization = organizations[n % organizations.length];
        const teamId = organization.teams[Math.floor(n / organizations.length) % organization.teams.length];
        const by = { userId: organization.admin.id, organizationRole: 'admin' as const };
        log.decide(
          teamStream(teamId),
          teamDecider,
          { kind: 'RenameTeam', teamId, organizationId: organization.id, title: `${words.title(2)} (${n})`, by },
          organization.admin.caller,
          now,
        );
        break;
      }
      case 'user': {
        const { user } = members[n % members.length];
        log.decide(
          userStream(user.id),
          userDecider,
          { kind: 'UpdateUserProfile', userId: user.id, changes: { displayName: `${words.name()} (${n})` }, now },
          user.caller,
          now,
        );
        break;
      }
    }
    await flushIfFull();
  }
}
