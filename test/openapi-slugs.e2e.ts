/**
 * OpenAPI slugs are unique per organization, not across the service: two organizations may each
 * have a spec named `pets`, and each gets 201; within one organization the second create of a slug
 * is the first's spec (no second spec).
 */
import { apiSpec, type ApiSpec } from '#testing';

const SWAGGER_YAML =
  'swagger: "2.0"\ninfo:\n  title: Pets\n  version: "1"\npaths:\n  /pets:\n    get:\n      summary: List pets\n      responses:\n        "200":\n          description: ok\n';

let api: ApiSpec;

beforeAll(async () => {
  api = await apiSpec();
}, 60_000);

afterAll(() => api.close());

/** A fresh organization and its owner's token. */
async function organization(title: string): Promise<{ organizationId: string; token: string }> {
  const { token } = await api.createUser(title);
  const response = await api.request('POST', '/v1/orgs', { token, body: { title } });
  expect(response.status).toBe(201);
  return { organizationId: response.body.id, token };
}

// Mutation pinned: a slug claim keyed by the slug alone (one slug stream for every organization).
it('given two organizations, when each creates a spec with the same slug, then both get 201 with a spec of their own', async () => {
  const first = await organization('First APIs');
  const second = await organization('Second APIs');
  const created = [];
  for (const { organizationId, token } of [first, second]) {
    const response = await api.request('POST', `/v1/orgs/${organizationId}/openapi`, {
      token,
      body: { slug: 'pets', source: { text: SWAGGER_YAML } },
    });
    expect({ status: response.status, slug: response.body.slug }).toEqual({ status: 201, slug: 'pets' });
    created.push(response.body.id);
  }
  expect(created[0]).not.toBe(created[1]);
  for (const { organizationId, token } of [first, second]) {
    expect((await api.request('GET', `/v1/orgs/${organizationId}/openapi/pets`, { token })).status).toBe(200);
  }
});
