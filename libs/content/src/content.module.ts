import { Module } from '@nestjs/common';
import { changeRequestContentHandlers } from './change-request-content.commands';
import { ContentAccess } from './content.access';
import { ContentBodies } from './content.bodies';
import { ContentBuilder } from './content.builder';
import { contentCommandHandlers } from './content.commands';
import { ContentController } from './content.controller';
import { ContentForChangeRequests, ContentForComments, ContentForSites, ContentForSpaces } from './content.provides';
import { ContentPresenter } from './content.presenter';
import { ContentSearch } from './content.search';
import { ContentTrees } from './content.trees';
import { fileQueryHandlers } from './file.queries';
import { linkQueryHandlers } from './link.queries';
import { OrganizationSearchController } from './organization-search.controller';
import { RevisionController } from './revision.controller';
import { revisionQueryHandlers } from './revision.queries';
import { searchQueryHandlers } from './search.queries';

/**
 * The content context: revisions, pages, files, imports, links, search and history. What it needs
 * of spaces and change requests comes through its CONTENT_SPACES and CONTENT_CHANGE_REQUESTS ports;
 * it exports ContentForSpaces, which gives the Space object its `revision` (spaces'
 * SPACE_FACT_SOURCES), and ContentForChangeRequests (merges, main's head, PDFs, and the reads and
 * writes behind the change-requests context's content routes).
 */
@Module({
  controllers: [ContentController, RevisionController, OrganizationSearchController],
  providers: [
    ContentTrees,
    ContentPresenter,
    ContentAccess,
    ContentBodies,
    ContentSearch,
    ContentBuilder,
    ...contentCommandHandlers,
    ...changeRequestContentHandlers,
    ...revisionQueryHandlers,
    ...fileQueryHandlers,
    ...linkQueryHandlers,
    ...searchQueryHandlers,
    ContentForSpaces,
    ContentForChangeRequests,
    ContentForComments,
    ContentForSites,
  ],
  exports: [ContentForSpaces, ContentForChangeRequests, ContentForComments, ContentForSites],
})
export class ContentModule {}
