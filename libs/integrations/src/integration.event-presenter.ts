import { Inject, Injectable } from '@nestjs/common';
import { INTEGRATION_USERS, type IntegrationUsers } from './integrations.needs';
import { eventUser, presentedEvent, usersNamedBy, type EventUser, type StoredPayload } from './integration.event-payloads';

/** Integration events as integrations receive them (integration.event-payloads.ts), the users they name looked up in one batch. */
@Injectable()
export class IntegrationEventPresenter {
  constructor(@Inject(INTEGRATION_USERS) private readonly users: IntegrationUsers) {}

  async events(payloads: readonly StoredPayload[]): Promise<Array<Record<string, unknown>>> {
    const ids = [...new Set(payloads.flatMap(usersNamedBy))];
    const named = new Map<string, EventUser>();
    if (ids.length > 0) for (const [id, user] of await this.users.byIds(ids)) named.set(id, eventUser(this.users.present(user)));
    return payloads.map((payload) => presentedEvent(payload, named));
  }

  async event(payload: StoredPayload): Promise<Record<string, unknown>> {
    return (await this.events([payload]))[0];
  }
}
