import { Command, CommandHandler } from '@nestjs/cqrs';
import { newId } from '#platform/ids';
import { KeyedMutex } from '#platform/keyed-mutex';
import { userOf, type Caller } from '#platform/http/auth';
import { DecidingHandler } from '#runtime/command-handler';
import type { OrganizationChanges } from './organization.events';
import { hostnameDecider, hostnameStream, organizationDecider, organizationStream, requireAdmin } from './organization.decider';

/* The organization commands: creating one and changing its settings (with its hostname claim). */

/** `POST /v1/orgs`: the caller becomes its admin. Answers the new organization's id. */
export class CreateOrganization extends Command<string> {
  constructor(
    readonly title: string,
    readonly emailDomains: string[],
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(CreateOrganization)
export class CreateOrganizationHandler extends DecidingHandler {
  async execute({ title, emailDomains, caller }: CreateOrganization): Promise<string> {
    const organizationId = newId();
    const creatorId = userOf(caller).userId;
    await this.decide(
      organizationStream(organizationId),
      organizationDecider,
      { kind: 'CreateOrganization', organizationId, title, emailDomains, creatorId, now: this.now() },
      { caller },
    );
    return organizationId;
  }
}

/**
 * `PATCH /v1/orgs/{organizationId}`: admins only. A new hostname is claimed before the organization
 * changes (so a taken one fails with 409 and nothing changes), released again if the change is
 * refused, and the old one is released after. Hostname changes of one organization run one at a
 * time, so "previous" is really the hostname the change replaces. (With several API replicas two
 * concurrent hostname changes of the same organization could still interleave; docs/api/members.md says so.)
 */
export class UpdateOrganization extends Command<void> {
  constructor(
    readonly organizationId: string,
    readonly changes: OrganizationChanges,
    readonly caller: Caller,
    readonly ifMatch?: number,
  ) {
    super();
  }
}

@CommandHandler(UpdateOrganization)
export class UpdateOrganizationHandler extends DecidingHandler {
  /** Hostname changes of one organization run one at a time (the handler is a singleton, so this is per process). */
  private readonly hostnameChanges = new KeyedMutex();

  execute(command: UpdateOrganization): Promise<void> {
    if (command.changes.hostname === undefined) return this.apply(command);
    return this.hostnameChanges.run(command.organizationId, () => this.apply(command));
  }

  private async apply({ organizationId, changes, caller, ifMatch }: UpdateOrganization): Promise<void> {
    const byUserId = userOf(caller).userId;
    const stream = organizationStream(organizationId);
    const { state } = await this.load(stream, organizationDecider);
    const denied = requireAdmin(state, organizationId, byUserId);
    if (denied) throw denied;
    const previous = state.fields.hostname;
    const next = changes.hostname;
    const claiming = typeof next === 'string' && next !== previous;
    if (claiming)
      await this.decide(
        hostnameStream(next),
        hostnameDecider,
        { kind: 'ClaimHostname', hostname: next, organizationId },
        { caller, wait: false },
      );
    try {
      await this.decide(
        stream,
        organizationDecider,
        { kind: 'UpdateOrganization', organizationId, changes, byUserId, now: this.now() },
        { caller, ifMatch },
      );
    } catch (error) {
      if (claiming)
        await this.decide(
          hostnameStream(next),
          hostnameDecider,
          { kind: 'ReleaseHostname', hostname: next, organizationId },
          { caller, wait: false },
        );
      throw error;
    }
    if (next !== undefined && previous !== null && next !== previous) {
      await this.decide(
        hostnameStream(previous),
        hostnameDecider,
        { kind: 'ReleaseHostname', hostname: previous, organizationId },
        { caller, wait: false },
      );
    }
  }
}

export const organizationCommandHandlers = [CreateOrganizationHandler, UpdateOrganizationHandler];
