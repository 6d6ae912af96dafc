import { Inject } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DomainError } from '#platform/errors';
import type { Caller } from '#platform/http/auth';
import { newId } from '#platform/ids';
import {
  CHANGE_REQUEST_CONTENT,
  type BuiltContentWrite,
  type ChangeRequestContent,
  type ContentRevisionSource,
  type PreparedContentWrite,
} from './changerequests.needs';
import { CommitChangeRequestRevision } from './changerequest.commands';
import { ChangeRequestLines, type ChangeRequestLine } from './changerequest.lines';

/*
 * Writes to a change request's content (`POST /spaces/{spaceId}/change-requests/{changeRequestId}/content`
 * and its imports): the space's batch write and imports, built on the request's head and committed
 * as one revision on the request's line. Content makes the write ready once and builds it in each
 * attempt (CHANGE_REQUEST_CONTENT); the line, the checks on it and the commit are this context's.
 * A locked space still takes edits through change requests; only direct edits are locked.
 */

/** Attempts at a write whose base moved meanwhile (another write landed first) before giving up with 409. */
const WRITE_ATTEMPTS = 5;

/** What a batch write to a request's content answers: the request's id besides the space's batch write answer. */
export interface ChangeRequestContentWriteResult {
  changeRequestId: string;
  revisionId: string;
  changes: unknown[];
  insertedFiles: unknown[];
}

/** What an import into a request's content answers: the new revision, and how much of the source it took. */
export interface ChangeRequestImportResult {
  revision: string;
  importedResources: number;
  totalResources: number;
}

/**
 * The writes of a request's content: the line read from the request's stream, the write built on its
 * head by content, one revision committed on the line. When the line moved meanwhile the build starts
 * again on the new head, unless `If-Match` pinned it (412 then).
 */
abstract class LineWriteHandler {
  @Inject(ChangeRequestLines) protected readonly lines!: ChangeRequestLines;
  @Inject(CommandBus) protected readonly commandBus!: CommandBus;
  @Inject(CHANGE_REQUEST_CONTENT) protected readonly content!: ChangeRequestContent;

  protected async commitOnLine(
    spaceId: string,
    ref: string,
    caller: Caller,
    ifMatch: string | undefined,
    write: PreparedContentWrite,
    source: ContentRevisionSource,
  ): Promise<{ changeRequestId: string; revisionId: string; built: BuiltContentWrite }> {
    for (let attempt = 1; ; attempt += 1) {
      const line = await this.lines.line(spaceId, ref, caller);
      refuseStaleLine(line, ifMatch);
      if (line.status === 'merged' || line.status === 'archived')
        throw DomainError.conflict(`change request ${line.id} is ${line.status}: its content can no longer change`);
      const built = await this.content.buildOn(write, line.head, line.base.revisionId);
      const revisionId = newId();
      const outcome = await this.commandBus.execute(
        new CommitChangeRequestRevision(
          spaceId,
          line.id,
          {
            base: line.head.revisionId,
            ...(ifMatch !== undefined ? { ifMatch } : {}),
            revisionId,
            tree: built.tree,
            pages: built.pages,
            source,
          },
          caller,
        ),
      );
      if (outcome === 'stale') {
        if (ifMatch === undefined && attempt < WRITE_ATTEMPTS) continue;
        throw DomainError.conflict(`change request ${line.id} kept changing while this write was built; retry`);
      }
      return { changeRequestId: line.id, revisionId: outcome === 'committed' ? revisionId : line.head.revisionId, built };
    }
  }
}

/** `POST /spaces/{spaceId}/change-requests/{changeRequestId}/content` (`ref`: the request's id or number); `ifMatch` the request's head revision. */
export class WriteChangeRequestContent extends Command<ChangeRequestContentWriteResult> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    /** The request's `changes`, parsed and checked by content. */
    readonly changes: unknown,
    readonly caller: Caller,
    readonly ifMatch?: string,
  ) {
    super();
  }
}

@CommandHandler(WriteChangeRequestContent)
export class WriteChangeRequestContentHandler extends LineWriteHandler implements ICommandHandler<WriteChangeRequestContent> {
  async execute({ spaceId, ref, changes, caller, ifMatch }: WriteChangeRequestContent): Promise<ChangeRequestContentWriteResult> {
    const write = await this.content.prepareBatch(spaceId, changes, caller);
    const outcome = await this.commitOnLine(spaceId, ref, caller, ifMatch, write, { kind: 'batch' });
    const answer = await this.content.presentBatch(write, outcome.revisionId, outcome.built);
    return { changeRequestId: outcome.changeRequestId, revisionId: outcome.revisionId, ...answer };
  }
}

/** `POST /spaces/{spaceId}/change-requests/{changeRequestId}/content/import` and `.../content/page/{pageId}/import` (`pageId`: into that page). */
export class ImportChangeRequestContent extends Command<ChangeRequestImportResult> {
  constructor(
    readonly spaceId: string,
    readonly ref: string,
    readonly pageId: string | undefined,
    readonly request: { source: 'website' | 'markdown' | 'zip'; url: string },
    readonly caller: Caller,
    readonly ifMatch?: string,
  ) {
    super();
  }
}

@CommandHandler(ImportChangeRequestContent)
export class ImportChangeRequestContentHandler extends LineWriteHandler implements ICommandHandler<ImportChangeRequestContent> {
  async execute({ spaceId, ref, pageId, request, caller, ifMatch }: ImportChangeRequestContent): Promise<ChangeRequestImportResult> {
    const space = await this.content.editableSpace(spaceId, caller);
    // The request must exist (and be visible), and If-Match name its head, before anything is fetched.
    refuseStaleLine(await this.lines.line(spaceId, ref, caller), ifMatch);
    const write = await this.content.prepareImport(space, request, pageId);
    const source: ContentRevisionSource = { kind: 'import', source: request.source, url: request.url };
    const outcome = await this.commitOnLine(spaceId, ref, caller, ifMatch, write, source);
    return { revision: outcome.revisionId, importedResources: write.importedResources, totalResources: write.totalResources };
  }
}

export const changeRequestContentCommandHandlers = [WriteChangeRequestContentHandler, ImportChangeRequestContentHandler];

/** A write pinned by `If-Match` to a revision that is no longer the request's head: 412 (the request's stream checks it again on commit). */
function refuseStaleLine(line: ChangeRequestLine, ifMatch: string | undefined): void {
  if (ifMatch !== undefined && ifMatch !== line.head.revisionId)
    throw DomainError.preconditionFailed(
      `change request ${line.id} has changed: If-Match names revision ${ifMatch} but it is at ${line.head.revisionId}`,
    );
}
