/**
 * Markdown bodies are parsed once per write, on the untrusted-work pool (off the thread that answers
 * requests): the whole batch in one task before the first attempt, whatever the attempts and the
 * projections do afterwards.
 */
import { UNTRUSTED_WORK, type UntrustedWork } from '#platform/untrusted-work/untrusted-work';
import { apiSpec, type ApiSpec } from '#testing';
import { ContentBuilder } from './content.builder';
import { CONVERT_MARKDOWN, type ConvertMarkdownInput } from './content.work';

describe('markdown bodies of a content write', () => {
  let api: ApiSpec;
  let token: string;
  let spaceId: string;
  /** The markdown bodies each pool task was given, in order. */
  let conversions: string[][];

  const write = (changes: unknown[]) => api.request('POST', `/v1/spaces/${spaceId}/content`, { token, body: { changes } });

  beforeAll(async () => {
    api = await apiSpec();
    ({ token } = await api.createUser('Ada'));
    const organizationId = (await api.request('POST', '/v1/orgs', { token, body: { title: 'Markdown once' } })).body.id;
    spaceId = (await api.request('POST', `/v1/orgs/${organizationId}/spaces`, { token, body: { title: 'Docs' } })).body.id;
    const pool = api.service.app.get<UntrustedWork>(UNTRUSTED_WORK);
    const run = pool.run.bind(pool);
    jest.spyOn(pool, 'run').mockImplementation((task, input, budget) => {
      if (task === CONVERT_MARKDOWN) conversions.push([...(input as ConvertMarkdownInput).bodies]);
      return run(task, input, budget);
    });
  });

  beforeEach(() => {
    conversions = [];
  });

  afterAll(() => api.close());

  it('a batch of 50 pages converts its 50 bodies in one pool task, each once, and the projections parse none again', async () => {
    const changes = Array.from({ length: 50 }, (_, index) => ({
      operation: 'insert_page',
      title: `Page ${index}`,
      document: { markdown: `# Page ${index}\n\nBody **${index}**.` },
    }));
    expect((await write(changes)).status).toBe(200);
    await api.settled();
    expect(conversions).toEqual([changes.map((change) => change.document.markdown)]);
  });

  it('two writes built on the same head, one retried on the stale base, convert each body once', async () => {
    // The first build of each write waits for the other's: both build on the same head, so one must try again.
    const builder = api.service.app.get(ContentBuilder);
    const buildOn = builder.buildOn.bind(builder);
    let release!: () => void;
    const bothBuilding = new Promise<void>((resolve) => (release = resolve));
    let builds = 0;
    const spy = jest.spyOn(builder, 'buildOn').mockImplementation(async (base, build) => {
      builds += 1;
      if (builds === 2) release();
      if (builds <= 2) await bothBuilding;
      return buildOn(base, build);
    });
    try {
      const bodies = ['Racing body one.', 'Racing body two.'];
      const answers = await Promise.all(
        bodies.map((markdown, index) => write([{ operation: 'insert_page', title: `Racer ${index}`, document: { markdown } }])),
      );
      await api.settled();
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      expect(builds).toBe(3);
      expect(conversions.flat().sort()).toEqual([...bodies].sort());
    } finally {
      spy.mockRestore();
    }
  });
});
