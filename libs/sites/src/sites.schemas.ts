import { closedObject, dateTime, ref, url, type JsonSchema } from '../../platform/src/platform.schemas';
import { SITE_TYPES, SITE_VISIBILITIES } from './site.events';

const text: JsonSchema = { type: 'string' };
const flag: JsonSchema = { type: 'boolean' };
const siteSpace = closedObject(
  { object: { type: 'string', enum: ['site-space'] }, id: text, path: text, section: text, space: ref('Space'), title: text, default: flag, condition: text },
  ['section', 'space', 'default', 'condition'],
);
const section = closedObject(
  { object: { type: 'string', enum: ['site-section'] }, id: text, title: text, description: text, default: flag, path: text, condition: text, icon: text, sectionGroup: text, siteSpaces: { type: 'array', items: siteSpace }, urls: closedObject({ published: url }) },
  ['description', 'condition', 'icon', 'sectionGroup'],
);
const site = closedObject(
  {
    object: { type: 'string', enum: ['site'] },
    id: text,
    type: { type: 'string', enum: [...SITE_TYPES] },
    title: text,
    icon: closedObject({ icon: closedObject({ light: url, dark: url }) }),
    hostname: text,
    basename: text,
    proxy: closedObject({ origin: text, target: text }),
    visibility: { type: 'string', enum: [...SITE_VISIBILITIES] },
    published: flag,
    siteSpaces: { type: 'integer', minimum: 0 },
    createdAt: dateTime,
    adaptiveContent: closedObject({ enabled: flag }),
    agentsContext: { type: 'string', enum: ['excluded', 'included'] },
    urls: closedObject({ location: url, app: url, published: url }),
  },
  ['icon', 'hostname', 'basename', 'proxy'],
);

/** Response schemas of the sites context, for the OpenAPI document. */
export const siteSchemas: Record<string, JsonSchema> = {
  Site: site,
  SiteSection: section,
  SiteSpace: siteSpace,
  SiteSectionGroup: closedObject({ object: { type: 'string', enum: ['site-section-group'] }, id: text, title: text, icon: text, sections: { type: 'array', items: ref('SiteSection') } }, ['icon']),
  SiteAdaptiveSchema: closedObject({ object: { type: 'string', enum: ['site-adaptive-schema'] }, jsonSchema: { type: 'object' }, updatedAt: dateTime }),
  SiteTemplateConditions: closedObject({ items: { type: 'array', items: closedObject({ description: text, condition: text }) } }),
  SiteStructure: closedObject({ object: { type: 'string', enum: ['site-structure'] }, type: { type: 'string', enum: ['sections', 'siteSpaces'] }, structure: { type: 'array', items: { type: 'object' } } }),
  SiteShareLink: closedObject({ object: { type: 'string', enum: ['share-link'] }, id: text, name: text, key: text, active: flag, createdAt: dateTime, urls: closedObject({ location: url, published: url }) }),
  SiteVisitorAuth: closedObject({
    object: { type: 'string', enum: ['site-visitor-auth'] },
    algorithms: { type: 'array', items: { type: 'string', enum: ['HS256', 'RS256'] } },
    secret: text,
    jwksUrl: { type: 'string', nullable: true },
    /** The `iss` tokens of the JWKS URL's keys must carry; null: any. */
    issuer: { type: 'string', nullable: true },
    /** The `aud` tokens of the JWKS URL's keys must name: the site's id. */
    audience: text,
    urls: closedObject({ published: url }),
  }),
  PublishedContentSite: closedObject({
    object: { type: 'string', enum: ['published-content-site'] },
    site: ref('Site'),
    structure: closedObject({ type: { type: 'string', enum: ['sections', 'siteSpaces'] }, structure: { type: 'array', items: { oneOf: [ref('SiteSection'), ref('SiteSpace')] } } }),
  }),
};

