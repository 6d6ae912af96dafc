import type { RecordedEvent } from '../../event-store/src/event-store.port';
import type { OrganizationRole } from '../../platform/src/permissions';
import type { Projection } from '../../read-store/src/projections/projection';
import type { Doc } from '../../read-store/src/read-store.port';
import type { DefaultContent, OrganizationEvent } from './organization.events';

export const ORGANIZATIONS = 'organizations';
export const MEMBERS = 'members';

export interface OrganizationDoc extends Doc {
  title: string;
  createdAt: string;
  updatedAt: string;
  emailDomains: string[];
  hostname: string | null;
  defaultRole: OrganizationRole;
  defaultContent: DefaultContent;
  logo: string | null;
  sso: boolean;
  ai: boolean;
  inviteLinks: boolean;
  /** Revision of the organization's stream: its ETag. */
  revision: number;
}

/** `_id` is `<organizationId>:<userId>`. */
export interface MemberDoc extends Doc {
  organizationId: string;
  userId: string;
  role: OrganizationRole;
  joinedAt: string;
  lastSeenAt: string | null;
  sso: boolean;
  disabled: boolean;
}

export const memberId = (organizationId: string, userId: string) => `${organizationId}:${userId}`;

/** Organizations and members, from the organization streams. Every write is a put or an update keyed by id: replay-safe. */
export const organizationProjection: Projection = {
  name: 'organizations',
  collections: [ORGANIZATIONS, MEMBERS],
  indexes: [
    { collection: ORGANIZATIONS, fields: { emailDomains: 1 } },
    { collection: MEMBERS, fields: { userId: 1, joinedAt: -1 } },
    { collection: MEMBERS, fields: { organizationId: 1, joinedAt: -1 } },
  ],
  handles: ['OrganizationCreated', 'OrganizationUpdated', 'MemberAdded'],
  async apply(recorded: RecordedEvent, tx) {
    const event = recorded as unknown as OrganizationEvent;
    const organizations = tx.collection<OrganizationDoc>(ORGANIZATIONS);
    switch (event.type) {
      case 'OrganizationCreated': {
        const { organizationId, title, emailDomains, createdAt } = event.data;
        await organizations.put({
          _id: organizationId,
          title,
          createdAt,
          updatedAt: createdAt,
          emailDomains,
          hostname: null,
          defaultRole: null,
          defaultContent: null,
          logo: null,
          sso: false,
          ai: false,
          inviteLinks: true,
          revision: recorded.revision,
        });
        return;
      }
      case 'OrganizationUpdated':
        await organizations.update(event.data.organizationId, {
          $set: { ...event.data.changes, updatedAt: event.data.updatedAt, revision: recorded.revision },
        });
        return;
      case 'MemberAdded': {
        const { organizationId, userId, role, sso, joinedAt } = event.data;
        await tx.collection<MemberDoc>(MEMBERS).put({
          _id: memberId(organizationId, userId),
          organizationId,
          userId,
          role,
          joinedAt,
          lastSeenAt: null,
          sso,
          disabled: false,
        });
        await organizations.update(organizationId, { $set: { revision: recorded.revision } });
        return;
      }
    }
  },
};
