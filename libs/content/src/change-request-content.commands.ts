import { Inject } from '@nestjs/common';
import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '#platform/clock';
import type { Caller } from '#platform/http/auth';
import type { ContentSpace } from './content.needs';
import { ContentAccess } from './content.access';
import { ContentBuilder, type ChangeResult, type ImportSource, type PreparedBatch, type PreparedImport } from './content.builder';
import { parseChanges } from './content.changes';
import { touchedPages, type TouchedPages } from './content.events';
import { ContentPresenter, type FileObject } from './content.presenter';
import { ContentTrees } from './content.trees';
import type { FileEntry } from './tree/tree.model';

/*
 * Content's part of a write to a change request's content. The routes, the request's line and the
 * commit of each revision on it are the change-requests context's, which reaches these through its
 * CHANGE_REQUEST_CONTENT port (ContentForChangeRequests): a batch or an import is made ready here
 * once, before any attempt, as the space's own writes are, then built on the line's head in each
 * attempt. Nothing here decides or commits. A locked space still takes edits through change requests.
 */

/** A write made ready for a request's line: the space as checked, and the batch or the import prepared. */
export type ChangeRequestWrite =
  | { kind: 'batch'; space: ContentSpace; batch: PreparedBatch }
  | {
      kind: 'import';
      space: ContentSpace;
      plan: PreparedImport;
      source: ImportSource;
      pageId: string | undefined;
      importedResources: number;
      totalResources: number;
    };

/** A write built on a line's head, nothing committed: the tree, the pages it touched, and what a batch did (nothing, for an import). */
export interface BuiltChangeRequestWrite {
  tree: string;
  pages: TouchedPages;
  changes: ChangeResult[];
  insertedFiles: FileEntry[];
}

/** A batch for a request's line: its changes checked (400), then the caller's right to edit, then made ready (markdown converted, files stored). */
export class PrepareChangeRequestBatch extends Command<ChangeRequestWrite> {
  constructor(
    readonly spaceId: string,
    /** The request's `changes`, parsed and checked by the handler. */
    readonly changes: unknown,
    readonly caller: Caller,
  ) {
    super();
  }
}

@CommandHandler(PrepareChangeRequestBatch)
export class PrepareChangeRequestBatchHandler implements ICommandHandler<PrepareChangeRequestBatch> {
  constructor(
    private readonly access: ContentAccess,
    private readonly builder: ContentBuilder,
  ) {}

  async execute({ spaceId, changes: rawChanges, caller }: PrepareChangeRequestBatch): Promise<ChangeRequestWrite> {
    const changes = parseChanges(rawChanges);
    const space = await this.access.editableSpace(spaceId, caller);
    return { kind: 'batch', space, batch: await this.builder.prepareBatch(changes) };
  }
}

/** The space, if the caller may edit its change requests' content: an import checks it before the request's line, and both before anything is fetched. */
export class GetEditableSpace extends Query<ContentSpace> {
  constructor(
    readonly spaceId: string,
    readonly caller: Caller,
  ) {
    super();
  }
}

@QueryHandler(GetEditableSpace)
export class GetEditableSpaceHandler implements IQueryHandler<GetEditableSpace> {
  constructor(private readonly access: ContentAccess) {}

  execute({ spaceId, caller }: GetEditableSpace): Promise<ContentSpace> {
    return this.access.editableSpace(spaceId, caller);
  }
}

/** An import for a request's line, made ready once: fetched, converted, its files stored (`pageId`: into that page). */
export class PrepareChangeRequestImport extends Command<ChangeRequestWrite & { kind: 'import' }> {
  constructor(
    readonly space: ContentSpace,
    readonly request: { source: ImportSource; url: string },
    readonly pageId: string | undefined,
  ) {
    super();
  }
}

@CommandHandler(PrepareChangeRequestImport)
export class PrepareChangeRequestImportHandler implements ICommandHandler<PrepareChangeRequestImport> {
  constructor(private readonly builder: ContentBuilder) {}

  async execute({ space, request, pageId }: PrepareChangeRequestImport): Promise<ChangeRequestWrite & { kind: 'import' }> {
    const plan = await this.builder.prepareImport(request);
    const { importedResources, totalResources } = plan;
    return { kind: 'import', space, plan, source: request.source, pageId, importedResources, totalResources };
  }
}

/**
 * A prepared write built on a revision of the request's line (`head`), nothing committed. A
 * `revert_page` without `revision` goes back to `baseRevisionId`, the main revision the request builds on.
 */
export class BuildChangeRequestRevision extends Command<BuiltChangeRequestWrite> {
  constructor(
    readonly write: ChangeRequestWrite,
    readonly head: { tree: string },
    readonly baseRevisionId: string,
  ) {
    super();
  }
}

@CommandHandler(BuildChangeRequestRevision)
export class BuildChangeRequestRevisionHandler implements ICommandHandler<BuildChangeRequestRevision> {
  constructor(
    private readonly builder: ContentBuilder,
    private readonly trees: ContentTrees,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ write, head, baseRevisionId }: BuildChangeRequestRevision): Promise<BuiltChangeRequestWrite> {
    const base = await this.trees.tree(head.tree);
    const now = this.clock.now().toISOString();
    if (write.kind === 'batch') {
      const built = await this.builder.buildOn(base, (tree, editor) =>
        this.builder.applyChanges(write.space, tree, editor, write.batch, now, async () => baseRevisionId),
      );
      return { tree: built.tree, pages: touchedPages(built.touched), ...built.result };
    }
    const built = await this.builder.buildOn(base, (tree, editor) =>
      this.builder.applyImport(write.space, tree, editor, write.plan, write.pageId, write.source, now),
    );
    return { tree: built.tree, pages: touchedPages(built.touched), changes: [], insertedFiles: [] };
  }
}

/** What a batch on a request's line answers once committed as `revisionId`: what each change did, and the files it inserted. */
export class PresentChangeRequestBatch extends Query<{ changes: ChangeResult[]; insertedFiles: FileObject[] }> {
  constructor(
    readonly write: ChangeRequestWrite,
    readonly revisionId: string,
    readonly built: BuiltChangeRequestWrite,
  ) {
    super();
  }
}

@QueryHandler(PresentChangeRequestBatch)
export class PresentChangeRequestBatchHandler implements IQueryHandler<PresentChangeRequestBatch> {
  constructor(private readonly presenter: ContentPresenter) {}

  async execute({
    write,
    revisionId,
    built,
  }: PresentChangeRequestBatch): Promise<{ changes: ChangeResult[]; insertedFiles: FileObject[] }> {
    // Files just written, as the answer shows them (from the entries: no read model involved).
    return { changes: built.changes, insertedFiles: built.insertedFiles.map((file) => this.presenter.file(write.space, revisionId, file)) };
  }
}

export const changeRequestContentHandlers = [
  PrepareChangeRequestBatchHandler,
  GetEditableSpaceHandler,
  PrepareChangeRequestImportHandler,
  BuildChangeRequestRevisionHandler,
  PresentChangeRequestBatchHandler,
];
