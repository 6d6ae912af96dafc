/**
 * Every request shape the platform's published schema allows is accepted: for each operation of
 * the interface document that the platform also has, each query parameter with each of its values
 * (every enumeration value, both booleans, a sample), and each body member with each of its shapes
 * (every enumeration value, every `oneOf` branch, `null` where allowed, each optional member of an
 * object on its own) is sent on top of the allowed request of the operation's rule. A shape is
 * refused when the service answers 400 or 422; ids the shapes carry are the fixture's real ones.
 * Only shapes that are valid against the platform's own request schema are sent.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import platformDocument from '@gitbook/api/spec/openapi.json';
import { compressToEncodedURIComponent } from 'lz-string';
import { sample } from 'openapi-sampler';
import { ADMIN_TOKEN, fillPath, operationsOf, startInProcess, type InProcessApi, type Operation } from './support/api-spec';
import { expectStatus, identityProvider } from './support/api-spec-fixtures';
import { INTERFACE_OPERATIONS } from './support/interface-operations';
import { ownerCallers, ownerFixture, RULES, ruleUsers, type Context, type MatrixFixture, type User } from './support/operation-rules';
import { platformOperation } from './support/platform-schema';

type Schema = Record<string, any>;
const document = platformDocument as unknown as Schema;

/** Operations whose platform counterpart is another resource (see the README's differences): their shapes are not the platform's. */
const NOT_THE_PLATFORMS = new Set([
  'POST /v1/orgs/{organizationId}/translations',
  'PUT /v1/orgs/{organizationId}/translations/{translationSettingsId}',
]);
/** Shapes the service refuses on purpose (README, "Where the service differs from the platform"): operation → member → why. */
const REFUSED_ON_PURPOSE: Record<string, { member: string; shape: unknown; why: string }[]> = Object.fromEntries(
  [
    'POST /v1/spaces/{spaceId}/comments',
    'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments',
    'PUT /v1/spaces/{spaceId}/comments/{commentId}',
    'PUT /v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}',
    'POST /v1/spaces/{spaceId}/comments/{commentId}/replies',
    'POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies',
    'PUT /v1/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}',
    'PUT /v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}',
  ].map((key) => [key, [{ member: 'body', shape: {}, why: 'a comment or reply with no text says nothing' }]]),
);

/** `page` is an opaque cursor the service hands out: a made-up one is rightly refused. */
const CURSOR = 'page';

function resolve(schema: Schema | undefined): Schema {
  let current = schema ?? {};
  for (let hops = 0; current.$ref && hops < 20; hops += 1) {
    const [, kind, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(String(current.$ref)) ?? [];
    current = document.components[kind]?.[name] ?? {};
  }
  return current;
}

const sampled = (schema: Schema, skipNonRequired: boolean): unknown =>
  sample(schema as never, { skipReadOnly: true, skipNonRequired, quiet: true } as never, document as never);

/** The shapes of one member: enumeration values, branches, null, booleans, each optional member of an object on its own. */
function shapesOf(schema: Schema, depth = 0): unknown[] {
  const resolved = resolve(schema);
  const branches = (resolved.oneOf ?? resolved.anyOf) as Schema[] | undefined;
  const types: string[] = Array.isArray(resolved.type) ? resolved.type : resolved.type ? [resolved.type] : [];
  const shapes: unknown[] = [];
  if (Array.isArray(resolved.enum)) shapes.push(...resolved.enum);
  else if (resolved.const !== undefined) shapes.push(resolved.const);
  else if (branches) shapes.push(...branches.flatMap((branch) => shapesOf(branch, depth).slice(0, 4)));
  else if (types.includes('boolean')) shapes.push(true, false);
  else if (types.includes('object') && resolved.properties && depth < 2) {
    const base = sampled(resolved, true) as Record<string, unknown>;
    shapes.push(base);
    const required = new Set<string>(resolved.required ?? []);
    for (const [name, member] of Object.entries(resolved.properties as Record<string, Schema>)) {
      if (required.has(name) || resolve(member).readOnly) continue;
      for (const shape of shapesOf(member, depth + 1).slice(0, 4)) shapes.push({ ...base, [name]: shape });
    }
  } else shapes.push(sampled(resolved, false));
  if (types.includes('null') || resolved.nullable) shapes.push(null);
  return shapes;
}

/** Real values for members whose made-up sample means nothing to the service (an id, an address, a condition). */
function realValues(fixture: MatrixFixture, owner: User, unique: string): Record<string, unknown> {
  const { ids } = fixture;
  return {
    space: fixture.spaceId,
    spaceId: fixture.spaceId,
    parent: fixture.collectionId,
    collection: fixture.collectionId,
    organization: ruleUsers.ownOrganizations.get(owner.id),
    siteSpace: ids.siteSpaceId,
    defaultSiteSpace: ids.siteSpaceId,
    siteSection: ids.siteSectionId,
    defaultSiteSection: ids.siteSectionId,
    sectionId: ids.siteSectionId,
    sections: [ids.siteSectionId],
    siteSectionGroup: ids.siteSectionGroupId,
    page: ids.pageId,
    pageId: ids.pageId,
    targetPage: ids.pageId,
    creator: owner.id,
    contributor: owner.id,
    requestedReviewer: fixture.victim.id,
    owner: owner.id,
    authors: owner.id,
    users: [fixture.victim.id],
    members: [fixture.victim.id],
    add: [fixture.victim.id],
    remove: [],
    defaultTeam: fixture.teamId,
    tunnelUrl: 'https://tunnel.example.com/hook',
    proxy: 'company.com/docs',
    basename: `docs-${unique}`,
    hostname: `docs-${unique}`.toLowerCase(),
    membershipsKey: fixture.victim.id,
    emailDomains: [fixture.emailDomain],
    condition: 'visitor.claims.beta',
    path: `path-${unique}`,
    slug: `spec-${unique}`.toLowerCase(),
    entityID: identityProvider().entityID,
    certificate: identityProvider().certificate,
    query: 'guide',
    componentId: 'counter',
    request: compressToEncodedURIComponent(JSON.stringify({ componentId: 'counter' })),
    addedReactions: ['1f44d'],
    removedReactions: ['👍'],
    links: [{ ref: { kind: 'url', url: 'https://tracker.example.com/T-1' }, title: 'Ticket' }],
  };
}

/** The sample's placeholders replaced by real values, by member name; pointers `{ type, id }` get the id of their type. */
function withRealValues(value: unknown, real: Record<string, unknown>, ids: Record<string, string>, name?: string): unknown {
  const placeholder = (candidate: unknown) => typeof candidate === 'string' && (candidate === 'string' || candidate === '');
  // Maps keyed by id (`memberships`): the sample's `property1`, `property2` keys become the real id of the member's name.
  if (name && real[`${name}Key`] !== undefined && value && typeof value === 'object' && !Array.isArray(value)) {
    const first = Object.values(value as Record<string, unknown>)[0];
    return first === undefined ? value : { [String(real[`${name}Key`])]: withRealValues(first, real, ids) };
  }
  // A list of placeholders, or of objects naming things by made-up ids (links to update), becomes the real list.
  const realList = name !== undefined && Array.isArray(real[name]) ? (real[name] as unknown[]) : undefined;
  if (Array.isArray(value))
    return realList && (value.every(placeholder) || typeof realList[0] === 'object')
      ? realList
      : value.map((item) => withRealValues(item, real, ids));
  if (value && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    const pointerIds: Record<string, string> = {
      'site-section': String(real['site-section'] ?? real.siteSection ?? ids.siteSectionId),
      'site-section-group': String(real['site-section-group'] ?? ids.siteSectionGroupId),
      'site-space': String(real.siteSpace ?? ids.siteSpaceId),
      space: String(real.space ?? ids.spaceId),
      collection: String(real.collection ?? ids.collectionId),
    };
    const properties = object.properties && typeof object.properties === 'object' ? Object.keys(object.properties) : [];
    return Object.fromEntries(
      Object.entries(object).map(([key, member]) => {
        if (key === 'id' && typeof object.type === 'string' && pointerIds[object.type]) return [key, pointerIds[object.type]];
        // A schema's `required` names the properties beside it.
        if (key === 'required' && Array.isArray(member) && member.every(placeholder) && properties.length > 0)
          return [key, properties.slice(0, 1)];
        return [key, withRealValues(member, real, ids, key)];
      }),
    );
  }
  if (name && placeholder(value) && real[name] !== undefined) return real[name];
  return value;
}

/** Moves need a sibling to be placed against, and another parent to move into: made before the operation's shapes are sent. */
const MOVES: Record<string, (api: InProcessApi, fixture: MatrixFixture, token: string) => Promise<Record<string, unknown>>> = {
  'POST /v1/spaces/{spaceId}/move': async (api, fixture, token) => {
    const sibling = expectStatus(
      await api.request({ method: 'POST', url: `/v1/orgs/${fixture.organizationId}/spaces`, token, body: { title: 'Sibling' } }),
      201,
      'creating a sibling space',
    );
    return { space: sibling.id, collection: fixture.collectionId, parent: fixture.collectionId };
  },
  'POST /v1/collections/{collectionId}/move': async (api, fixture, token) => {
    const sibling = expectStatus(
      await api.request({ method: 'POST', url: `/v1/orgs/${fixture.organizationId}/collections`, token, body: { title: 'Sibling' } }),
      201,
      'creating a sibling collection',
    );
    return { space: fixture.spaceId, collection: sibling.id, parent: sibling.id };
  },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move': async (api, fixture, token) => ({
    siteSection: await newSection(api, fixture, token),
  }),
  'POST /v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/move': async (api, fixture, token) => {
    const site = `/v1/orgs/${fixture.organizationId}/sites/${fixture.ids.siteId}`;
    const group = expectStatus(
      await api.request({ method: 'POST', url: `${site}/section-groups`, token, body: { title: 'Sibling' } }),
      201,
      'creating a sibling group',
    );
    return { 'site-section': await newSection(api, fixture, token), 'site-section-group': group.id };
  },
  'POST /v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/move': async (api, fixture, token) => {
    const site = `/v1/orgs/${fixture.organizationId}/sites/${fixture.ids.siteId}`;
    const mine = (
      expectStatus(await api.request({ method: 'GET', url: `${site}/site-spaces`, token }), 200, 'listing site spaces').items as Array<{
        id: string;
        section?: string | null;
      }>
    ).find((item) => item.id === fixture.ids.siteSpaceId);
    const space = expectStatus(
      await api.request({ method: 'POST', url: `/v1/orgs/${fixture.organizationId}/spaces`, token, body: { title: 'Variant' } }),
      201,
      'creating a space',
    );
    const sibling = expectStatus(
      await api.request({
        method: 'POST',
        url: `${site}/site-spaces`,
        token,
        body: { spaceId: space.id, ...(mine?.section ? { sectionId: mine.section } : {}) },
      }),
      201,
      'adding a sibling site space',
    );
    return { siteSpace: sibling.id };
  },
};

async function newSection(api: InProcessApi, fixture: MatrixFixture, token: string): Promise<string> {
  const space = expectStatus(
    await api.request({ method: 'POST', url: `/v1/orgs/${fixture.organizationId}/spaces`, token, body: { title: 'Section space' } }),
    201,
    'creating a space',
  );
  const section = await api.request({
    method: 'POST',
    url: `/v1/orgs/${fixture.organizationId}/sites/${fixture.ids.siteId}/sections`,
    token,
    body: { spaceId: space.id, title: 'Sibling' },
  });
  if (section.status >= 300) throw new Error(`adding a sibling section answered ${section.status}: ${section.text.slice(0, 200)}`);
  return section.body.id as string;
}

interface Shape {
  what: string;
  query: Record<string, string>;
  body?: unknown;
  /** Listed in REFUSED_ON_PURPOSE: must be refused with 400, in the envelope. */
  refusedOnPurpose?: boolean;
}

describe("every request shape the platform's schema allows is accepted", () => {
  let api: InProcessApi;
  let owner: User;
  let victim: User;
  let counter = 0;
  let shared: MatrixFixture;
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'platform', components: document.components } as object);

  const newFixture = () => ownerFixture(api, owner, victim);

  beforeAll(async () => {
    api = await startInProcess();
    ({ owner, victim } = await ownerCallers(api));
    shared = await newFixture();
  }, 60_000);
  afterAll(async () => {
    await api?.close();
  });

  function serviceOperation(method: string, path: string): Operation {
    const shape = (template: string) => template.replace(/\{[^}]+\}/g, '{}');
    const found = operationsOf(api.document).find((candidate) => candidate.method === method && shape(candidate.path) === shape(path));
    if (!found) throw new Error(`${method} ${path} is not an operation of the service's document`);
    return found;
  }

  for (const { method, path } of INTERFACE_OPERATIONS) {
    const key = `${method} ${path}`;
    const platform = platformOperation(method, path);
    if (!platform || NOT_THE_PLATFORMS.has(key)) continue;
    const parameters = ((platform.operation.parameters ?? []) as Schema[])
      .map(resolve)
      .filter((parameter) => parameter.in === 'query' && parameter.name !== CURSOR);
    const bodySchema = platform.operation.requestBody?.content?.['application/json']?.schema as Schema | undefined;
    if (parameters.length === 0 && !bodySchema) continue;

    it(`${key} accepts every shape the platform allows`, async () => {
      const operation = serviceOperation(method, path);
      const rule = RULES[operation.key];
      if (!rule) throw new Error(`${operation.key} has no rule in test/support/operation-rules.ts`);
      const fixture = method === 'GET' ? shared : await newFixture();
      const token = rule.allow === 'adminToken' ? ADMIN_TOKEN : owner.token;
      const validBody = bodySchema
        ? ajv.compile(JSON.parse(JSON.stringify(bodySchema).replace(/"#\/components\//g, '"platform#/components/')))
        : undefined;

      const context = (): Context => ({
        api,
        org: fixture,
        caller: 'admin',
        user: owner,
        unique: `${Date.now().toString(36)}${++counter}`,
      });
      const shapes: Shape[] = [];
      const baseContext = context();
      const real = { ...realValues(fixture, owner, baseContext.unique), ...((await MOVES[key]?.(api, fixture, token)) ?? {}) };
      const baseQuery = Object.fromEntries(new URLSearchParams(rule.query ? await rule.query(baseContext) : ''));
      const baseBody = bodySchema
        ? {
            ...(withRealValues(sampled(resolve(bodySchema), true), real, fixture.ids) as object),
            ...((rule.body?.(baseContext) ?? {}) as object),
          }
        : undefined;
      for (const parameter of parameters) {
        for (const value of shapesOf(parameter.schema ?? {})) {
          const withReal = withRealValues({ [parameter.name]: value }, real, fixture.ids) as Record<string, unknown>;
          const shown = withReal[parameter.name];
          if (shown === null || typeof shown === 'object') continue; // query values are scalars
          shapes.push({
            what: `?${parameter.name}=${String(shown)}`,
            query: { ...baseQuery, [parameter.name]: String(shown) },
            ...(baseBody === undefined ? {} : { body: baseBody }),
          });
        }
      }
      if (bodySchema) {
        const resolved = resolve(bodySchema);
        const base = (rule.body?.(baseContext) ?? {}) as Record<string, unknown>;
        const required = withRealValues(sampled(resolved, true), real, fixture.ids) as Record<string, unknown>;
        for (const [member, schema] of Object.entries((resolved.properties ?? {}) as Record<string, Schema>)) {
          if (resolve(schema).readOnly) continue;
          for (const value of shapesOf(schema)) {
            const realMember = (withRealValues({ [member]: value }, real, fixture.ids) as Record<string, unknown>)[member];
            const body: Record<string, unknown> = { ...required, ...base, [member]: realMember };
            if (validBody && !validBody(body)) continue; // not a shape the platform allows (a sample blind to a pattern)
            const refusedOnPurpose =
              REFUSED_ON_PURPOSE[key]?.some(
                (refusal) => refusal.member === member && JSON.stringify(refusal.shape) === JSON.stringify(realMember),
              ) ?? false;
            shapes.push({ what: `${member}: ${JSON.stringify(body[member]).slice(0, 120)}`, query: baseQuery, body, refusedOnPurpose });
          }
        }
      }

      const refused: string[] = [];
      for (const shape of shapes) {
        const ctx = context();
        const ids = { ...fixture.ids, ...((await rule.setup?.(ctx)) ?? {}) };
        const query = new URLSearchParams(shape.query).toString();
        const answer = await api.request({
          method,
          url: `${fillPath(operation.path, ids)}${query ? `?${query}` : ''}`,
          token,
          ...(shape.body === undefined ? {} : { body: shape.body }),
        });
        if (shape.refusedOnPurpose) {
          if (answer.status !== 400 || answer.body?.error?.code !== 400)
            refused.push(`${shape.what} (refused on purpose) → ${answer.status} ${answer.text.slice(0, 200)}`);
        } else if (answer.status === 400 || answer.status === 422 || answer.status >= 500)
          refused.push(`${shape.what} → ${answer.status} ${answer.text.slice(0, 200)}`);
      }
      expect(refused).toEqual([]);
    });
  }
});
