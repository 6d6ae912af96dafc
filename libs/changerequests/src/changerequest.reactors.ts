import type { Reactor } from '#runtime/reactor';
import { RecordMerge } from './changerequest.commands';
import type { ContentRevisionCreated } from './changerequests.needs';

/**
 * A merge is decided on the space's main line (one append with an expected revision: of two racing
 * merges one wins), then recorded on the request's stream by the request that merged. If that second
 * step was lost (the process stopped in between), this reactor records it from the merge revision;
 * recording is idempotent, so the usual case appends nothing.
 */
export const changeRequestReactor: Reactor<ContentRevisionCreated> = {
  name: 'changerequest-merges',
  handles: ['ContentRevisionCreated'],
  async react(event, context) {
    switch (event.type) {
      case 'ContentRevisionCreated': {
        const { data } = event;
        if (data.revisionType !== 'merge' || data.mergedFrom === undefined) return;
        const head = data.parents[1];
        if (head === undefined) return;
        await context.commandBus.execute(
          new RecordMerge(
            data.mergedFrom,
            { organizationId: data.organizationId, deleted: false, editMode: 'live' },
            data.revisionId,
            head,
            context.caller,
          ),
        );
        return;
      }
    }
  },
};
