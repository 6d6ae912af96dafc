import type { DomainError } from '#platform/errors';
import type { OrganizationRole } from '#platform/permissions';
import type {
  SiteChanges,
  SiteDefaultLevel,
  SiteEvent,
  SiteSectionChanges,
  SiteShareLinkChanges,
  SiteSpaceChanges,
  SiteType,
  SiteVisibility,
} from './site.events';

// The site aggregate's state and commands, and what the rules of its parts (site-*.decider.ts) share;
// site.decider.ts assembles them into the one siteDecider.

export const siteStream = (siteId: string) => `site-${siteId}`;

export interface SectionState {
  title: string;
  path: string;
}

export interface SiteSpaceState {
  spaceId: string;
  sectionId: string | null;
  path: string;
}

export interface SiteState {
  site: null | {
    organizationId: string;
    title: string;
    defaultLevel: SiteDefaultLevel;
    deleted: boolean;
    published: boolean;
    hostname: string | null;
    keyGeneration: number;
  };
  sections: ReadonlyMap<string, SectionState>;
  siteSpaces: ReadonlyMap<string, SiteSpaceState>;
  /** Sections in order; the default section. */
  sectionOrder: readonly string[];
  defaultSection: string | null;
  /** Site spaces in order per scope (`''` the root, else the section id); each scope's default. */
  spaceOrder: Readonly<Record<string, readonly string[]>>;
  defaultSiteSpace: Readonly<Record<string, string>>;
  /** Section groups and the group of each grouped section. */
  groups: ReadonlySet<string>;
  groupOf: Readonly<Record<string, string>>;
  /** Share links by id. */
  shareLinks: ReadonlyMap<string, { name: string; active: boolean }>;
}

/** The scope a site space sits in: its section, or the root. */
export const scopeOf = (sectionId: string | null) => sectionId ?? '';

/** Where to put an item among its siblings: before or after another, or at the end (null: the platform's "no position"). */
export type Position = { before: string } | { after: string } | null;

/** What a section group is placed by: a section outside it, or another group (placed where its sections are). */
export interface GroupAnchor {
  type: 'site-section' | 'site-section-group';
  id: string;
}
export type GroupPosition = { before: GroupAnchor } | { after: GroupAnchor } | null;

export interface Acting {
  siteId: string;
  /** The organization the request names: a site of another organization is not found. */
  organizationId: string;
  /**
   * Allowed whatever the site's settings: the caller administers the site's organization (or, for
   * creation, may create content there), or the service acts itself.
   */
  allowed: boolean;
  /** The caller's organization role: the site's `defaultLevel` may raise it to the site's admin role. */
  role?: OrganizationRole;
  now: string;
}

export type SiteCommand =
  | (Acting & {
      kind: 'CreateSite';
      type: SiteType;
      title: string;
      visibility: SiteVisibility;
      by: string;
      siteSpaces: Array<{ siteSpaceId: string; spaceId: string; path: string }>;
    })
  | (Acting & { kind: 'UpdateSite'; changes: SiteChanges; defaultSiteSpace?: string; defaultSiteSection?: string })
  | (Acting & { kind: 'PublishSite'; published: boolean })
  | (Acting & { kind: 'DeleteSite' })
  /**
   * A section with the space as its first site space, in `groupId` when given. On a site without
   * sections whose root shows site spaces, `rootSectionId` names the section that first takes them
   * (titled after the site), so that what the site published stays published.
   */
  | (Acting & {
      kind: 'AddSection';
      sectionId: string;
      title: string;
      icon: string | null;
      path: string;
      draft: boolean;
      groupId?: string;
      rootSectionId: string;
      siteSpace: { siteSpaceId: string; spaceId: string; path: string; pageId?: string };
    })
  /** `group`: the section group to move the section into; null takes it out of its group. */
  | (Acting & { kind: 'UpdateSection'; sectionId: string; changes: SiteSectionChanges; defaultSiteSpace?: string; group?: string | null })
  | (Acting & { kind: 'RemoveSection'; sectionId: string })
  | (Acting & { kind: 'MoveSection'; sectionId: string; position: Position })
  | (Acting & {
      kind: 'AddSiteSpace';
      siteSpaceId: string;
      spaceId: string;
      sectionId: string | undefined;
      path: string;
      draft?: boolean;
      title?: string;
      pageId?: string;
    })
  | (Acting & { kind: 'UpdateSiteSpace'; siteSpaceId: string; changes: SiteSpaceChanges })
  | (Acting & { kind: 'RemoveSiteSpace'; siteSpaceId: string })
  | (Acting & { kind: 'MoveSiteSpace'; siteSpaceId: string; position: Position })
  /** `parent`: a group to nest the new one in (the service keeps groups at the root: refused). */
  | (Acting & {
      kind: 'AddSectionGroup';
      groupId: string;
      title: string;
      icon: string | null;
      sections: string[];
      draft?: boolean;
      parent?: string;
    })
  /** `parent`: null keeps the group at the root; a group id would nest it (refused). */
  | (Acting & {
      kind: 'UpdateSectionGroup';
      groupId: string;
      changes: { title?: string; icon?: string | null; draft?: boolean };
      parent?: string | null;
    })
  | (Acting & { kind: 'RemoveSectionGroup'; groupId: string })
  | (Acting & { kind: 'GroupSection'; groupId: string; sectionId: string })
  | (Acting & { kind: 'UngroupSection'; groupId: string; sectionId: string })
  | (Acting & { kind: 'SetAdaptiveSchema'; jsonSchema: Record<string, unknown> })
  | (Acting & { kind: 'MoveSectionGroup'; groupId: string; position: GroupPosition })
  /** The whole order at once: every section exactly once (groups' sections together, as grouped), and for each scope listed, exactly its site spaces. */
  | (Acting & { kind: 'SortStructure'; sections: Array<{ id: string; group: string | null }>; siteSpaces: Record<string, string[]> })
  | (Acting & { kind: 'CreateShareLink'; shareLinkId: string; key: string; name: string; by: string })
  | (Acting & { kind: 'UpdateShareLink'; shareLinkId: string; changes: SiteShareLinkChanges })
  | (Acting & { kind: 'DeleteShareLink'; shareLinkId: string })
  | (Acting & { kind: 'ConfigureVisitorAuth'; jwksUrl: string | null; issuer: string | null })
  | (Acting & { kind: 'RotateVisitorKey' })
  /** A space left the organization's live spaces (deleted, purged or transferred): its site spaces go, and sections left empty (issued by the site-spaces reactors, not a person). */
  | (Acting & { kind: 'RemoveSpaceFromSite'; spaceId: string });

/** The live site a command changes, and what every event about it carries. */
export interface ChangedSite {
  site: NonNullable<SiteState['site']>;
  about: { siteId: string; organizationId: string };
}

/** The rule of one kind of command, on a site the caller may change (checked before it runs). */
export type SiteRule<K extends SiteCommand['kind']> = (
  command: Extract<SiteCommand, { kind: K }>,
  state: SiteState,
  changed: ChangedSite,
) => SiteEvent[] | DomainError;
export type SiteRules<K extends SiteCommand['kind']> = { [P in K]: SiteRule<P> };

/** How an event of one type changes the state. */
export type SiteEvolver<T extends SiteEvent['type']> = (state: SiteState, event: Extract<SiteEvent, { type: T }>) => SiteState;
export type SiteEvolution<T extends SiteEvent['type']> = { [P in T]: SiteEvolver<P> };

/** `path` made unique among `taken` by a numeric suffix. */
export function uniquePath(path: string, taken: ReadonlySet<string>): string {
  if (!taken.has(path)) return path;
  for (let n = 2; ; n += 1) if (!taken.has(`${path}-${n}`)) return `${path}-${n}`;
}

/**
 * `order` with `id` moved to `position` (the end when null); unchanged when the position names
 * `id` itself (before or after itself is where it is); null when it names an item not in the order.
 */
export function placed(order: readonly string[], id: string, position: Position): string[] | null {
  const rest = order.filter((item) => item !== id);
  if (position === null) return [...rest, id];
  const anchor = 'before' in position ? position.before : position.after;
  if (anchor === id) return order.includes(id) ? [...order] : null;
  const index = rest.indexOf(anchor);
  if (index < 0) return null;
  rest.splice('before' in position ? index : index + 1, 0, id);
  return rest;
}

export const sameOrder = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((item, index) => item === b[index]);

export const without = <T>(map: ReadonlyMap<string, T>, key: string) => {
  const copy = new Map(map);
  copy.delete(key);
  return copy;
};
