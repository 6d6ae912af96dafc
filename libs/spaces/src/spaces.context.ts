import type { ContextManifest } from '../../runtime/src/context';
import { spaceSchemas } from './spaces.schemas';
import { collectionReactor } from './collection.reactors';
import { MemberSpaces } from './member-spaces';
import { SPACE_COUNT_SOURCES } from './space-counters';
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
  needs: [{ port: SPACE_COUNT_SOURCES, many: true }],
  provides: [MemberSpaces],
  schemas: spaceSchemas,
};
