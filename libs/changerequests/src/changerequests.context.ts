import type { ContextManifest } from '../../runtime/src/context';
import { CHANGE_REQUEST_CONTENT, CHANGE_REQUEST_DOCUMENTS } from './changerequests-content.port';
import { CHANGE_REQUEST_COMMENTS, CHANGE_REQUEST_ORGANIZATIONS, CHANGE_REQUEST_SPACES, CHANGE_REQUEST_USERS } from './changerequests-spaces.port';
import { changeRequestAuditCatalog } from './changerequest.audit';
import { ChangeRequestsForComments, ChangeRequestsForContent, ChangeRequestsForSpaces } from './changerequest.ports';
import { changeRequestProjection } from './changerequest.projections';
import { CHANGE_REQUEST_URL_KEY } from './changerequest.queries';
import { changeRequestReactor } from './changerequest.reactors';
import { changeRequestSchemas } from './changerequests.schemas';
import { ChangeRequestsModule } from './changerequests.module';

/** Change requests: drafts, their own line of revisions, reviews, three-way merges into main, updates from main, PDFs. */
export const changeRequestsContext: ContextManifest = {
  name: 'changerequests',
  module: ChangeRequestsModule,
  projections: [changeRequestProjection],
  reactors: [changeRequestReactor],
  audit: changeRequestAuditCatalog,
  needs: [CHANGE_REQUEST_SPACES, CHANGE_REQUEST_ORGANIZATIONS, CHANGE_REQUEST_USERS, CHANGE_REQUEST_COMMENTS, CHANGE_REQUEST_CONTENT, CHANGE_REQUEST_DOCUMENTS, CHANGE_REQUEST_URL_KEY],
  provides: [ChangeRequestsForSpaces, ChangeRequestsForContent, ChangeRequestsForComments],
  schemas: changeRequestSchemas,
};
