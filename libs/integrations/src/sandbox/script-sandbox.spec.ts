import {
  MAX_FETCHES_PER_RUN,
  MAX_LOG_ENTRIES,
  MAX_LOG_MESSAGE_CHARS,
  renderComponent,
  runEventHandler,
  type SandboxFetch,
  type SandboxOptions,
} from './script-sandbox';

type Request = { url: string; method: string; headers: Record<string, string>; body?: string };

/** A host fetch that records every request and answers each with `answer`. */
function recordingFetch(answer: (request: Request) => Promise<Awaited<ReturnType<SandboxFetch>>>): SandboxFetch & { requests: Request[] } {
  const requests: Request[] = [];
  const fetch = (url: string, init: { method: string; headers: Record<string, string>; body?: string }) => {
    const request = { url, ...init };
    requests.push(request);
    return answer(request);
  };
  return Object.assign(fetch, { requests });
}

const noFetch: SandboxFetch = () => Promise.reject(new Error('this test makes no request'));
const clock = () => new Date('2030-01-02T03:04:05.000Z');

function run(
  script: string,
  options: Partial<SandboxOptions> = {},
  event: { type: string; [k: string]: unknown } = { type: 'space_content_updated' },
) {
  return runEventHandler(script, event, { installation: 'inst-1' }, { fetch: noFetch, now: clock, ...options });
}

/** The sandbox still runs scripts and the event loop still turns. */
async function expectHealthy(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  const outcome = await run(`exports.events = { space_content_updated: (event) => 'still fine: ' + event.type }`);
  expect(outcome).toMatchObject({ ok: true, result: 'still fine: space_content_updated' });
}

describe('script sandbox', () => {
  describe('event handlers', () => {
    it('given a script whose handler logs at every level, when the event runs, then each console call is captured with its level and timestamp', async () => {
      const outcome = await run(
        `
        module.exports = {
          events: {
            space_content_updated: async (event, context) => {
              console.log('got', event.type, { from: context.installation });
              console.info('info', 1);
              console.debug('debug', [1, 2]);
              console.warn('warn', null, undefined);
              console.error(new TypeError('bad thing'));
              return { handled: event.spaceId };
            },
          },
        };`,
        {},
        { type: 'space_content_updated', spaceId: 'space-1' },
      );

      expect(outcome).toMatchObject({ ok: true, result: { handled: 'space-1' } });
      expect(outcome.logs).toEqual([
        { level: 'info', message: 'got space_content_updated {"from":"inst-1"}', timestamp: '2030-01-02T03:04:05.000Z' },
        { level: 'info', message: 'info 1', timestamp: '2030-01-02T03:04:05.000Z' },
        { level: 'debug', message: 'debug [1,2]', timestamp: '2030-01-02T03:04:05.000Z' },
        { level: 'warn', message: 'warn null undefined', timestamp: '2030-01-02T03:04:05.000Z' },
        { level: 'error', message: 'TypeError: bad thing', timestamp: '2030-01-02T03:04:05.000Z' },
      ]);
    });

    it('given a script that logs a very long message, when it runs, then the message is cut at 2,000 characters', async () => {
      const outcome = await run(`exports.events = { space_content_updated: () => { console.log('x'.repeat(100000)) } }`);

      expect(outcome.ok).toBe(true);
      expect(outcome.logs).toHaveLength(1);
      expect(outcome.logs[0].message).toHaveLength(MAX_LOG_MESSAGE_CHARS);
    });

    it('given a script that logs more than 200 times, when it runs, then 200 entries are kept and one more says the log limit was reached', async () => {
      const outcome = await run(
        `exports.events = { space_content_updated: () => { for (let i = 0; i < 1000; i++) console.log('line ' + i) } }`,
      );

      expect(outcome.ok).toBe(true);
      expect(outcome.logs).toHaveLength(MAX_LOG_ENTRIES + 1);
      expect(outcome.logs[MAX_LOG_ENTRIES - 1].message).toBe(`line ${MAX_LOG_ENTRIES - 1}`);
      expect(outcome.logs[MAX_LOG_ENTRIES].message).toBe('log limit reached');
    });

    it('given a script with no handler for the event type, when the event runs, then the run succeeds without a result and a log entry says so', async () => {
      const outcome = await run(`exports.events = { page_viewed: () => 'not this one' }`);

      expect(outcome.ok).toBe(true);
      expect(outcome.result).toBeUndefined();
      expect(outcome.logs).toEqual([
        expect.objectContaining({ level: 'info', message: expect.stringContaining('no handler for event space_content_updated') }),
      ]);
    });

    it('given a script whose exports inherit Object methods, when an event named like one runs, then no inherited method counts as a handler', async () => {
      const outcome = await run(`exports.events = {}`, {}, { type: 'toString' });

      expect(outcome.ok).toBe(true);
      expect(outcome.result).toBeUndefined();
    });

    it('given a handler that throws, when the event runs, then the run fails with the script error message', async () => {
      const outcome = await run(`exports.events = { space_content_updated: async () => { throw new Error('cannot sync this space') } }`);

      expect(outcome).toMatchObject({ ok: false, error: 'cannot sync this space' });
    });

    it('given a script with a syntax error, when it runs, then the run fails with the syntax error message', async () => {
      const outcome = await run(`module.exports = { events: { space_content_updated: () => { return 1 +; } } };`);

      expect(outcome.ok).toBe(false);
      expect(outcome.error).toMatch(/^SyntaxError: .+ \(line 1, column \d+\)$/);
    });

    it('given a handler that awaits a promise nothing settles, when the event runs, then the run fails at once instead of waiting', async () => {
      const outcome = await run(`exports.events = { space_content_updated: () => new Promise(() => {}) }`);

      expect(outcome).toMatchObject({ ok: false, error: expect.stringContaining('never finished') });
    });

    it('given a handler that returns a value JSON cannot hold, when the event runs, then the run fails with the serialisation error', async () => {
      const outcome = await run(`exports.events = { space_content_updated: () => { const loop = {}; loop.self = loop; return loop } }`);

      expect(outcome).toMatchObject({ ok: false, error: expect.stringContaining('circular') });
    });

    it('given a script that replaces JSON and Promise methods, when the event runs, then the sandbox still reads its result', async () => {
      const outcome = await run(`
        JSON.stringify = () => '{"kind":"none"}';
        JSON.parse = () => ({});
        Promise.prototype.then = function () { return 42 };
        exports.events = { space_content_updated: async (event) => ({ seen: event.type }) };`);

      expect(outcome).toMatchObject({ ok: true, result: { seen: 'space_content_updated' } });
    });
  });

  describe('fetch', () => {
    it('given a handler awaiting fetch, when the host answers, then the handler gets the host status, headers and body', async () => {
      const fetch = recordingFetch(async () => ({
        status: 201,
        headers: { 'Content-Type': 'application/json' },
        body: '{"id":"remote-7"}',
      }));

      const outcome = await run(
        `exports.events = {
          space_content_updated: async (event) => {
            const response = await fetch('https://api.example.com/x', { method: 'post', headers: { 'X-Space': event.spaceId }, body: JSON.stringify({ id: event.spaceId }) });
            return { status: response.status, ok: response.ok, type: response.headers.get('content-type'), missing: response.headers.get('x-none'), json: await response.json() };
          },
        };`,
        { fetch },
        { type: 'space_content_updated', spaceId: 'space-1' },
      );

      expect(outcome).toMatchObject({
        ok: true,
        result: { status: 201, ok: true, type: 'application/json', missing: null, json: { id: 'remote-7' } },
      });
      expect(fetch.requests).toEqual([
        { url: 'https://api.example.com/x', method: 'POST', headers: { 'X-Space': 'space-1' }, body: '{"id":"space-1"}' },
      ]);
    });

    it('given a handler awaiting fetch, when the host rejects the request, then the run fails with the host message', async () => {
      const fetch = recordingFetch(() => Promise.reject(new Error('refused: 10.0.0.1 is a private address')));

      const outcome = await run(`exports.events = { space_content_updated: async () => { await fetch('http://10.0.0.1/') } }`, { fetch });

      expect(outcome).toMatchObject({ ok: false, error: 'refused: 10.0.0.1 is a private address' });
    });

    it('given a handler that catches a host rejection, when the host rejects the request, then the script sees an Error with the host message', async () => {
      const fetch = recordingFetch(() => Promise.reject(new Error('blocked by the content security policy')));

      const outcome = await run(
        `exports.events = { space_content_updated: async () => { try { await fetch('https://evil.example/') } catch (error) { return [error instanceof Error, error.message] } } }`,
        { fetch },
      );

      expect(outcome).toMatchObject({ ok: true, result: [true, 'blocked by the content security policy'] });
    });

    it('given a handler making more than 20 requests, when it runs, then the requests past the 20th are refused without reaching the host', async () => {
      const fetch = recordingFetch(async () => ({ status: 204, headers: {}, body: '' }));

      const outcome = await run(
        `exports.events = {
          space_content_updated: async () => {
            const outcomes = [];
            for (let i = 0; i < 22; i++) {
              try { outcomes.push((await fetch('https://api.example.com/' + i)).status) } catch (error) { outcomes.push(error.message) }
            }
            return outcomes;
          },
        };`,
        { fetch },
      );

      expect(outcome.ok).toBe(true);
      const outcomes = outcome.result as unknown[];
      expect(outcomes.slice(0, MAX_FETCHES_PER_RUN)).toEqual(Array(MAX_FETCHES_PER_RUN).fill(204));
      expect(outcomes.slice(MAX_FETCHES_PER_RUN)).toEqual([
        expect.stringContaining('fetch limit reached'),
        expect.stringContaining('fetch limit reached'),
      ]);
      expect(fetch.requests).toHaveLength(MAX_FETCHES_PER_RUN);
    });

    it('given a handler awaiting a request the host never answers, when the time limit passes, then the run is stopped', async () => {
      const fetch = recordingFetch(() => new Promise(() => {}));

      const outcome = await run(`exports.events = { space_content_updated: async () => { await fetch('https://slow.example/') } }`, {
        fetch,
        limits: { timeMs: 200 },
      });

      expect(outcome).toMatchObject({ ok: false, error: 'time limit exceeded' });
      await expectHealthy();
    });
  });

  describe('limits', () => {
    it('given a script that loops forever, when it runs, then it is stopped at the time limit and the process stays responsive', async () => {
      const outcome = await run(`while (true) {}`);

      expect(outcome).toMatchObject({ ok: false, error: 'time limit exceeded' });
      await expectHealthy();
    });

    it('given a handler that loops forever inside a catch-all, when it runs, then the interrupt cannot be caught', async () => {
      const outcome = await run(`exports.events = { space_content_updated: () => { for (;;) { try { for (;;) {} } catch (error) {} } } }`, {
        limits: { timeMs: 200 },
      });

      expect(outcome).toMatchObject({ ok: false, error: 'time limit exceeded' });
    });

    it('given a script that allocates without end, when it runs, then it is stopped at the memory limit and the process stays healthy', async () => {
      // A time limit no machine reaches first: only memory may stop this run.
      const outcome = await run(`const a = []; for (;;) a.push('x'.repeat(1e6))`, { limits: { timeMs: 10 * 60 * 1000 } });

      expect(outcome).toMatchObject({ ok: false, error: 'memory limit exceeded' });
      await expectHealthy();
    });

    it('given a handler that allocates many small objects without end, when it runs, then it is stopped at the memory limit', async () => {
      // The default memory limit is reached after a fixed number of objects, however slow the machine;
      // the time limit, the sandbox's largest, is then never what stops the run (under load, the
      // default second could pass first).
      const outcome = await run(
        `exports.events = { space_content_updated: () => { const a = []; for (;;) a.push({ n: Math.random() }) } }`,
        { limits: { timeMs: 10 * 60 * 1000 } },
      );

      expect(outcome).toMatchObject({ ok: false, error: 'memory limit exceeded' });
      await expectHealthy();
    });

    it('given a script that recurses without end, when it runs, then it is stopped with a stack overflow and Node survives', async () => {
      const outcome = await run(`function f() { return f() } f()`);

      expect(outcome).toMatchObject({ ok: false, error: 'stack overflow' });
      await expectHealthy();
    });

    it('given a script that evaluates deeply nested source, when it runs, then it is stopped with a stack overflow and Node survives', async () => {
      const outcome = await run(`eval('['.repeat(100000) + ']'.repeat(100000))`);

      expect(outcome).toMatchObject({ ok: false, error: 'stack overflow' });
      await expectHealthy();
    });

    it('given a run waiting on a fetch, when another run exhausts the native stack meanwhile, then the waiting run finishes unaffected', async () => {
      let answer: () => void = () => undefined;
      const fetch = recordingFetch(() => new Promise((resolve) => (answer = () => resolve({ status: 200, headers: {}, body: 'done' }))));
      const waiting = run(`exports.events = { space_content_updated: async () => (await fetch('https://api.example.com/')).text() }`, {
        fetch,
      });
      while (fetch.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));

      // With the largest stack limit, QuickJS's JSON parser on deeply nested text outruns Node's own stack.
      const crashing = await run(`JSON.parse('['.repeat(100000) + ']'.repeat(100000))`, { limits: { stackBytes: 256 * 1024 } });
      answer();

      expect(crashing).toMatchObject({ ok: false, error: 'stack overflow' });
      expect(await waiting).toMatchObject({ ok: true, result: 'done' });
    });

    it('given a handler that returns more than 1 MiB, when it runs, then the result is refused', async () => {
      const outcome = await run(`exports.events = { space_content_updated: () => ({ blob: 'x'.repeat(2 * 1024 * 1024) }) }`);

      expect(outcome.ok).toBe(false);
      expect(outcome.result).toBeUndefined();
      expect(outcome.error).toMatch(/result too large/);
    });
  });

  describe('isolation', () => {
    it('given a script probing for host globals, when it runs, then neither it nor eval nor Function finds anything of the host', async () => {
      const outcome = await run(`
        exports.events = {
          space_content_updated: () => ({
            require: typeof require,
            process: typeof process,
            globalProcess: typeof globalThis.process,
            viaEval: (0, eval)('typeof process + typeof require + typeof Buffer'),
            viaFunction: Function('return typeof this.process + typeof globalThis.require')(),
            viaConstructor: ({}).constructor.constructor('return typeof process')(),
            hostBridges: typeof hostLog + typeof hostFetch,
            timers: typeof setTimeout + typeof setInterval,
            globals: Object.keys(globalThis).sort(),
          }),
        };`);

      expect(outcome.result).toEqual({
        require: 'undefined',
        process: 'undefined',
        globalProcess: 'undefined',
        viaEval: 'undefinedundefinedundefined',
        viaFunction: 'undefinedundefined',
        viaConstructor: 'undefined',
        hostBridges: 'undefinedundefined',
        timers: 'undefinedundefined',
        globals: ['console', 'exports', 'fetch', 'module'],
      });
    });

    it('given a script that imports a module dynamically, when it runs, then the import is refused', async () => {
      const outcome = await run(
        `exports.events = { space_content_updated: () => import('fs').then(() => 'loaded', (error) => 'refused: ' + error.message) }`,
      );

      expect(outcome).toMatchObject({ ok: true, result: expect.stringMatching(/^refused: /) });
    });

    it('given a script that stores a global, when a second run starts, then the global is gone', async () => {
      await run(`globalThis.remembered = 'secret'; exports.events = { space_content_updated: () => 1 }`);

      const outcome = await run(`exports.events = { space_content_updated: () => typeof globalThis.remembered }`);

      expect(outcome).toMatchObject({ ok: true, result: 'undefined' });
    });
  });

  describe('components', () => {
    const counter = `
      module.exports = {
        components: {
          counter: ({ props, state, context, action }) => ({
            type: 'block',
            children: [{ type: 'text', children: [props.label + ': ' + (state.count || 0) + ' in ' + context.space] }],
            controls: [],
            state: { count: (state.count || 0) + (action ? 1 : 0) },
          }),
          banner: () => ({ type: 'text', children: ['static'] }),
        },
      };`;

    it('given a component, when it renders after an action, then the outcome holds its element tree and its new state', async () => {
      const outcome = await renderComponent(
        counter,
        {
          componentId: 'counter',
          props: { label: 'Count' },
          state: { count: 2 },
          context: { space: 'space-1' },
          action: { type: 'increment' },
        },
        { fetch: noFetch },
      );

      expect(outcome).toMatchObject({
        ok: true,
        result: {
          element: { type: 'block', children: [{ type: 'text', children: ['Count: 2 in space-1'] }], controls: [] },
          state: { count: 3 },
        },
      });
    });

    it('given a component that returns no state, when it renders, then its previous state is kept', async () => {
      const outcome = await renderComponent(
        counter,
        { componentId: 'banner', props: {}, state: { seen: true }, context: {} },
        { fetch: noFetch },
      );

      expect(outcome).toMatchObject({ ok: true, result: { element: { type: 'text', children: ['static'] }, state: { seen: true } } });
    });

    it('given a script without the requested component, when it renders, then the run fails with no component', async () => {
      const outcome = await renderComponent(counter, { componentId: 'missing', props: {}, state: {}, context: {} }, { fetch: noFetch });

      expect(outcome).toMatchObject({ ok: false, error: 'no component missing' });
    });
  });
});
