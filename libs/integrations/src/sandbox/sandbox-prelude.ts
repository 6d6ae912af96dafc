/**
 * The JavaScript the sandbox evaluates in every fresh QuickJS context before the integration's
 * script (see script-sandbox.ts for the script API it implements). It is an expression: a function
 * that takes the two raw host functions and the limits, installs `module`, `exports`, `console` and
 * `fetch` as globals, and returns the driver the host calls once the script has run.
 *
 * Everything the driver relies on (JSON, Reflect.apply, the module object, the host functions) is
 * captured here, before the script runs, so a script that replaces globals or prototypes can only
 * break its own run: the driver's answer is always a string built by the captured JSON.stringify,
 * and the host checks it again (type, size, shape) before trusting it.
 *
 * Driver answers (JSON strings), read by script-sandbox.ts:
 * - `{"kind":"value","value":<json>}` (or `{"kind":"value"}` for undefined): the handler's or
 *   component's result;
 * - `{"kind":"none"}`: the script has no handler for that event type / no component of that id;
 * - `{"kind":"too-large"}`: the result serialises to more than `limits.maxResultChars` characters;
 * - `{"kind":"error","name":…,"message":…}`: the script threw (or its result is not serialisable).
 * Uncatchable errors (the time limit's interrupt) reject the driver's promise instead.
 */
export const SANDBOX_PRELUDE = String.raw`(function (hostLog, hostFetch, limits) {
  'use strict';
  const global = globalThis;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const toText = String;
  const apply = Reflect.apply;
  const freeze = Object.freeze;
  const keysOf = Object.keys;
  const isArray = Array.isArray;
  const nullObject = () => Object.create(null);
  const ErrorType = Error;
  const TypeErrorType = TypeError;
  const PromiseType = Promise;
  const promiseThen = Promise.prototype.then;
  const objectPrototype = Object.prototype;
  const functionPrototype = Function.prototype;
  const maxLogChars = limits.maxLogChars;
  const maxResultChars = limits.maxResultChars;

  function show(value) {
    if (typeof value === 'string') return value;
    try {
      if (value instanceof ErrorType) return toText(value.name) + ': ' + toText(value.message);
      if (typeof value === 'function') return '[function ' + (toText(value.name) || 'anonymous') + ']';
      if (typeof value === 'object' && value !== null) {
        const json = stringify(value);
        if (typeof json === 'string') return json;
      }
      return toText(value);
    } catch (error) {
      try {
        return toText(value);
      } catch (again) {
        return '[unprintable]';
      }
    }
  }

  function format(args) {
    let text = '';
    for (let i = 0; i < args.length && text.length <= maxLogChars; i++) text += (i === 0 ? '' : ' ') + show(args[i]);
    return text;
  }

  const consoleLevels = { log: 'info', info: 'info', debug: 'debug', warn: 'warn', error: 'error' };
  const console = {};
  for (const method of keysOf(consoleLevels)) {
    const level = consoleLevels[method];
    console[method] = function (...args) {
      hostLog(level, format(args));
    };
  }

  function normalizeHeaders(headers) {
    const out = nullObject();
    if (headers === undefined || headers === null) return out;
    if (isArray(headers)) {
      for (let i = 0; i < headers.length; i++) out[toText(headers[i][0])] = toText(headers[i][1]);
      return out;
    }
    if (typeof headers === 'object') {
      const names = keysOf(headers);
      for (let i = 0; i < names.length; i++) out[toText(names[i])] = toText(headers[names[i]]);
      return out;
    }
    throw new TypeErrorType('fetch: headers must be an object or a list of [name, value] pairs');
  }

  function makeResponse(raw) {
    const answer = parse(raw);
    const byName = nullObject();
    const names = keysOf(answer.headers);
    for (let i = 0; i < names.length; i++) byName[names[i].toLowerCase()] = answer.headers[names[i]];
    const body = answer.body;
    const status = answer.status;
    const headers = freeze({
      get(name) {
        const key = toText(name).toLowerCase();
        return key in byName ? byName[key] : null;
      },
      has(name) {
        return toText(name).toLowerCase() in byName;
      },
    });
    return freeze({
      status,
      ok: status >= 200 && status <= 299,
      headers,
      text() {
        return PromiseType.resolve(body);
      },
      json() {
        return new PromiseType((resolve) => resolve(parse(body)));
      },
    });
  }

  function fetch(input, init) {
    try {
      const options = init === undefined || init === null ? {} : init;
      const url = toText(input);
      const method = options.method === undefined || options.method === null ? 'GET' : toText(options.method).toUpperCase();
      const headers = stringify(normalizeHeaders(options.headers));
      let body;
      if (options.body !== undefined && options.body !== null) {
        if (typeof options.body !== 'string') throw new TypeErrorType('fetch: body must be a string (serialise objects with JSON.stringify)');
        body = options.body;
      }
      return apply(promiseThen, hostFetch(url, method, headers, body), [makeResponse]);
    } catch (error) {
      return PromiseType.reject(error);
    }
  }

  const module = { exports: {} };
  global.module = module;
  global.exports = module.exports;
  global.console = console;
  global.fetch = fetch;

  /** holder[key] when it is a function the script defined (not one inherited from Object or Function). */
  function pick(holder, key) {
    if (holder === null || (typeof holder !== 'object' && typeof holder !== 'function')) return undefined;
    const value = holder[key];
    if (typeof value !== 'function' || value === objectPrototype[key] || value === functionPrototype[key]) return undefined;
    return value;
  }

  function member(holder, key) {
    return holder === null || holder === undefined ? undefined : holder[key];
  }

  function encodeValue(value) {
    const json = stringify(value);
    if (json === undefined) return '{"kind":"value"}';
    if (json.length > maxResultChars) return '{"kind":"too-large"}';
    return '{"kind":"value","value":' + json + '}';
  }

  function encodeError(error) {
    let name = '';
    let message;
    try {
      if (error !== null && typeof error === 'object' && 'message' in error) {
        name = error.name === undefined ? '' : toText(error.name);
        message = toText(error.message);
      } else {
        message = show(error);
      }
    } catch (unprintable) {
      message = 'the script threw a value that cannot be printed';
    }
    if (message.length > maxLogChars) message = message.slice(0, maxLogChars);
    return stringify({ kind: 'error', name, message });
  }

  return async function run(kind, key, inputJson) {
    try {
      const input = parse(inputJson);
      const exported = module.exports;
      if (kind === 'event') {
        const events = member(exported, 'events');
        const handler = pick(events, key);
        if (handler === undefined) return '{"kind":"none"}';
        return encodeValue(await apply(handler, events, [input.event, input.context]));
      }
      const components = member(exported, 'components');
      const component = pick(components, key);
      if (component === undefined) return '{"kind":"none"}';
      const request = { props: input.props, state: input.state, context: input.context, action: input.action };
      return encodeValue(await apply(component, components, [request]));
    } catch (error) {
      return encodeError(error);
    }
  };
})`;
