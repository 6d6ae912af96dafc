import { Inject, Injectable } from '@nestjs/common';
import { newId } from '../../platform/src/ids';
import { KeyedMutex } from '../../platform/src/keyed-mutex';
import { userOf, type Caller } from '../../platform/src/http/auth';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import type { OrganizationChanges } from './organization.events';
import { hostnameDecider, hostnameStream, organizationDecider, organizationStream, requireAdmin } from './organization.decider';

/** The organization commands: creating one and changing its settings (with its hostname claim). */
@Injectable()
export class OrganizationCommands {
  /** Hostname changes of one organization run one at a time (see `update`). */
  private readonly hostnameChanges = new KeyedMutex();

  constructor(@Inject(COMMAND_RUNNER) private readonly commands: CommandRunner) {}

  private now(): string {
    return this.commands.now().toISOString();
  }

  /** `POST /v1/orgs`: the caller becomes its admin. */
  async create(title: string, emailDomains: string[], caller: Caller): Promise<string> {
    const organizationId = newId();
    const creatorId = userOf(caller).userId;
    await this.commands.run(organizationStream(organizationId), organizationDecider, { kind: 'CreateOrganization', organizationId, title, emailDomains, creatorId, now: this.now() }, { caller });
    return organizationId;
  }

  /**
   * A new hostname is claimed before the organization changes (so a taken one fails with 409 and
   * nothing changes), released again if the change is refused, and the old one is released after.
   * Hostname changes of one organization run one at a time, so "previous" is really the hostname
   * the change replaces. (With several API replicas two concurrent hostname changes of the same
   * organization could still interleave; docs/api/members.md says so.)
   */
  async update(organizationId: string, changes: OrganizationChanges, caller: Caller, ifMatch?: number): Promise<void> {
    if (changes.hostname === undefined) return this.applyUpdate(organizationId, changes, caller, ifMatch);
    return this.hostnameChanges.run(organizationId, () => this.applyUpdate(organizationId, changes, caller, ifMatch));
  }

  private async applyUpdate(organizationId: string, changes: OrganizationChanges, caller: Caller, ifMatch: number | undefined): Promise<void> {
    const byUserId = userOf(caller).userId;
    const context = { caller };
    const stream = organizationStream(organizationId);
    const { state } = await this.commands.load(stream, organizationDecider);
    const denied = requireAdmin(state, organizationId, byUserId);
    if (denied) throw denied;
    const previous = state.fields.hostname;
    const next = changes.hostname;
    const claiming = typeof next === 'string' && next !== previous;
    if (claiming) await this.commands.run(hostnameStream(next), hostnameDecider, { kind: 'ClaimHostname', hostname: next, organizationId }, context, { wait: false });
    try {
      await this.commands.run(stream, organizationDecider, { kind: 'UpdateOrganization', organizationId, changes, byUserId, now: this.now() }, context, { ifMatch });
    } catch (error) {
      if (claiming) await this.commands.run(hostnameStream(next), hostnameDecider, { kind: 'ReleaseHostname', hostname: next, organizationId }, context, { wait: false });
      throw error;
    }
    if (next !== undefined && previous !== null && next !== previous) {
      await this.commands.run(hostnameStream(previous), hostnameDecider, { kind: 'ReleaseHostname', hostname: previous, organizationId }, context, { wait: false });
    }
  }
}
