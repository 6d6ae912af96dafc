import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { READ_STORE, type Filter, type ReadStore } from '#read-store/read-store.port';
import { INTEGRATION_ORGANIZATIONS, type IntegrationOrganizations } from './integrations.needs';
import { INSTALLATIONS, INTEGRATIONS, type InstallationDoc, type IntegrationDoc } from './integration.projections';

/**
 * Who sees and changes what of integrations, decided in one place for the command and query handlers.
 * Private integrations are visible to their owner's members only; unlisted ones are read by name
 * but listed only for their owner. Installations and events are the owner's admins' (every
 * installation) and each installing organization's admins' (their own).
 */
@Injectable()
export class IntegrationAccess {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(INTEGRATION_ORGANIZATIONS) private readonly organizations: IntegrationOrganizations,
  ) {}

  /** The integration as the caller may see it, or 404; `ownerRole`: the caller's role in the organization that publishes it (null outside it). */
  async visible(
    name: string,
    caller: Caller,
  ): Promise<{ integration: IntegrationDoc; member: boolean; ownerAdmin: boolean; ownerRole: string | null }> {
    const integration = await this.reads.collection<IntegrationDoc>(INTEGRATIONS).get(name);
    if (!integration || integration.deleted) throw DomainError.notFound(`no integration ${name}`);
    const role = caller.kind === 'user' ? await this.organizations.roleOf(integration.organizationId, caller.userId) : null;
    const member = role?.member === true;
    if (integration.definition.visibility === 'private' && !member) throw DomainError.notFound(`no integration ${name}`);
    const ownerRole = member ? (role?.role ?? null) : null;
    return { integration, member, ownerAdmin: ownerRole === 'admin', ownerRole };
  }

  /** The owner's admins only: 404 for people outside the owner (what is inside an organization is not shown to them), 403 for its members below admin. */
  async requireOwnerAdmin(name: string, caller: Caller): Promise<IntegrationDoc> {
    const { integration, member, ownerAdmin } = await this.visible(name, caller);
    if (!member) throw DomainError.notFound(`no such resource of integration ${name}`);
    if (!ownerAdmin) throw DomainError.forbidden(`only admins of the organization that publishes integration ${name} may do this`);
    return integration;
  }

  /** The organizations whose installations the caller may see: all for the owner's admins, else those they administer. */
  async installationScope(name: string, caller: Caller): Promise<{ integration: IntegrationDoc; filter: Filter }> {
    const { integration, ownerAdmin } = await this.visible(name, caller);
    if (ownerAdmin) return { integration, filter: { integrationName: name } };
    const mine = caller.kind === 'user' ? await this.organizations.memberOrganizations(caller.userId) : [];
    const administered: string[] = [];
    for (const organizationId of mine)
      if ((await this.organizations.roleOf(organizationId, (caller as { userId: string }).userId))?.role === 'admin')
        administered.push(organizationId);
    return { integration, filter: { integrationName: name, organizationId: { $in: administered } } };
  }

  /** An installation the caller may see, with its integration, or 404. */
  async visibleInstallation(
    name: string,
    installationId: string,
    caller: Caller,
  ): Promise<{ installation: InstallationDoc; integration: IntegrationDoc }> {
    const { integration, filter } = await this.installationScope(name, caller);
    const installation = await this.reads
      .collection<InstallationDoc>(INSTALLATIONS)
      .findOne({ ...filter, _id: installationId, uninstalled: { $exists: false } });
    if (!installation) throw DomainError.notFound(`no installation ${installationId} of integration ${name}`);
    return { installation, integration };
  }

  /** Whether the caller administers the organization: 404 for people outside it, false for a caller that is not a user. */
  async isAdmin(organizationId: string, caller: Caller): Promise<boolean> {
    if (caller.kind !== 'user') return false;
    const role = await this.organizations.roleOf(organizationId, caller.userId);
    if (!role?.member) throw DomainError.notFound(`no organization ${organizationId}`);
    return role.role === 'admin';
  }
}
