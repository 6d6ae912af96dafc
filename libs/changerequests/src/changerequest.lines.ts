import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '#platform/http/auth';
import { READ_STORE, type ReadStore } from '#read-store/read-store.port';
import { COMMAND_RUNNER, type CommandRunner } from '#runtime/command-runner';
import { CHANGE_REQUEST_SPACES, type ChangeRequestSpaces } from './changerequests.needs';
import { changeRequestDecider, changeRequestStream, type LinePoint } from './changerequest.decider';
import type { ChangeRequestStatus } from './changerequest.events';
import { findChangeRequest } from './changerequest.queries';

/** A change request's line as its content routes read and write it. */
export interface ChangeRequestLine {
  id: string;
  spaceId: string;
  number: number;
  status: ChangeRequestStatus;
  /** Its latest revision, and the main revision it builds on. */
  head: LinePoint;
  base: LinePoint;
}

/**
 * The line of the request a path names (by id or number; 404 when the caller may not see the space
 * or the request), from the request's stream rather than its read model: a write builds on the
 * head its commit is then checked against, and reads answer that head as their ETag.
 */
@Injectable()
export class ChangeRequestLines {
  constructor(
    @Inject(CHANGE_REQUEST_SPACES) private readonly spaces: ChangeRequestSpaces,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(COMMAND_RUNNER) private readonly runner: CommandRunner,
  ) {}

  async line(spaceId: string, ref: string, caller: Caller): Promise<ChangeRequestLine> {
    await this.spaces.spaceFor(spaceId, caller);
    const { _id: id } = await findChangeRequest(this.reads, spaceId, ref);
    const { state } = await this.runner.load(changeRequestStream(id), changeRequestDecider);
    return { id, spaceId, number: state.created!.number, status: state.status, head: state.head, base: state.base };
  }

  /** The revision the request's content is read in: its line's head. */
  async head(spaceId: string, ref: string, caller: Caller): Promise<string> {
    return (await this.line(spaceId, ref, caller)).head.revisionId;
  }
}
