/** What the seed's builders share: the organizations, users and spaces made so far, the clock, and small helpers. */
import type { Caller } from '#platform/http/auth';
import { keyBetween } from '#spaces';

export interface SeedUser {
  id: string;
  email: string;
  caller: Caller;
}

export interface SeedSpace {
  id: string;
  organizationId: string;
  title: string;
  pages: string[];
  head: { revisionId: string; tree: string } | null;
  changeRequests: string[];
}

export interface SeedOrganization {
  id: string;
  title: string;
  admin: SeedUser;
  adminToken: string;
  members: SeedUser[];
  teams: string[];
  collections: string[];
  spaces: SeedSpace[];
  /** The last sibling key given out under each parent (null: the top level): spaces are appended at the end. */
  lastPosition: Map<string | null, string>;
}

/** Command times: one second apart, ending about now. */
export class SeedClock {
  private at: number;
  constructor(start: number) {
    this.at = start;
  }
  tick(): string {
    this.at += 1000;
    return this.now();
  }
  now(): string {
    return new Date(this.at).toISOString();
  }
}

/** `total` split into `parts` near-equal whole shares. */
export function spread(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, index) => Math.floor(total / parts) + (index < total % parts ? 1 : 0));
}

/** A key after every sibling given out so far under `parent`, as `positionAtEnd` gives a new space. */
export function nextPosition(organization: SeedOrganization, parent: string | null): string {
  const key = keyBetween(organization.lastPosition.get(parent) ?? '', null);
  organization.lastPosition.set(parent, key);
  return key;
}

/** `run` on every item, at most `limit` at a time; after a failure no item starts, and the first is thrown once the running ones have settled. */
export async function eachConcurrently<T>(items: readonly T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const runner = async (): Promise<void> => {
    while (next < items.length && !failed) {
      try {
        await run(items[next++]);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, runner));
  const rejected = results.find((result) => result.status === 'rejected');
  if (rejected) throw rejected.reason;
}
