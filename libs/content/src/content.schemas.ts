import { closedObject, dateTime, listOf, ref, url, type JsonSchema } from '#platform/platform.schemas';
import { REVISION_TYPES } from './content.events';
import { COMPUTED_PAGE_TYPES } from './tree/tree.model';

const object: JsonSchema = { type: 'object' };
const stringMap: JsonSchema = { type: 'object', additionalProperties: { type: 'string' } };
const pageRef = closedObject({ id: { type: 'string' }, title: { type: 'string' }, path: { type: 'string' } });
const pageSummary = closedObject({ id: { type: 'string' }, type: { type: 'string' }, title: { type: 'string' }, path: { type: 'string' } });
const change = (kind: string, extra: Record<string, JsonSchema> = {}, optional: string[] = []): JsonSchema =>
  closedObject({ type: { type: 'string', enum: [kind] }, ...extra }, optional);
const nullableString: JsonSchema = { type: 'string', nullable: true };
const valueChange = (value: JsonSchema): JsonSchema => closedObject({ before: value, after: value });
const fileSummary = closedObject({ id: { type: 'string' }, name: { type: 'string' } });
/** The members a revision and its summary share (the presenter builds both from one header). */
const revisionHeader: Record<string, JsonSchema> = {
  object: { type: 'string', enum: ['revision'] },
  id: { type: 'string' },
  parents: { type: 'array', items: { type: 'string' } },
  type: { type: 'string', enum: [...REVISION_TYPES] },
  createdAt: dateTime,
  createdBy: { type: 'string' },
  mergedFrom: { type: 'string' },
};

/** A document page's layout: every member, with the platform's values (tree/page-layout.ts). */
const pageLayout = closedObject({
  width: { type: 'string', enum: ['default', 'wide'] },
  cover: { type: 'boolean' },
  coverSize: { type: 'string', enum: ['hero', 'full', 'background'] },
  coverMask: { type: 'string', enum: ['none', 'radial'] },
  title: { type: 'boolean' },
  description: { type: 'boolean' },
  tableOfContents: { type: 'boolean' },
  outline: { type: 'boolean' },
  pagination: { type: 'boolean' },
  metadata: { type: 'boolean' },
  tags: { type: 'boolean' },
  actions: { type: 'boolean' },
  anchors: { type: 'boolean' },
});
/** The service keeps no tags: the lists are always empty, in the platform's item shapes. */
const pageTags: JsonSchema = {
  type: 'array',
  maxItems: 0,
  description: 'always empty: the service has no tags',
  items: closedObject(
    {
      tag: closedObject({ kind: { type: 'string', enum: ['tag'] }, tag: { type: 'string' }, space: { type: 'string' } }, ['space']),
      primary: { type: 'boolean' },
    },
    ['primary'],
  ),
};
const revisionTags: JsonSchema = {
  type: 'array',
  maxItems: 0,
  description: 'always empty: the service has no tags',
  items: {
    type: 'object',
    required: ['slug', 'label', 'color'],
    properties: { slug: { type: 'string' }, label: { type: 'string' }, color: object },
  },
};

/** The links envelope: a list with `stats` (totals over every page). */
function withStats(list: JsonSchema): JsonSchema {
  const stats = closedObject({
    total: { type: 'integer', minimum: 0 },
    broken: closedObject({ total: { type: 'integer', minimum: 0 }, changeRequest: { type: 'integer', minimum: 0 } }),
  });
  return {
    ...list,
    required: [...(list.required as string[]), 'stats'],
    properties: { ...(list.properties as Record<string, JsonSchema>), stats },
  };
}

/** Response schemas of the content context, for the OpenAPI document (docs/content.md gives the shapes). */
export const contentSchemas: Record<string, JsonSchema> = {
  Page: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'title', 'kind', 'type', 'createdAt', 'updatedAt'],
    properties: {
      id: { type: 'string' },
      title: { type: 'string' },
      kind: { type: 'string', enum: ['sheet', 'group', 'link'], description: 'older spelling of type' },
      type: { type: 'string', enum: ['document', 'group', 'link'] },
      createdAt: dateTime,
      updatedAt: dateTime,
      emoji: { type: 'string' },
      icon: { type: 'string' },
      linkTitle: { type: 'string' },
      condition: { type: 'string' },
      slug: { type: 'string' },
      path: { type: 'string' },
      description: { type: 'string' },
      documentId: { type: 'string', description: 'the hash of the page body' },
      pages: { type: 'array', items: ref('Page') },
      hidden: { type: 'boolean' },
      noIndex: { type: 'boolean' },
      noRobotsIndex: { type: 'boolean' },
      layout: pageLayout,
      cover: object,
      variables: stringMap,
      computed: closedObject({
        type: { type: 'string', enum: [...COMPUTED_PAGE_TYPES] },
        dependencies: closedObject({
          spec: closedObject({ ref: closedObject({ kind: { type: 'string', enum: ['openapi'] }, spec: { type: 'string' } }) }),
        }),
        props: object,
      }),
      target: object,
      href: { type: 'string' },
      urls: closedObject({ app: url }),
      tags: pageTags,
      markdown: { type: 'string', description: 'document pages, with format=markdown: the body' },
      document: { ...object, description: 'document pages, with format=document (the default): the body' },
    },
  },
  File: closedObject(
    {
      object: { type: 'string', enum: ['file'] },
      id: { type: 'string' },
      name: { type: 'string' },
      contentType: { type: 'string' },
      downloadURL: url,
      size: { type: 'integer', minimum: 0 },
      dimensions: closedObject({ width: { type: 'number' }, height: { type: 'number' } }),
    },
    ['dimensions'],
  ),
  Revision: closedObject(
    {
      ...revisionHeader,
      mergedFrom: { ...ref('ChangeRequest'), description: 'merge revisions: the change request merged' },
      pages: { type: 'array', items: ref('Page') },
      files: { type: 'array', items: ref('File') },
      reusableContents: { type: 'array', items: object },
      tags: revisionTags,
      variables: stringMap,
      urls: closedObject({ app: url, public: url }, ['public']),
    },
    ['createdBy', 'mergedFrom'],
  ),
  RevisionSummary: closedObject(
    {
      ...revisionHeader,
      urls: closedObject({ location: url, app: url }),
    },
    ['createdBy', 'mergedFrom'],
  ),
  RevisionPages: closedObject({ pages: { type: 'array', items: ref('Page') } }),
  ContentWriteResult: closedObject({
    revision: { type: 'string' },
    changes: {
      type: 'array',
      items: closedObject(
        { object: { type: 'string', enum: ['created_page', 'updated_page', 'deleted_page'] }, page: pageRef, ref: { type: 'string' } },
        ['ref'],
      ),
    },
    insertedFiles: { type: 'array', items: ref('File') },
  }),
  ImportResult: closedObject({
    revision: { type: 'string' },
    importedResources: { type: 'integer', minimum: 0 },
    totalResources: { type: 'integer', minimum: 0 },
  }),
  ContentReference: {
    type: 'object',
    required: ['kind'],
    properties: {
      kind: { type: 'string' },
      organization: { type: 'string' },
      space: { type: 'string' },
      page: { type: 'string' },
      file: { type: 'string' },
      node: { type: 'string' },
      versionContext: closedObject({ type: { type: 'string', enum: ['revision'] }, revision: { type: 'string' } }),
    },
  },
  ContentLinks: withStats(
    listOf(
      closedObject({
        status: { type: 'string', enum: ['ok', 'broken', 'in-app'] },
        relation: { type: 'string' },
        targetReference: ref('ContentReference'),
        locationReferences: { type: 'array', items: ref('ContentReference') },
      }),
    ),
  ),
  RevisionChanges: closedObject({
    revision: { type: 'string' },
    parent: { type: 'string', nullable: true },
    changes: { type: 'array', items: ref('SemanticChange') },
  }),
  SemanticChange: {
    oneOf: [
      change('page_created', { page: pageSummary, parent: nullableString }),
      change('page_edited', { page: pageSummary, attributes: object, path: valueChange({ type: 'string' }) }, ['path']),
      change('page_deleted', { page: pageSummary }),
      change('page_moved', {
        page: pageSummary,
        parent: valueChange(nullableString),
        index: valueChange({ type: 'integer' }),
        path: valueChange({ type: 'string' }),
      }),
      change('file_created', { file: fileSummary }),
      change('file_edited', { file: fileSummary, attributes: object }),
      change('file_deleted', { file: fileSummary }),
      change('variables_edited', { variables: valueChange(stringMap) }),
    ],
  },
  SearchPageResult: closedObject({
    id: { type: 'string' },
    title: { type: 'string' },
    path: { type: 'string' },
    description: { type: 'string', description: "the page's description; empty when it has none" },
    ancestors: {
      type: 'array',
      description: "the page's ancestors, from the top level down to its parent",
      items: closedObject({ title: { type: 'string' } }),
    },
    score: { type: 'number' },
    rank: { type: 'integer', minimum: 1 },
    sections: {
      type: 'array',
      items: closedObject({
        id: { type: 'string' },
        title: { type: 'string' },
        path: { type: 'string' },
        body: { type: 'string' },
        score: { type: 'number' },
        urls: closedObject({ app: url }),
      }),
    },
    urls: closedObject({ app: url }),
  }),
  SearchSpaceResult: closedObject({
    type: { type: 'string', enum: ['space'] },
    id: { type: 'string' },
    title: { type: 'string' },
    score: { type: 'number' },
    pages: { type: 'array', items: ref('SearchPageResult') },
  }),
};
