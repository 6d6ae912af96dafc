/** HTTP calls of the benchmarks: JSON in and out, timed, with the bearer token. */
export interface Reply {
  status: number;
  body: unknown;
  headers: Headers;
  ms: number;
}

export async function call(
  method: string,
  url: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Reply> {
  const started = performance.now();
  const response = await fetch(url, {
    method,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed, headers: response.headers, ms };
}

export async function expectStatus(expected: number, reply: Promise<Reply>, what: string): Promise<Reply> {
  const answer = await reply;
  if (answer.status !== expected)
    throw new Error(`${what}: expected ${expected}, got ${answer.status} ${JSON.stringify(answer.body).slice(0, 2000)}`);
  return answer;
}

export function stringField(body: unknown, field: string, what: string): string {
  const value = (body as Record<string, unknown> | undefined)?.[field];
  if (typeof value !== 'string') throw new Error(`${what}: no ${field} in ${JSON.stringify(body).slice(0, 500)}`);
  return value;
}

/**
 * POST with `token` by default (`as` another caller's) to `baseUrl`: the answer's JSON body, or an
 * error naming the request when the status is not `status` (201 by default).
 */
export function poster(baseUrl: string, token: string) {
  return async (path: string, body: unknown, status = 201, as = token) =>
    (await expectStatus(status, call('POST', `${baseUrl}${path}`, { token: as, body }), `POST ${path}`)).body as Record<string, any>;
}
