import { Module } from '@nestjs/common';
import { changeRequestContentCommandHandlers } from './change-request-content.commands';
import { ChangeRequestContentController } from './change-request-content.controller';
import { ContentAccess } from './content.access';
import { ContentBodies } from './content.bodies';
import { ContentBuilder } from './content.builder';
import { contentCommandHandlers } from './content.commands';
import { ContentController } from './content.controller';
import { ContentForChangeRequests, ContentForComments, ContentForSites, ContentForSpaces } from './content.ports';
import { ContentPresenter } from './content.presenter';
import { contentQueryHandlers } from './content.queries';
import { ContentSearch } from './content.search';
import { ContentTrees } from './content.trees';
import { OrganizationSearchController } from './organization-search.controller';
import { RevisionController } from './revision.controller';

/**
 * The content context: revisions, pages, files, imports, links, search and history. What it needs
 * of spaces and change requests comes through its CONTENT_SPACES and CONTENT_CHANGE_REQUESTS ports;
 * it exports ContentForSpaces, which gives the Space object its `revision` (spaces'
 * SPACE_FACT_SOURCES), and ContentForChangeRequests (merges, main's head, PDFs).
 */
@Module({
  controllers: [ContentController, ChangeRequestContentController, RevisionController, OrganizationSearchController],
  providers: [
    ContentTrees,
    ContentPresenter,
    ContentAccess,
    ContentBodies,
    ContentSearch,
    ContentBuilder,
    ...contentCommandHandlers,
    ...changeRequestContentCommandHandlers,
    ...contentQueryHandlers,
    ContentForSpaces,
    ContentForChangeRequests,
    ContentForComments,
    ContentForSites,
  ],
  exports: [ContentForSpaces, ContentForChangeRequests, ContentForComments, ContentForSites],
})
export class ContentModule {}
