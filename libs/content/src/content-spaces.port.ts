import type { Caller } from '../../platform/src/http/auth';

/**
 * What content needs of the spaces context (a port content owns, bound at the composition root to
 * spaces' adapter): the space a request names, as the caller may see it, and the spaces of an
 * organization the caller may read (organization search).
 */
export interface ContentSpace {
  id: string;
  organizationId: string;
  title: string;
  editMode: 'live' | 'locked';
  /** Public spaces serve their files without signed URLs. */
  visibility: string;
  deleted: boolean;
  createdAt: string;
  /** What the caller may do, from the spaces context's role rules. */
  permissions: { view: boolean; edit: boolean; comment: boolean; admin: boolean };
}

export interface ContentSpaces {
  /** The space, or 404 when the caller may not see it (exactly as `GET /spaces/{spaceId}` answers). */
  spaceFor(spaceId: string, caller: Caller, shareKey?: string): Promise<ContentSpace>;
  /** The space as the service itself sees it (reactors): null when it does not exist or was purged. */
  spaceById(spaceId: string): Promise<Omit<ContentSpace, 'permissions'> | null>;
  /** Live spaces of the organization the caller may read; 404 for people outside the organization. */
  readableSpaces(organizationId: string, caller: Caller): Promise<Array<{ id: string; title: string }>>;
}

export const CONTENT_SPACES = Symbol('CONTENT_SPACES');
