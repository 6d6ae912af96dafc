import autocannon = require('autocannon');

/** autocannon's sample interval: how closely a run's length follows the seconds asked for. */
const SAMPLE_MS = 100;

export interface LoadOptions {
  url: string;
  connections: number;
  headers?: Record<string, string>;
  /** The request sequence of every connection (autocannon `requests`). */
  requests?: autocannon.Request[];
  /** Per connection (called with its index, counted from 0 in each run): its requests instead of `requests`. */
  requestsFor?: (connection: number) => autocannon.Request[];
  /** Called with every response (warm-up included). */
  onResponse?: (status: number, body: string) => void;
  /**
   * With `requestsFor`: the kinds of the request connection `connection` has in flight (e.g.
   * `write` and `write: page title`), asked when its response arrives; the result then holds
   * figures per kind (`byKind`), each response counted under every kind it has.
   */
  kindOf?: (connection: number) => readonly string[];
}

export interface LoadResult {
  /** Average: completed requests / measured seconds. */
  requestsPerSecond: number;
  /** Latency percentiles over every response of the measured runs (ms, sub-millisecond resolution). */
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  statusCodes: Record<string, number>;
  seconds: number;
  /** 2xx answers during the warm-up (not counted in the figures above). */
  warmup2xx: number;
  warmupFailures: number;
  /**
   * With `kindOf`: the same figures over each kind's responses (requests/s over the same seconds);
   * connection errors and timeouts cannot be told apart by kind, so `errors` is 0 there.
   */
  byKind?: Record<string, LoadResult>;
}

/** Latencies (ms) and status codes of some responses. */
class Responses {
  private values = new Float64Array(1 << 12);
  count = 0;
  readonly statusCodes: Record<string, number> = {};

  add(status: number, ms: number): void {
    this.push(ms);
    this.statusCodes[status] = (this.statusCodes[status] ?? 0) + 1;
  }

  /** Adds another's responses to these. */
  absorb(other: Responses): void {
    for (let i = 0; i < other.count; i++) this.push(other.values[i]);
    for (const [code, count] of Object.entries(other.statusCodes)) this.statusCodes[code] = (this.statusCodes[code] ?? 0) + count;
  }

  private push(ms: number): void {
    if (this.count === this.values.length) {
      const bigger = new Float64Array(this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.count++] = ms;
  }

  sorted(): Float64Array {
    return this.values.slice(0, this.count).sort();
  }
}

interface Run {
  result: autocannon.Result;
  latencies: Float64Array;
  byKind: Map<string, Responses>;
}

/**
 * One autocannon run of `seconds`. Latencies are collected from the `response` events: autocannon's
 * own histogram truncates them to whole milliseconds (too coarse for a sub-millisecond GET) and
 * leaves non-2xx answers out.
 */
function run(options: LoadOptions, seconds: number): Promise<Run> {
  const all = new Responses();
  const byKind = new Map<string, Responses>();
  const connectionOf = new Map<autocannon.Client, number>();
  let connection = 0;
  const { requestsFor, onResponse, kindOf } = options;
  const withHook = (requests: autocannon.Request[]) =>
    onResponse
      ? requests.map((request) => ({ ...request, onResponse: (status: number, body: string) => onResponse(status, body) }))
      : requests;
  return new Promise<Run>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        pipelining: 1,
        duration: seconds,
        // autocannon stops a run at its next sample, once a second by default: a 0.5 s slice ran 1 s
        // and a 1.5 s one 2 s. Sampling every 100 ms makes a run last what it is asked to (req/s
        // always divided by the time actually run, so figures were right, the bench's length not).
        sampleInt: SAMPLE_MS,
        headers: options.headers,
        requests: options.requests || onResponse ? withHook(options.requests ?? [{}]) : undefined,
        setupClient: requestsFor
          ? (client) => {
              connectionOf.set(client, connection);
              client.setRequests(withHook(requestsFor(connection++)));
            }
          : undefined,
      },
      (error: unknown, result: autocannon.Result) => {
        if (error) reject(error instanceof Error ? error : new Error(String(error)));
        else resolve({ result, latencies: all.sorted(), byKind });
      },
    );
    instance.on('response', (client: autocannon.Client, status: number, _bytes: number, responseTime: number) => {
      all.add(status, responseTime);
      if (!kindOf) return;
      // The 'response' event comes before the connection's next request is set up: its kind is still the answered one's.
      for (const kind of kindOf(connectionOf.get(client) ?? 0)) {
        let responses = byKind.get(kind);
        if (!responses) byKind.set(kind, (responses = new Responses()));
        responses.add(status, responseTime);
      }
    });
  });
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function combine(runs: Run[], warmup?: Run): LoadResult {
  const latencies = new Float64Array(runs.reduce((n, r) => n + r.latencies.length, 0));
  let offset = 0;
  for (const r of runs) {
    latencies.set(r.latencies, offset);
    offset += r.latencies.length;
  }
  latencies.sort();
  const statusCodes: Record<string, number> = {};
  for (const { result } of runs) {
    for (const [code, stats] of Object.entries(result.statusCodeStats ?? {}))
      statusCodes[code] = (statusCodes[code] ?? 0) + (stats.count ?? 0);
  }
  const sum = (pick: (result: autocannon.Result) => number) => runs.reduce((n, r) => n + pick(r.result), 0);
  const seconds = sum((r) => r.duration);
  const total = sum((r) => r.requests.total);
  const kinds = [...new Set(runs.flatMap((r) => [...r.byKind.keys()]))];
  return {
    requestsPerSecond: total / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    total,
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    statusCodes,
    seconds,
    warmup2xx: warmup?.result['2xx'] ?? 0,
    warmupFailures: warmup ? warmup.result.non2xx + warmup.result.errors : 0,
    ...(kinds.length > 0 ? { byKind: Object.fromEntries(kinds.map((kind) => [kind, ofKind(runs, kind, seconds)])) } : {}),
  };
}

/** The figures of one kind's responses over the runs' `seconds`. */
function ofKind(runs: Run[], kind: string, seconds: number): LoadResult {
  const merged = new Responses();
  for (const r of runs) {
    const responses = r.byKind.get(kind);
    if (responses) merged.absorb(responses);
  }
  const latencies = merged.sorted();
  const non2xx = Object.entries(merged.statusCodes).reduce((n, [code, count]) => (code.startsWith('2') ? n : n + count), 0);
  return {
    requestsPerSecond: merged.count / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    total: merged.count,
    non2xx,
    errors: 0,
    statusCodes: merged.statusCodes,
    seconds,
    warmup2xx: 0,
    warmupFailures: 0,
  };
}

/** A warm-up run of `warmupSeconds` (reported apart), then the measured run of `seconds`. */
export async function load(options: LoadOptions, seconds: number, warmupSeconds: number): Promise<LoadResult> {
  const warmup = warmupSeconds > 0 ? await run(options, warmupSeconds) : undefined;
  return combine([await run(options, seconds)], warmup);
}

/**
 * Several targets compared under the same conditions: each warmed up, then measured in `rounds`
 * alternating slices of `seconds / rounds` (A B A B …), so that a change in the machine's load
 * during the benchmark (other processes on shared cores) affects them alike.
 */
export async function loadInterleaved(
  targets: LoadOptions[],
  seconds: number,
  warmupSeconds: number,
  rounds: number,
): Promise<LoadResult[]> {
  const warmups: (Run | undefined)[] = [];
  for (const target of targets) warmups.push(warmupSeconds > 0 ? await run(target, warmupSeconds) : undefined);
  const runs: Run[][] = targets.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, target] of targets.entries()) runs[i].push(await run(target, seconds / rounds));
  }
  return targets.map((_, i) => combine(runs[i], warmups[i]));
}
