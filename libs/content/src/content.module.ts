import { Module } from '@nestjs/common';
import { ContentCommands } from './content.commands';
import { ContentController } from './content.controller';
import { ContentForSpaces } from './content.ports';
import { ContentPresenter } from './content.presenter';
import { ContentQueries } from './content.queries';
import { ContentTrees } from './content.trees';
import { OrganizationSearchController } from './organization-search.controller';
import { RevisionController } from './revision.controller';

/**
 * The content context: revisions, pages, files, imports, links, search and history. What it needs
 * of spaces comes through its CONTENT_SPACES port; it exports ContentForSpaces, which gives the
 * Space object its `revision` (spaces' SPACE_FACT_SOURCES).
 */
@Module({
  controllers: [ContentController, RevisionController, OrganizationSearchController],
  providers: [ContentTrees, ContentPresenter, ContentQueries, ContentCommands, ContentForSpaces],
  exports: [ContentForSpaces],
})
export class ContentModule {}
