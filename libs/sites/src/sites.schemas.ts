import { booleans, closedObject, dateTime, ref, url, type JsonSchema } from '#platform/platform.schemas';
import { SITE_DEFAULT_LEVELS, SITE_TYPES, SITE_VISIBILITIES } from './site.events';

const text: JsonSchema = { type: 'string' };
const flag: JsonSchema = { type: 'boolean' };
/** `published` only while the site is published and the item is live. */
const publishedUrls = closedObject({ published: url }, ['published']);
const siteSpace = closedObject(
  {
    object: { type: 'string', enum: ['site-space'] },
    id: text,
    path: text,
    section: text,
    space: ref('Space'),
    title: text,
    default: flag,
    condition: text,
    pageId: text,
    draft: flag,
    hidden: flag,
    urls: publishedUrls,
  },
  ['section', 'space', 'default', 'condition', 'pageId', 'hidden'],
);
const section = closedObject(
  {
    object: { type: 'string', enum: ['site-section'] },
    id: text,
    title: text,
    description: text,
    default: flag,
    draft: flag,
    path: text,
    condition: text,
    icon: text,
    sectionGroup: text,
    siteSpaces: { type: 'array', items: siteSpace },
    urls: publishedUrls,
  },
  ['description', 'condition', 'icon', 'sectionGroup'],
);
const site = closedObject(
  {
    object: { type: 'string', enum: ['site'] },
    id: text,
    type: { type: 'string', enum: [...SITE_TYPES] },
    appliedType: { type: 'string', enum: [...SITE_TYPES] },
    title: text,
    icon: closedObject({ icon: closedObject({ light: url, dark: url }) }),
    hostname: text,
    basename: text,
    /** `origin`: the proxy address readers use; `target`: where it sends them, the site's published address here. */
    proxy: closedObject({ origin: text, target: url }),
    visibility: { type: 'string', enum: [...SITE_VISIBILITIES] },
    defaultLevel: { type: 'string', enum: [...SITE_DEFAULT_LEVELS, null], nullable: true },
    permissions: booleans('view', 'access', 'edit', 'create', 'admin', 'installIntegration', 'viewAdaptiveSchema', 'editAdaptiveSchema'),
    published: flag,
    siteSpaces: { type: 'integer', minimum: 0 },
    createdAt: dateTime,
    adaptiveContent: closedObject({ enabled: flag }),
    styleguide: closedObject({ kind: { type: 'string', enum: ['space'] }, space: text }),
    agentsContext: { type: 'string', enum: ['excluded', 'included'] },
    /** Always empty: the service has no plans; every feature is there on every type. */
    features: { type: 'array', maxItems: 0, items: { type: 'object' } },
    urls: closedObject({ location: url, app: url, preview: url, published: url }, ['published']),
  },
  ['icon', 'hostname', 'basename', 'proxy', 'styleguide'],
);
const themed: JsonSchema = closedObject({ light: text, dark: text });

/** Response schemas of the sites context, for the OpenAPI document. */
export const siteSchemas: Record<string, JsonSchema> = {
  Site: site,
  SiteSection: section,
  SiteSpace: siteSpace,
  SiteSectionGroup: closedObject(
    {
      object: { type: 'string', enum: ['site-section-group'] },
      id: text,
      title: text,
      icon: text,
      draft: flag,
      sections: { type: 'array', items: ref('SiteSection') },
      /** The same sections: groups are not nested here. */
      children: { type: 'array', items: ref('SiteSection') },
    },
    ['icon'],
  ),
  SiteAdaptiveSchema: closedObject({
    object: { type: 'string', enum: ['site-adaptive-schema'] },
    jsonSchema: { type: 'object' },
    updatedAt: dateTime,
  }),
  SiteTemplateConditions: closedObject({ items: { type: 'array', items: closedObject({ description: text, condition: text }) } }),
  SiteStructure: closedObject({
    object: { type: 'string', enum: ['site-structure'] },
    type: { type: 'string', enum: ['sections', 'siteSpaces'] },
    structure: { type: 'array', items: { type: 'object' } },
  }),
  SiteShareLink: closedObject({
    object: { type: 'string', enum: ['share-link'] },
    id: text,
    name: text,
    key: text,
    active: flag,
    createdAt: dateTime,
    urls: closedObject({ location: url, published: url }),
  }),
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
  /** The appearance every published site is rendered with, as the platform's customization settings (site-html.appearance.ts). */
  SiteCustomization: {
    type: 'object',
    required: [
      'styling',
      'internationalization',
      'favicon',
      'header',
      'footer',
      'themes',
      'feedback',
      'ai',
      'advancedCustomization',
      'trademark',
      'externalLinks',
      'pagination',
      'pageActions',
      'privacyPolicy',
      'socialPreview',
      'socialAccounts',
      'insights',
    ],
    properties: {
      title: text,
      styling: {
        type: 'object',
        properties: {
          primaryColor: themed,
          infoColor: themed,
          successColor: themed,
          warningColor: themed,
          dangerColor: themed,
          font: text,
          monospaceFont: text,
        },
      },
      themes: closedObject({ default: { type: 'string', enum: ['light', 'dark', 'system'] }, toggeable: flag }),
    },
  },
  PublishedContentSite: closedObject({
    object: { type: 'string', enum: ['published-content-site'] },
    site: ref('Site'),
    structure: closedObject({
      type: { type: 'string', enum: ['sections', 'siteSpaces'] },
      structure: { type: 'array', items: { oneOf: [ref('SiteSection'), ref('SiteSpace')] } },
    }),
    customizations: closedObject({ site: ref('SiteCustomization'), siteSpaces: { type: 'object', maxProperties: 0 } }),
    /** Always empty: published sites load no scripts (their Content-Security-Policy allows none). */
    scripts: { type: 'array', maxItems: 0, items: { type: 'object' } },
  }),
};
