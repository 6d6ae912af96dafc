import type { ContextManifest } from '#runtime/context';
import {
  CHANGE_REQUEST_COMMENTS,
  CHANGE_REQUEST_CONTENT,
  CHANGE_REQUEST_DOCUMENTS,
  CHANGE_REQUEST_ORGANIZATIONS,
  CHANGE_REQUEST_SPACES,
  CHANGE_REQUEST_URL_KEY,
  CHANGE_REQUEST_USERS,
} from './changerequests.needs';
import { ChangeRequestsForComments, ChangeRequestsForContent, ChangeRequestsForSpaces } from './changerequests.provides';
import { changeRequestAuditCatalog } from './changerequest.audit';
import { changeRequestProjection } from './changerequest.projections';
import { changeRequestReactor } from './changerequest.reactors';
import { changeRequestSchemas } from './changerequests.schemas';
import { ChangeRequestsModule } from './changerequests.module';

/** Change requests: drafts, their own line of revisions and its content routes, reviews, three-way merges into main, updates from main, PDFs. */
export const changeRequestsContext: ContextManifest = {
  name: 'changerequests',
  module: ChangeRequestsModule,
  projections: [changeRequestProjection],
  reactors: [changeRequestReactor],
  audit: changeRequestAuditCatalog,
  needs: [
    CHANGE_REQUEST_SPACES,
    CHANGE_REQUEST_ORGANIZATIONS,
    CHANGE_REQUEST_USERS,
    CHANGE_REQUEST_COMMENTS,
    CHANGE_REQUEST_CONTENT,
    CHANGE_REQUEST_DOCUMENTS,
    CHANGE_REQUEST_URL_KEY,
  ],
  provides: [ChangeRequestsForSpaces, ChangeRequestsForContent, ChangeRequestsForComments],
  schemas: changeRequestSchemas,
};
