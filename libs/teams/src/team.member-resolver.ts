import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '#platform/errors';
import { TEAM_ORGANIZATIONS, TEAM_USERS, type TeamOrganizations, type TeamUsers } from './teams.needs';

/** Most entries a 400 lists by name; the rest are counted. */
const NAMED = 20;

const isEmail = (entry: string) => entry.includes('@');

function chunks<T>(values: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < values.length; i += size) result.push(values.slice(i, i + size));
  return result;
}

function names(entries: readonly string[]): string {
  const shown = entries
    .slice(0, NAMED)
    .map((entry) => JSON.stringify(entry))
    .join(', ');
  return entries.length > NAMED ? `${shown} and ${entries.length - NAMED} more` : shown;
}

/**
 * Who a team change is about: entries (user ids, or e-mail addresses) resolved through the
 * identity context, and whether those users belong to the organization (the organizations
 * context), both through the teams context's ports. Team membership requires organization membership.
 */
@Injectable()
export class TeamMemberResolver {
  constructor(
    @Inject(TEAM_USERS) private readonly users: TeamUsers,
    @Inject(TEAM_ORGANIZATIONS) private readonly membership: TeamOrganizations,
  ) {}

  /** Each entry → its user id; `unknown` lists the entries that name nobody. */
  async resolve(entries: readonly string[]): Promise<{ ids: Map<string, string>; unknown: string[] }> {
    const distinct = [...new Set(entries)];
    const emails = distinct.filter(isEmail);
    const userIds = distinct.filter((entry) => !isEmail(entry));
    const [found, byEmail] = await Promise.all([
      Promise.all(chunks(userIds, 1000).map((chunk) => this.users.byIds(chunk))),
      Promise.all(emails.map(async (email) => [email, await this.users.byEmail(email)] as const)),
    ]);
    const ids = new Map<string, string>();
    const unknown: string[] = [];
    const known = new Set(found.flatMap((users) => [...users.keys()]));
    for (const userId of userIds) if (known.has(userId)) ids.set(userId, userId);
    for (const [email, user] of byEmail) if (user) ids.set(email, user._id);
    for (const entry of distinct) if (!ids.has(entry)) unknown.push(entry);
    return { ids, unknown };
  }

  /** The users among these who are not (or no longer) members of the organization. */
  async outsiders(organizationId: string, userIds: readonly string[]): Promise<string[]> {
    const distinct = [...new Set(userIds)];
    const roles = await Promise.all(distinct.map((userId) => this.membership.roleOf(organizationId, userId)));
    return distinct.filter((_, i) => !roles[i]?.member);
  }

  /**
   * One 400 naming every entry that names nobody and every user outside the organization (by the entry
   * given), or null. Both are "not members": telling them apart would reveal which e-mail addresses
   * and ids have an account to someone who shares no organization with them.
   */
  invalid(organizationId: string, unknown: readonly string[], outside: readonly string[]): DomainError | null {
    const entries = [...new Set([...unknown, ...outside])];
    return entries.length > 0 ? DomainError.invalid(`not members of organization ${organizationId}: ${names(entries)}`) : null;
  }

  /** Resolves entries of users who all join the team: each must name a user of the organization (else one 400). */
  async requireJoining(organizationId: string, entries: readonly string[]): Promise<Map<string, string>> {
    const { ids, unknown } = await this.resolve(entries);
    const outside = new Set(await this.outsiders(organizationId, [...ids.values()]));
    const error = this.invalid(
      organizationId,
      unknown,
      [...ids].filter(([, userId]) => outside.has(userId)).map(([entry]) => entry),
    );
    if (error) throw error;
    return ids;
  }
}
