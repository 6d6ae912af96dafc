import type { ContextManifest } from '#runtime/context';
import { spaceSchemas } from './spaces.schemas';
import { collectionReactor } from './collection.reactors';
import { SPACE_FACT_SOURCES, SPACE_ORGANIZATIONS, SPACE_TEAMS } from './spaces.needs';
import {
  MemberSpaces,
  SpacesForChangeRequests,
  SpacesForComments,
  SpacesForContent,
  SpacesForIntegrations,
  SpacesForSites,
} from './spaces.provides';
import { spaceAuditCatalog } from './space.audit';
import { spaceProjection } from './space.projections';
import { SpacesModule } from './spaces.module';

/** Spaces and collections; the collection cascades are a reactor. */
export const spacesContext: ContextManifest = {
  name: 'spaces',
  module: SpacesModule,
  projections: [spaceProjection],
  reactors: [collectionReactor],
  audit: spaceAuditCatalog,
  needs: [SPACE_ORGANIZATIONS, SPACE_TEAMS, { port: SPACE_FACT_SOURCES, many: true }],
  provides: [MemberSpaces, SpacesForContent, SpacesForChangeRequests, SpacesForComments, SpacesForIntegrations, SpacesForSites],
  schemas: spaceSchemas,
};
