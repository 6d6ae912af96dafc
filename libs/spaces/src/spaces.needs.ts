/*
 * What the spaces context needs of other contexts: every port it consumes (the interfaces, the types
 * they speak in and their `Symbol` tokens), each bound at the composition root to an adapter the
 * provider lists in its manifest's `provides`. The types are as narrow as spaces need them, so the
 * context imports nothing of its providers.
 */
import type { OrganizationRole } from '#platform/permissions';

/* Of organizations (SPACE_ORGANIZATIONS, bound to OrganizationsForSpaces). */

/**
 * What the spaces context needs from the organizations context, bound at the composition root: the
 * user's standing in an organization, from its read model (null: no such organization;
 * `member: false`: the user does not belong to it, or is disabled).
 */
export interface SpaceOrganizations {
  roleOf(organizationId: string, userId: string): Promise<{ member: boolean; role: OrganizationRole } | null>;
}

export const SPACE_ORGANIZATIONS = Symbol('SPACE_ORGANIZATIONS');

/* Of teams (SPACE_TEAMS, bound to TeamsForSpaces). */

/**
 * What the spaces context needs from the teams context, for the roles spaces grant to teams, bound
 * at the composition root:
 * - `teamIdsOf`: the ids of the organization's teams a user is in;
 * - `teamIdsByUser`: the same for several users in one read (users in none map to []);
 * - `teamsAmong`: those of `teamIds` the user is in (by membership, so as cheap for a member of
 *   every team as for a member of none);
 * - `liveTeam`: whether `teamId` is a live (not deleted) team of the organization.
 */
export interface SpaceTeams {
  teamIdsOf(organizationId: string, userId: string): Promise<readonly string[]>;
  teamIdsByUser(organizationId: string, userIds: readonly string[]): Promise<ReadonlyMap<string, readonly string[]>>;
  teamsAmong(organizationId: string, userId: string, teamIds: readonly string[]): Promise<readonly string[]>;
  liveTeam(organizationId: string, teamId: string): Promise<boolean>;
}

export const SPACE_TEAMS = Symbol('SPACE_TEAMS');

/*
 * Of content, change requests and comments (SPACE_FACT_SOURCES, a list bound with `useAll` to
 * ContentForSpaces, ChangeRequestsForSpaces and CommentsForSpaces; read by SpaceFactsReader).
 */

/**
 * What a space shows that other contexts own: its content's head revision (content), open comments
 * (comments) and change requests by status (change requests). Spaces neither stores nor computes
 * them: it would have to know those contexts' events. Instead it owns this port, and each context
 * that keeps per-space facts provides a source, bound at the composition root. A context without
 * one contributes nothing (zero counts, no revision).
 */
export interface SpaceFacts {
  /** The id of the space's primary content (its latest main revision). */
  revision?: string;
  comments: number;
  changeRequests: number;
  changeRequestsOpen: number;
  changeRequestsDraft: number;
}

/** One context's facts for a page of spaces: only the spaces and facts it knows; the rest are zero. */
export interface SpaceFactSource {
  factsFor(spaceIds: readonly string[]): Promise<ReadonlyMap<string, Partial<SpaceFacts>>>;
}

/** The list of sources (possibly empty), bound at the composition root. */
export const SPACE_FACT_SOURCES = Symbol('SPACE_FACT_SOURCES');
