import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { newId } from '../../platform/src/ids';
import { KeyedMutex } from '../../platform/src/keyed-mutex';
import { userOf, type Caller } from '../../platform/src/http/auth';
import { COMMAND_RUNNER, type CommandRunner } from '../../runtime/src/command-runner';
import type { OrganizationChanges } from './organization.events';
import { hostnameDecider, hostnameStream, organizationDecider, organizationStream, requireAdmin } from './organization.decider';

export class CreateOrganization {
  constructor(readonly title: string, readonly emailDomains: string[], readonly caller: Caller) {}
}

@CommandHandler(CreateOrganization)
export class CreateOrganizationHandler implements ICommandHandler<CreateOrganization, { organizationId: string }> {
  constructor(@Inject(COMMAND_RUNNER) private readonly commands: CommandRunner) {}

  async execute({ title, emailDomains, caller }: CreateOrganization) {
    const organizationId = newId();
    const creatorId = userOf(caller).userId;
    const now = this.commands.now().toISOString();
    await this.commands.run(organizationStream(organizationId), organizationDecider, { kind: 'CreateOrganization', organizationId, title, emailDomains, creatorId, now }, { caller });
    return { organizationId };
  }
}

export class UpdateOrganization {
  constructor(
    readonly organizationId: string,
    readonly changes: OrganizationChanges,
    readonly caller: Caller,
    readonly ifMatch: number | undefined,
  ) {}
}

/**
 * A new hostname is claimed before the organization changes (so a taken one fails with 409 and
 * nothing changes), released again if the change is refused, and the old one is released after.
 * Hostname changes of one organization run one at a time, so "previous" is really the hostname
 * the change replaces. (With several API replicas two concurrent hostname changes of the same
 * organization could still interleave; the README says so.)
 */
@CommandHandler(UpdateOrganization)
export class UpdateOrganizationHandler implements ICommandHandler<UpdateOrganization, void> {
  private readonly hostnameChanges = new KeyedMutex();

  constructor(@Inject(COMMAND_RUNNER) private readonly commands: CommandRunner) {}

  async execute(update: UpdateOrganization): Promise<void> {
    if (update.changes.hostname === undefined) return this.apply(update);
    return this.hostnameChanges.run(update.organizationId, () => this.apply(update));
  }

  private async apply({ organizationId, changes, caller, ifMatch }: UpdateOrganization): Promise<void> {
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
    const now = this.commands.now().toISOString();
    try {
      await this.commands.run(stream, organizationDecider, { kind: 'UpdateOrganization', organizationId, changes, byUserId, now }, context, { ifMatch });
    } catch (error) {
      if (claiming) await this.commands.run(hostnameStream(next), hostnameDecider, { kind: 'ReleaseHostname', hostname: next, organizationId }, context, { wait: false });
      throw error;
    }
    if (next !== undefined && previous !== null && next !== previous) {
      await this.commands.run(hostnameStream(previous), hostnameDecider, { kind: 'ReleaseHostname', hostname: previous, organizationId }, context, { wait: false });
    }
  }
}
