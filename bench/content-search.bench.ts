/**
 * Space search: which in-memory full-text library the content context's search index
 * (libs/content/src/search/space-search-index.ts) is built on, chosen by measurement.
 *
 * A deterministic 10,000-page space is generated: English-like text drawn from a Zipf distribution
 * over function words, technical word families (install, installs, installation, ...) and
 * syllable-made words, ~300 words per page in 3-6 heading sections, with titles and descriptions.
 * Sections are the indexed documents, as in the service (page title, section title, description, body).
 *
 * For each engine: index build time, heap growth (after GC when run with --expose-gc), latency
 * p50/p99/max over ~500 queries (single words, two words, prefixes, one-typo words; measured after
 * a warm-up pass), the CPU time of build and queries (on a busy machine, wall time includes waiting
 * for a core, CPU time is what the work itself costs; targets are judged on wall time), and whether
 * the top 10 sections hold what each query meant: a section with the word, with both words, with a
 * word starting with the prefix, with the word the typo misspells.
 * A fast engine that does not find `instalation` fails the requirement however fast it is, so the
 * hit rates are part of the choice. Hostile queries (512 letters, regex metacharacters, 16
 * one-letter terms, ...) are timed apart: each after a first run, the median of 5 runs, the worst
 * query reported.
 *
 * Engines, configured as the service needs them (prefix and typo tolerance, AND then OR when AND
 * finds nothing), each given the service's query terms (normalized, deduplicated, at most 16):
 * - service: the service's index (SpaceSearchIndex), called as the API calls it;
 * - MiniSearch 7 as a whole: prefix on every term, fuzzy 0.2 (max edit distance 2) on terms of 4+
 *   characters, BM25 with the service's field boosts;
 * - FlexSearch 0.8 "forward": prefix tokenizer with the LatinBalance phonetic encoder;
 * - FlexSearch 0.8 "tolerant": the typo-tolerant tokenizer (swapped/missing letters). FlexSearch has
 *   one tokenizer per field, so prefix and typo tolerance cannot be had together; its OR is `suggest`.
 *
 * Targets: build < 3 s, p99 < 20 ms for a 10,000-page space.
 *
 * Run: node scripts/build.js && node --expose-gc dist/bench/content-search.bench.js
 * (or, leaving dist/ alone: npx tsc -p tsconfig.build.json --outDir /tmp/build &&
 * NODE_PATH=node_modules node --expose-gc /tmp/build/bench/content-search.bench.js)
 * Environment: BENCH_PAGES (10000), BENCH_QUERIES (500), BENCH_SEED (1), BENCH_ENGINES (all:
 * service,minisearch,flexsearch-forward,flexsearch-tolerant).
 */
import { Charset, Document as FlexDocument } from 'flexsearch';
import MiniSearch from 'minisearch';
import { queryTerms, SpaceSearchIndex, type SearchablePage } from '#content';
import { positiveInteger, seededRandom } from './support/settings';

const PAGES = positiveInteger('BENCH_PAGES', 10_000);
const QUERIES = positiveInteger('BENCH_QUERIES', 500);
const SEED = positiveInteger('BENCH_SEED', 1);
const WARMUP_QUERIES = 50;
const HOSTILE_RUNS = 5;
/** How many results a hit rate looks at: a search page shows about this many. */
const TOP = 10;
const TARGET_BUILD_MS = 3000;
const TARGET_P99_MS = 20;

/** A type, not an interface: FlexSearch's Document wants an index-signature-compatible shape. */
type BenchSection = {
  id: number;
  page: number;
  pageTitle: string;
  sectionTitle: string;
  description: string;
  body: string;
};

type QueryKind = 'word' | 'two words' | 'prefix' | 'typo';
const QUERY_KINDS: QueryKind[] = ['word', 'two words', 'prefix', 'typo'];

interface BenchQuery {
  kind: QueryKind;
  text: string;
  /** What a section must contain for the query to count as answered. */
  expects: RegExp;
}

interface Engine {
  name: string;
  build(sections: BenchSection[]): void;
  /** Section ids, best first (only the first TOP are looked at). */
  search(query: string): number[];
}

// ---------------------------------------------------------------------------------------------
// Deterministic corpus

const FUNCTION_WORDS = (
  'the of and to a in is you that it for on with as are this be can by or from an your not will if when use ' +
  'at all each which more has have was one we they their its but also then only into other than some any may ' +
  'how what where there these those must should would could about after before over under new first same ' +
  'so do does see set get make need each every most many such both through while without between'
).split(' ');

const TECHNICAL_STEMS = (
  'install configur authenticat deploy server client request respons databas token permission ' +
  'organiz workspac integrat publish document comment revision merg branch synchroniz export import ' +
  'search index navigat translat access session webhook endpoint schema validat migrat backup restor ' +
  'monitor alert metric log cache queue event stream project collect attach upload download render ' +
  'format customiz theme domain certificat encrypt secret credential invit member role billing ' +
  'subscript notif schedul retr timeout connect network proxy gateway cluster contain imag volum ' +
  'environment variabl depend packag librar framework compil build test debug profil optimiz'
).split(' ');
const TECHNICAL_SUFFIXES = ['e', 'es', 'ed', 'ing', 'ation', 'ations', 'er', 'ers', 'able', 'ment'];

/** Syllable-made words: a vocabulary as large as a real documentation space's, with no real-word bias. */
function syntheticWords(random: () => number, count: number, exclude: Set<string>): string[] {
  const onsets = [
    'b',
    'c',
    'd',
    'f',
    'g',
    'h',
    'k',
    'l',
    'm',
    'n',
    'p',
    'r',
    's',
    't',
    'v',
    'w',
    'z',
    'br',
    'cr',
    'dr',
    'fl',
    'gr',
    'pl',
    'pr',
    'sh',
    'st',
    'th',
    'tr',
    'ch',
  ];
  const vowels = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'ou', 'io'];
  const codas = ['', '', '', 'n', 'r', 's', 't', 'l', 'm', 'nd', 'st', 'ck'];
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];
  const words = new Set<string>();
  while (words.size < count) {
    const syllables = 2 + Math.floor(random() * 3);
    let word = '';
    for (let s = 0; s < syllables; s++) word += pick(onsets) + pick(vowels) + (s === syllables - 1 ? pick(codas) : '');
    if (!exclude.has(word)) words.add(word);
  }
  return [...words];
}

/** Vocabulary in rank order: function words first, then technical and synthetic words shuffled together. */
function vocabulary(random: () => number): string[] {
  const technical = TECHNICAL_STEMS.flatMap((stem) => TECHNICAL_SUFFIXES.map((suffix) => stem + suffix));
  const known = new Set([...FUNCTION_WORDS, ...technical]);
  const content = [...technical, ...syntheticWords(random, 30_000, known)];
  for (let i = content.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [content[i], content[j]] = [content[j], content[i]];
  }
  return [...new Set([...FUNCTION_WORDS, ...content])];
}

/** Draws words with Zipf frequencies (s = 1), as natural text does. */
function zipfSampler(words: string[], random: () => number): () => string {
  const cumulative = new Float64Array(words.length);
  let total = 0;
  for (let rank = 0; rank < words.length; rank++) cumulative[rank] = total += 1 / (rank + 2);
  return () => {
    const target = random() * total;
    let low = 0;
    let high = words.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (cumulative[middle] < target) low = middle + 1;
      else high = middle;
    }
    return words[low];
  };
}

function capitalized(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function generateSpace(pageCount: number, random: () => number, words: string[]): BenchSection[] {
  const word = zipfSampler(words, random);
  const contentWord = zipfSampler(words.slice(FUNCTION_WORDS.length), random);
  const between = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const phrase = (min: number, max: number) =>
    Array.from({ length: between(min, max) }, () => contentWord())
      .map(capitalized)
      .join(' ');
  const sentence = () => {
    const parts = Array.from({ length: between(6, 18) }, () => word());
    if (parts.length > 10 && random() < 0.3) parts[between(3, parts.length - 3)] += ',';
    return capitalized(parts.join(' ')) + '.';
  };
  const text = (wordCount: number) => {
    const sentences: string[] = [];
    for (let written = 0; written < wordCount;) {
      const next = sentence();
      sentences.push(next);
      written += next.split(' ').length;
    }
    return sentences.join(' ');
  };
  const sections: BenchSection[] = [];
  for (let page = 0; page < pageCount; page++) {
    const pageTitle = phrase(2, 6);
    const description = text(between(10, 25));
    const sectionCount = between(3, 6);
    const wordsPerSection = Math.round(between(240, 360) / sectionCount);
    for (let s = 0; s < sectionCount; s++) {
      // The description is the page's: carried (and indexed) by its first section only, as the service does.
      sections.push({
        id: sections.length,
        page,
        pageTitle,
        sectionTitle: phrase(2, 5),
        description: s === 0 ? description : '',
        body: text(wordsPerSection),
      });
    }
  }
  return sections;
}

function generateQueries(count: number, random: () => number, sections: BenchSection[], words: string[]): BenchQuery[] {
  const known = new Set(words);
  const functionWords = new Set(FUNCTION_WORDS);
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const letter = () => letters[Math.floor(random() * letters.length)];
  const whole = (word: string) => new RegExp(`\\b${word}\\b`);
  /** Content words of a random section, as a reader would pick them from a page they remember. */
  const contentWords = (minLength: number): string[] => {
    for (;;) {
      const section = sections[Math.floor(random() * sections.length)];
      const candidates = section.body
        .toLowerCase()
        .split(/[^a-z]+/)
        .filter((w) => w.length >= minLength && !functionWords.has(w));
      if (candidates.length >= 2) return candidates;
    }
  };
  const pick = (items: string[]) => items[Math.floor(random() * items.length)];
  /** One edit (substitution, deletion, insertion, transposition) after the first letter, giving a non-word. */
  const misspelled = (word: string): string => {
    for (;;) {
      const at = 1 + Math.floor(random() * (word.length - 1));
      const edit = Math.floor(random() * 4);
      let typo: string;
      if (edit === 0) typo = word.slice(0, at) + letter() + word.slice(at + 1);
      else if (edit === 1) typo = word.slice(0, at) + word.slice(at + 1);
      else if (edit === 2) typo = word.slice(0, at) + letter() + word.slice(at);
      else typo = at < word.length - 1 ? word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2) : word;
      if (typo !== word && !known.has(typo)) return typo;
    }
  };
  const queries: BenchQuery[] = [];
  for (let i = 0; i < count; i++) {
    const kind = QUERY_KINDS[i % QUERY_KINDS.length];
    if (kind === 'word') {
      const word = pick(contentWords(3));
      queries.push({ kind, text: word, expects: whole(word) });
    } else if (kind === 'two words') {
      const candidates = contentWords(3);
      const first = pick(candidates);
      const others = candidates.filter((w) => w !== first);
      const second = others.length > 0 ? pick(others) : first;
      queries.push({ kind, text: `${first} ${second}`, expects: new RegExp(`(?=[^]*\\b${first}\\b)(?=[^]*\\b${second}\\b)`) });
    } else if (kind === 'prefix') {
      const word = pick(contentWords(6));
      const prefix = word.slice(0, 3 + Math.floor(random() * 3));
      queries.push({ kind, text: prefix, expects: new RegExp(`\\b${prefix}`) });
    } else {
      const word = pick(contentWords(5));
      queries.push({ kind, text: misspelled(word), expects: whole(word) });
    }
  }
  return queries;
}

const HOSTILE_QUERIES = [
  'a'.repeat(512),
  '.*+?^${}()|[]\\/'.repeat(34).slice(0, 512),
  'a b c d e f g h i j k l m n o p q r s t u v w x y z',
  'ab '.repeat(170),
  Array.from({ length: 64 }, (_, i) => `word${i}`).join(' '),
];

// ---------------------------------------------------------------------------------------------
// Engines

/** Same normalization as the service: diacritics folded, lower case, terms capped at 64 characters. */
function normalizedTerm(term: string): string | null {
  const folded = term
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .slice(0, 64);
  return folded.length > 0 ? folded : null;
}

function miniSearchEngine(): Engine {
  const index = new MiniSearch<BenchSection>({
    fields: ['pageTitle', 'sectionTitle', 'description', 'body'],
    processTerm: normalizedTerm,
    searchOptions: {
      boost: { pageTitle: 4, sectionTitle: 2, description: 1.5, body: 1 },
      prefix: true,
      fuzzy: (term) => (term.length >= 4 ? 0.2 : false),
      maxFuzzy: 2,
    },
  });
  return {
    name: 'MiniSearch 7.2 (prefix+fuzzy, BM25)',
    build: (sections) => index.addAll(sections),
    search: (query) => {
      const terms = queryTerms(query).join(' ');
      const all = index.search(terms, { combineWith: 'AND' });
      const results = all.length > 0 ? all : index.search(terms, { combineWith: 'OR' });
      return results.slice(0, TOP).map((result) => result.id as number);
    },
  };
}

/** The service's index: MiniSearch's radix tree for prefix and typo matching, its own postings and BM25. */
function spaceSearchIndexEngine(sections: BenchSection[]): Engine {
  // Pages are assembled before the clock starts: the service receives pages, not sections.
  const pages: SearchablePage[] = [];
  const sectionIds = new Map<string, number>();
  for (const section of sections) {
    if (pages.length === section.page) {
      pages.push({
        id: `page-${section.page}`,
        title: section.pageTitle,
        path: `/page-${section.page}`,
        description: section.description,
        sections: [],
      });
    }
    const sectionId = `section-${section.id}`;
    pages[section.page].sections.push({ id: sectionId, title: section.sectionTitle, body: section.body });
    sectionIds.set(sectionId, section.id);
  }
  let index = new SpaceSearchIndex();
  return {
    name: 'SpaceSearchIndex (service: radix tree + BM25)',
    build: () => {
      index = SpaceSearchIndex.build(pages);
    },
    // As the API calls it (default limit: the pages it pages through); sections in the order a reader
    // sees them: pages by rank, each page's sections by score.
    search: (query) =>
      index
        .search(query)
        .flatMap((page) => page.sections.map((section) => sectionIds.get(section.id)!))
        .slice(0, TOP),
  };
}

function flexSearchEngine(tokenize: 'forward' | 'tolerant'): Engine {
  const field = (name: keyof BenchSection) => ({ field: name, tokenize, encoder: Charset.LatinBalance });
  const index = new FlexDocument<BenchSection>({
    document: { id: 'id', index: [field('pageTitle'), field('sectionTitle'), field('description'), field('body')] },
  });
  return {
    name: `FlexSearch 0.8 (${tokenize}, LatinBalance)`,
    build: (sections) => {
      for (const section of sections) index.add(section);
    },
    search: (query) => {
      const terms = queryTerms(query).join(' ');
      const all = index.search(terms, { limit: TOP, merge: true });
      const results = all.length > 0 ? all : index.search(terms, { limit: TOP, suggest: true, merge: true });
      return results.map((result) => result.id as number);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Measurement

interface Measured {
  name: string;
  buildMs: number;
  buildCpuMs: number;
  heapBytes: number | null;
  latencies: number[];
  /** CPU time of each query (this process): what the query costs, without the waits of a busy machine. */
  cpuTimes: number[];
  hitRate: Map<QueryKind, number>;
  hostileMaxMs: number;
}

function heapAfterGc(): number | null {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return null;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))];
}

function measure(engine: Engine, sections: BenchSection[], queries: BenchQuery[], haystack: (id: number) => string): Measured {
  const heapBefore = heapAfterGc();
  const buildStarted = performance.now();
  const buildCpuStarted = process.cpuUsage();
  engine.build(sections);
  const buildCpu = process.cpuUsage(buildCpuStarted);
  const buildMs = performance.now() - buildStarted;
  const heapAfter = heapAfterGc();

  for (const query of queries.slice(0, WARMUP_QUERIES)) engine.search(query.text);
  const latencies: number[] = [];
  const cpuTimes: number[] = [];
  const answered = new Map<QueryKind, { hits: number; total: number }>(QUERY_KINDS.map((kind) => [kind, { hits: 0, total: 0 }]));
  for (const query of queries) {
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    const ids = engine.search(query.text);
    const cpu = process.cpuUsage(cpuStarted);
    latencies.push(performance.now() - started);
    cpuTimes.push((cpu.user + cpu.system) / 1000);
    const tally = answered.get(query.kind)!;
    tally.total++;
    if (ids.slice(0, TOP).some((id) => query.expects.test(haystack(id)))) tally.hits++;
  }
  // Each hostile query's steady cost: a first run compiles the code paths ordinary queries do not
  // take (unless it takes over a second: then it is the figure), then the median of a few runs
  // (the query's cost, not a GC pause's). The worst query is reported.
  let hostileMaxMs = 0;
  for (const query of HOSTILE_QUERIES) {
    const timed = () => {
      const started = performance.now();
      engine.search(query);
      return performance.now() - started;
    };
    const first = timed();
    const runs = first > 1000 ? [first] : Array.from({ length: HOSTILE_RUNS }, timed).sort((a, b) => a - b);
    hostileMaxMs = Math.max(hostileMaxMs, runs[Math.floor(runs.length / 2)]);
  }
  return {
    name: engine.name,
    buildMs,
    buildCpuMs: (buildCpu.user + buildCpu.system) / 1000,
    heapBytes: heapBefore === null || heapAfter === null ? null : heapAfter - heapBefore,
    latencies: latencies.sort((a, b) => a - b),
    cpuTimes: cpuTimes.sort((a, b) => a - b),
    hitRate: new Map([...answered].map(([kind, { hits, total }]) => [kind, total === 0 ? 0 : hits / total])),
    hostileMaxMs,
  };
}

function milliseconds(value: number): string {
  return value < 10 ? `${value.toFixed(2)} ms` : `${value.toFixed(1)} ms`;
}

function printTable(results: Measured[]): void {
  const header = [
    'engine',
    'build',
    'build cpu',
    'heap',
    'p50',
    'p99',
    'max',
    'p99 cpu',
    ...QUERY_KINDS.map((kind) => `${kind} hit`),
    'hostile max',
    'targets',
  ];
  const rows = results.map((result) => {
    const p99 = percentile(result.latencies, 0.99);
    const missed = [result.buildMs > TARGET_BUILD_MS ? 'build' : '', p99 > TARGET_P99_MS ? 'p99' : ''].filter(Boolean);
    return [
      result.name,
      `${(result.buildMs / 1000).toFixed(2)} s`,
      `${(result.buildCpuMs / 1000).toFixed(2)} s`,
      result.heapBytes === null ? 'n/a' : `${Math.round(result.heapBytes / 1024 / 1024)} MB`,
      milliseconds(percentile(result.latencies, 0.5)),
      milliseconds(p99),
      milliseconds(result.latencies[result.latencies.length - 1]),
      milliseconds(percentile(result.cpuTimes, 0.99)),
      ...QUERY_KINDS.map((kind) => `${Math.round(result.hitRate.get(kind)! * 100)}%`),
      milliseconds(result.hostileMaxMs),
      missed.length === 0 ? 'met' : `MISSED ${missed.join(', ')}`,
    ];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) =>
    cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
}

function main(): void {
  const random = seededRandom(SEED);
  const words = vocabulary(random);
  const sections = generateSpace(PAGES, random, words);
  const queries = generateQueries(QUERIES, random, sections, words);
  const haystacks = new Map<number, string>();
  const haystack = (id: number) => {
    let text = haystacks.get(id);
    if (text === undefined) {
      const section = sections[id];
      text = [section.pageTitle, section.sectionTitle, section.description, section.body].join(' ').toLowerCase();
      haystacks.set(id, text);
    }
    return text;
  };
  const wordCount = sections.reduce((sum, section) => sum + section.body.split(' ').length, 0);
  console.log(
    `\nbench:content-search  (node ${process.version}, ${PAGES.toLocaleString('en-US')} pages, ` +
      `${sections.length.toLocaleString('en-US')} sections, ${(wordCount / 1e6).toFixed(1)}M body words, ` +
      `${queries.length} queries after ${WARMUP_QUERIES} warm-up, hit = expected section in the top ${TOP})`,
  );
  if (heapAfterGc() === null) console.log('heap growth needs --expose-gc');
  console.log(`targets: build < ${TARGET_BUILD_MS / 1000} s, p99 < ${TARGET_P99_MS} ms\n`);

  const factories: Record<string, () => Engine> = {
    service: () => spaceSearchIndexEngine(sections),
    minisearch: miniSearchEngine,
    'flexsearch-forward': () => flexSearchEngine('forward'),
    'flexsearch-tolerant': () => flexSearchEngine('tolerant'),
  };
  const chosen = (process.env.BENCH_ENGINES ?? Object.keys(factories).join(',')).split(',');
  const results: Measured[] = [];
  // One engine at a time, each released before the next, so that heap growth is its own.
  for (const name of chosen) {
    const factory = factories[name.trim()];
    if (factory === undefined) throw new Error(`BENCH_ENGINES: unknown engine ${name}; known: ${Object.keys(factories).join(', ')}`);
    results.push(measure(factory(), sections, queries, haystack));
  }
  printTable(results);
}

if (require.main === module) main();
