import SearchableMap from 'minisearch/SearchableMap';
import { firstMatchOffset, snippet, tokenize } from './text';

/**
 * Full-text search over one revision of a space: ranked pages, each with its best sections.
 *
 * Sections are the indexed documents (fields: page title, section title, page description, body),
 * grouped back into pages at query time. Typo tolerance is MiniSearch's: its radix tree
 * (`minisearch/SearchableMap`) finds the indexed terms within an edit distance of a query term. The
 * postings, the prefix lookup and the ranking (BM25 per field with field boosts, as MiniSearch ranks)
 * are kept here rather than in a full MiniSearch index, because a full index misses both targets on a
 * 10,000-page space (build under 3 s, p99 under 20 ms): it builds in 10-13 s, and answers a short
 * prefix by scoring and sorting every matching section, 50-75 ms at p99, with no bound on what a
 * hostile query costs (seconds). Flat postings, a sorted term list and scoring into reused arrays
 * meet both targets (bench/content-search.bench.ts measures every candidate).
 *
 * Queries: terms are normalized as indexed text (lower case, diacritics folded), deduplicated and
 * capped at MAX_QUERY_TERMS. Every term matches as a prefix, terms of 4+ characters also with one edit
 * per 5 characters (at most 2). Sections must match every term (AND); when none does, sections
 * matching any term are ranked by how many terms they match (OR fallback). A query term's expansions
 * (prefix and typo matches) are scored closest first within a budget of postings, which keeps hostile
 * queries (`a b c d …`, 512 times the same letter) about as cheap as ordinary ones.
 */

export interface SearchableSection {
  /** Heading anchor; empty for the text before the first heading. */
  id: string;
  title: string;
  /** Plain text. */
  body: string;
}

export interface SearchablePage {
  id: string;
  title: string;
  path: string;
  description?: string;
  /** Pages hidden from search are not indexed at all. */
  noIndex?: boolean;
  sections: SearchableSection[];
}

export interface SectionHit {
  id: string;
  title: string;
  /** The page path, plus `#` and the section id when the section has one. */
  path: string;
  /** A snippet around the first match (at most SNIPPET_LENGTH characters), not the whole section. */
  body: string;
  score: number;
}

export interface PageHit {
  id: string;
  title: string;
  path: string;
  description?: string;
  score: number;
  /** 1-based position in the results. */
  rank: number;
  sections: SectionHit[];
}

export interface SpaceSearchOptions {
  /** Pages to return: DEFAULT_LIMIT when absent, clamped to 1..MAX_LIMIT. */
  limit?: number;
}

/** Callers page through one search's hits: the default covers several pages of a result list. */
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 500;
export const MAX_QUERY_TERMS = 16;
/** Sections listed under a page hit: enough to choose from without listing a long page entirely. */
export const MAX_SECTIONS_PER_PAGE = 3;
/** Longer input is cut before tokenizing (the API already refuses queries over 512 characters). */
const MAX_QUERY_LENGTH = 1024;

/** Fields of an indexed section, body first: most postings are body-only, and scoring stops at the last field present. */
const BODY = 0;
const SECTION_TITLE = 1;
const DESCRIPTION = 2;
const PAGE_TITLE = 3;
const FIELD_COUNT = 4;
/** A page-title match must outrank a body match: readers expect the page named after their query first. */
const FIELD_BOOSTS = [1, 2, 1.5, 4];

/** Term frequencies of the four fields packed in one small integer, 6 bits each (BM25 saturates long before 63). */
const FREQUENCY_BITS = 6;
const MAX_FREQUENCY = (1 << FREQUENCY_BITS) - 1;

/** BM25 parameters: the usual k1, and a length normalization slightly below the usual 0.75 (sections are short). */
const K1 = 1.2;
const B = 0.7;

const PREFIX_WEIGHT = 0.5;
const FUZZY_WEIGHT = 0.45;
const FUZZY_MIN_LENGTH = 4;
const FUZZY_FRACTION = 0.2;
const MAX_EDIT_DISTANCE = 2;
/**
 * Postings one query may score (see plan): about 5 ms of scoring. A word in every section of a
 * 10,000-page space is 45,000 postings; a short prefix's closest matches fill the rest.
 */
const QUERY_POSTINGS_BUDGET = 150_000;

/** Removed sections leave dead postings behind; past this share of all postings they are swept. */
const DEAD_POSTINGS_RATIO = 0.25;
const MIN_DEAD_POSTINGS_TO_COMPACT = 1024;

interface TermPostings {
  /** Section slots, ascending. */
  slots: number[];
  /** Per slot, the packed per-field term frequencies. */
  frequencies: number[];
  /** Postings whose section is still indexed: the term's document frequency. */
  live: number;
  /** The slot being indexed, and the packed frequencies gathered for it so far. */
  pendingSlot: number;
  pending: number;
}

interface IndexedPage {
  page: SearchablePage;
  slots: number[];
  /** Scratch space of a search ranking pages; 0 otherwise. */
  bestScore: number;
}

interface SectionSlot {
  page: IndexedPage;
  /** Index in `page.sections`; -1 for the stand-in section of a page without sections. */
  section: number;
}

interface Expansion {
  term: string;
  postings: TermPostings;
  weight: number;
}

export class SpaceSearchIndex {
  /** Exact lookups; the radix tree below holds the same postings for typo-tolerant lookups. */
  private readonly postingsByTerm = new Map<string, TermPostings>();
  private readonly dictionary = new SearchableMap<TermPostings>();
  private readonly pages = new Map<string, IndexedPage>();
  /** Section slots; undefined once the section is removed, until the next compaction renumbers them. */
  private slots: Array<SectionSlot | undefined> = [];
  /** FIELD_COUNT term counts per slot. */
  private fieldLengths: number[] = [];
  private readonly totalFieldLength = new Array<number>(FIELD_COUNT).fill(0);
  /** Live sections with a non-empty field, per field: the average length ignores sections without it. */
  private readonly sectionsWithField = new Array<number>(FIELD_COUNT).fill(0);
  /** Every indexed term in code-unit order, so that a prefix's terms are one contiguous run; null while a build adds terms. */
  private sortedTerms: string[] | null = null;
  private liveSections = 0;
  private totalPostings = 0;
  private deadPostings = 0;
  /** Scoring scratch space, reused by every search (searches are synchronous, so never shared). */
  private termScores = new Float64Array(0);
  private totalScores = new Float64Array(0);
  private matchedTerms = new Uint8Array(0);
  /** 1 where a section's body matched: only those bodies are searched for a snippet's match. */
  private bodyMatched = new Uint8Array(0);

  static build(pages: Iterable<SearchablePage>): SpaceSearchIndex {
    const index = new SpaceSearchIndex();
    for (const page of pages) index.upsert(page);
    // Sorted once, at the end: later upserts insert their new terms in place.
    index.sortedTerms = [...index.postingsByTerm.keys()].sort();
    return index;
  }

  /** Indexed pages. */
  get size(): number {
    return this.pages.size;
  }

  /** Indexed sections: what a cache of indexes weighs them by. */
  get sectionCount(): number {
    return this.liveSections;
  }

  /** Indexes `page`, replacing what was indexed under its id; a `noIndex` page is removed instead. */
  upsert(page: SearchablePage): void {
    this.removeSections(page.id);
    if (page.noIndex) {
      this.compactIfWorthIt();
      return;
    }
    // A copy: removal finds a section's terms again from its text, which must be the text indexed.
    const indexed: IndexedPage = { page: { ...page, sections: page.sections.map((section) => ({ ...section })) }, slots: [], bestScore: 0 };
    this.pages.set(page.id, indexed);
    const titleTerms = tokenize(page.title);
    const descriptionTerms = page.description ? tokenize(page.description) : [];
    if (page.sections.length === 0) {
      // A page without sections is still found by its title and description.
      this.addSection(indexed, -1, sectionFields([], [], descriptionTerms, titleTerms));
    }
    page.sections.forEach((section, position) => {
      // The description describes the page: indexed once, with its first section, not repeated on every one.
      this.addSection(
        indexed,
        position,
        sectionFields(tokenize(section.body), tokenize(section.title), position === 0 ? descriptionTerms : [], titleTerms),
      );
    });
    this.compactIfWorthIt();
  }

  remove(pageId: string): void {
    this.removeSections(pageId);
    this.compactIfWorthIt();
  }

  search(query: string, options: SpaceSearchOptions = {}): PageHit[] {
    const limit = Math.min(MAX_LIMIT, Math.max(1, Math.floor(options.limit ?? DEFAULT_LIMIT)));
    const terms = queryTerms(query);
    if (terms.length === 0 || this.liveSections === 0) return [];
    const { expansions, required } = this.plan(terms);
    const touched = this.scoreSections(expansions);
    try {
      const highlighted = new Set(expansions.flatMap((forTerm) => forTerm.map((expansion) => expansion.term)));
      return this.topPages(touched, required, limit, highlighted);
    } finally {
      for (const slot of touched) {
        this.totalScores[slot] = 0;
        this.matchedTerms[slot] = 0;
        this.bodyMatched[slot] = 0;
      }
    }
  }

  /** `fields`: the section's terms, field by field (see sectionFields). */
  private addSection(page: IndexedPage, section: number, fields: string[][]): void {
    const slot = this.slots.length;
    this.slots.push({ page, section });
    page.slots.push(slot);
    // One map lookup per term occurrence (the cost of indexing): the section's frequencies are
    // gathered on the postings themselves, then appended once per distinct term.
    const inSection: TermPostings[] = [];
    fields.forEach((terms, field) => {
      this.fieldLengths.push(terms.length);
      this.totalFieldLength[field] += terms.length;
      if (terms.length > 0) this.sectionsWithField[field]++;
      const shift = field * FREQUENCY_BITS;
      for (const term of terms) {
        let postings = this.postingsByTerm.get(term);
        if (postings === undefined) {
          postings = { slots: [], frequencies: [], live: 0, pendingSlot: -1, pending: 0 };
          this.postingsByTerm.set(term, postings);
          this.dictionary.set(term, postings);
          this.sortedTerms?.splice(lowerBound(this.sortedTerms, term), 0, term);
        }
        if (postings.pendingSlot !== slot) {
          postings.pendingSlot = slot;
          postings.pending = 0;
          inSection.push(postings);
        }
        if (((postings.pending >>> shift) & MAX_FREQUENCY) < MAX_FREQUENCY) postings.pending += 1 << shift;
      }
    });
    for (const postings of inSection) {
      postings.slots.push(slot);
      postings.frequencies.push(postings.pending);
      postings.live++;
    }
    this.totalPostings += inSection.length;
    this.liveSections++;
  }

  private removeSections(pageId: string): void {
    const indexed = this.pages.get(pageId);
    if (indexed === undefined) return;
    this.pages.delete(pageId);
    const { page } = indexed;
    const titleTerms = tokenize(page.title);
    for (const slot of indexed.slots) {
      const { section } = this.slots[slot]!;
      this.slots[slot] = undefined;
      this.liveSections--;
      for (let field = 0; field < FIELD_COUNT; field++) {
        const length = this.fieldLengths[slot * FIELD_COUNT + field];
        this.totalFieldLength[field] -= length;
        if (length > 0) this.sectionsWithField[field]--;
      }
      // The section's terms, found again from its text: cheaper than keeping them all in memory.
      const terms = new Set(titleTerms);
      if (section >= 0) {
        for (const term of tokenize(page.sections[section].title)) terms.add(term);
        for (const term of tokenize(page.sections[section].body)) terms.add(term);
      }
      if (section <= 0 && page.description) for (const term of tokenize(page.description)) terms.add(term);
      for (const term of terms) this.postingsByTerm.get(term)!.live--;
      this.deadPostings += terms.size;
    }
  }

  /** Drops dead postings and renumbers slots densely, once enough sections were removed to be worth a pass. */
  private compactIfWorthIt(): void {
    if (this.deadPostings < MIN_DEAD_POSTINGS_TO_COMPACT || this.deadPostings < this.totalPostings * DEAD_POSTINGS_RATIO) return;
    const renumbered = new Int32Array(this.slots.length).fill(-1);
    const slots: SectionSlot[] = [];
    const fieldLengths: number[] = [];
    this.slots.forEach((slot, old) => {
      if (slot === undefined) return;
      renumbered[old] = slots.length;
      slots.push(slot);
      for (let field = 0; field < FIELD_COUNT; field++) fieldLengths.push(this.fieldLengths[old * FIELD_COUNT + field]);
    });
    for (const indexed of this.pages.values()) indexed.slots = indexed.slots.map((old) => renumbered[old]);
    for (const [term, postings] of this.postingsByTerm) {
      if (postings.live === 0) {
        this.postingsByTerm.delete(term);
        this.dictionary.delete(term);
        continue;
      }
      const kept = { slots: [] as number[], frequencies: [] as number[] };
      postings.slots.forEach((old, i) => {
        if (renumbered[old] < 0) return;
        kept.slots.push(renumbered[old]);
        kept.frequencies.push(postings.frequencies[i]);
      });
      // Mutated in place: the dictionary holds the same object.
      postings.slots = kept.slots;
      postings.frequencies = kept.frequencies;
      // Slot numbers are reused from here on: a stale pending slot would swallow a new section's first occurrence.
      postings.pendingSlot = -1;
    }
    this.sortedTerms = this.sortedTerms?.filter((term) => this.postingsByTerm.has(term)) ?? null;
    this.slots = slots;
    this.fieldLengths = fieldLengths;
    this.totalPostings -= this.deadPostings;
    this.deadPostings = 0;
  }

  /**
   * What each query term is scored by, within QUERY_POSTINGS_BUDGET postings: first the terms as
   * typed, rarest first (the rarest always, however common); then, sharing what is left, each term's
   * prefix and typo matches. A term left with nothing because the budget ran out (a word in nearly
   * every section, a lone letter) is not required by AND: it would select nothing anyway. A term
   * matching nothing indexed is required, so that AND fails and the OR fallback answers.
   */
  private plan(terms: string[]): { expansions: Expansion[][]; required: number } {
    const exact = terms.map((term) => {
      const postings = this.postingsByTerm.get(term);
      return postings !== undefined && postings.live > 0 ? postings : undefined;
    });
    const expansions: Expansion[][] = terms.map(() => []);
    let spent = 0;
    const rarestFirst = terms
      .map((_, i) => i)
      .filter((i) => exact[i] !== undefined)
      .sort((a, b) => exact[a]!.slots.length - exact[b]!.slots.length);
    for (const i of rarestFirst) {
      const postings = exact[i]!;
      if (spent > 0 && spent + postings.slots.length > QUERY_POSTINGS_BUDGET) break;
      spent += postings.slots.length;
      expansions[i].push({ term: terms[i], postings, weight: 1 });
    }
    const budgetPerTerm = Math.max(0, QUERY_POSTINGS_BUDGET - spent) / terms.length;
    let required = 0;
    terms.forEach((term, i) => {
      const { kept, matchesSomething } = this.expand(term, budgetPerTerm);
      expansions[i].push(...kept);
      if (expansions[i].length > 0 || !(matchesSomething || exact[i] !== undefined)) required++;
    });
    return { expansions, required };
  }

  /**
   * Indexed terms a query term stands for besides itself, closest first: the terms it is a prefix
   * of, and for longer terms those within the allowed edit distance; as many as `budget` postings
   * allow. `matchesSomething` tells whether there were any (in sections still indexed), kept or not.
   */
  private expand(term: string, budget: number): { kept: Expansion[]; matchesSomething: boolean } {
    const expansions: Expansion[] = [];
    // Typo matches: few, each with its weight; a term both typo and prefix match keeps the better weight.
    const typoWeights = new Map<string, number>();
    if (term.length >= FUZZY_MIN_LENGTH) {
      const maxDistance = Math.min(MAX_EDIT_DISTANCE, Math.round(term.length * FUZZY_FRACTION));
      for (const [candidate, [postings, distance]] of this.dictionary.fuzzyGet(term, maxDistance)) {
        if (distance > 0 && postings.live > 0) typoWeights.set(candidate, (FUZZY_WEIGHT * term.length) / (term.length + distance));
      }
    }
    // Prefix matches: possibly thousands (one letter), their weight falling with their length, so
    // bucketed by length rather than sorted.
    const prefixWeight = (length: number) => (PREFIX_WEIGHT * term.length) / length;
    const byLength: string[][] = [];
    const sorted = (this.sortedTerms ??= [...this.postingsByTerm.keys()].sort());
    for (let i = lowerBound(sorted, term); i < sorted.length && sorted[i].startsWith(term); i++) {
      const candidate = sorted[i];
      // Terms only removed sections held stay until the next compaction: they match nothing.
      if (candidate === term || this.postingsByTerm.get(candidate)!.live === 0) continue;
      const typoWeight = typoWeights.get(candidate);
      if (typoWeight === undefined) (byLength[candidate.length] ??= []).push(candidate);
      else typoWeights.set(candidate, Math.max(typoWeight, prefixWeight(candidate.length)));
    }
    const typos = [...typoWeights].sort(([a, weightA], [b, weightB]) => weightB - weightA || compareText(a, b));
    let spent = 0;
    /** False once the budget is spent. */
    const take = (candidate: string, weight: number): boolean => {
      const postings = this.postingsByTerm.get(candidate)!;
      spent += postings.slots.length;
      if (spent > budget) return false;
      expansions.push({ term: candidate, postings, weight });
      return true;
    };
    const result = () => ({ kept: expansions, matchesSomething: typos.length > 0 || byLength.length > 0 });
    let nextTypo = 0;
    for (let length = term.length + 1; length < byLength.length; length++) {
      const weight = prefixWeight(length);
      for (; nextTypo < typos.length && typos[nextTypo][1] >= weight; nextTypo++) if (!take(...typos[nextTypo])) return result();
      for (const candidate of byLength[length] ?? []) if (!take(candidate, weight)) return result();
    }
    for (; nextTypo < typos.length; nextTypo++) if (!take(...typos[nextTypo])) return result();
    return result();
  }

  /**
   * Scores every section matching a query term: per term its best expansion (BM25 per field, boosted,
   * weighted by how close the expansion is), summed over terms. Returns the slots scored; their
   * totals and matched-term counts are in the scratch arrays until the caller clears them.
   */
  private scoreSections(expansionsByTerm: Expansion[][]): number[] {
    this.ensureScratch();
    // BM25 per field, its constant parts computed once: numerator boost·(k1+1), denominator tf + k1·(1-b) + k1·b·length/average.
    const numerators = FIELD_BOOSTS.map((boost) => boost * (K1 + 1));
    const lengthFactors = this.totalFieldLength.map((total, field) =>
      this.sectionsWithField[field] > 0 ? (K1 * B * this.sectionsWithField[field]) / total : 0,
    );
    const constant = K1 * (1 - B);
    const { slots: sectionSlots, fieldLengths, termScores, totalScores, matchedTerms, bodyMatched } = this;
    const touched: number[] = [];
    const termTouched: number[] = [];
    for (const expansions of expansionsByTerm) {
      for (const { postings, weight } of expansions) {
        const idf = Math.log(1 + (this.liveSections - postings.live + 0.5) / (postings.live + 0.5));
        const { slots, frequencies } = postings;
        for (let i = 0; i < slots.length; i++) {
          const slot = slots[i];
          if (sectionSlots[slot] === undefined) continue;
          if (((frequencies[i] >>> (BODY * FREQUENCY_BITS)) & MAX_FREQUENCY) !== 0) bodyMatched[slot] = 1;
          let score = 0;
          for (let field = 0, rest = frequencies[i]; rest !== 0; field++, rest >>>= FREQUENCY_BITS) {
            const frequency = rest & MAX_FREQUENCY;
            if (frequency === 0) continue;
            score +=
              (numerators[field] * frequency) / (frequency + constant + lengthFactors[field] * fieldLengths[slot * FIELD_COUNT + field]);
          }
          score *= idf * weight;
          if (termScores[slot] === 0) termTouched.push(slot);
          if (score > termScores[slot]) termScores[slot] = score;
        }
      }
      for (const slot of termTouched) {
        if (matchedTerms[slot] === 0) touched.push(slot);
        totalScores[slot] += termScores[slot];
        matchedTerms[slot]++;
        termScores[slot] = 0;
      }
      termTouched.length = 0;
    }
    return touched;
  }

  private ensureScratch(): void {
    if (this.totalScores.length >= this.slots.length) return;
    const capacity = Math.max(1024, this.slots.length * 2);
    this.termScores = new Float64Array(capacity);
    this.totalScores = new Float64Array(capacity);
    this.matchedTerms = new Uint8Array(capacity);
    this.bodyMatched = new Uint8Array(capacity);
  }

  /** The best pages among the scored sections: AND when some section matched every term, else OR. */
  private topPages(touched: number[], termCount: number, limit: number, highlighted: Set<string>): PageHit[] {
    const { totalScores, matchedTerms } = this;
    const and = touched.some((slot) => matchedTerms[slot] === termCount);
    const isCandidate = (slot: number) => matchedTerms[slot] > 0 && (!and || matchedTerms[slot] === termCount);
    // In the OR fallback, a section matching more of the terms ranks higher (as MiniSearch does).
    const scoreOf = (slot: number) => totalScores[slot] * (and ? 1 : matchedTerms[slot]);
    // A page's score is its best section's, kept on the page while ranking: cheaper than a map when thousands match.
    const scored: IndexedPage[] = [];
    try {
      for (const slot of touched) {
        if (!isCandidate(slot)) continue;
        const { page } = this.slots[slot]!;
        const score = scoreOf(slot);
        if (page.bestScore === 0) scored.push(page);
        if (score > page.bestScore) page.bestScore = score;
      }
      const ranked = best(
        scored,
        limit,
        (a, b) => b.bestScore - a.bestScore || compareText(a.page.path, b.page.path) || compareText(a.page.id, b.page.id),
      );
      const isMatch = (term: string) => highlighted.has(term);
      return ranked.map((indexed, position) => {
        const { page } = indexed;
        const sections = indexed.slots
          .filter((slot) => this.slots[slot]!.section >= 0 && isCandidate(slot))
          .map((slot) => ({
            section: page.sections[this.slots[slot]!.section],
            score: scoreOf(slot),
            bodyMatched: this.bodyMatched[slot] === 1,
          }))
          .sort((a, b) => b.score - a.score)
          .slice(0, MAX_SECTIONS_PER_PAGE)
          .map(({ section, score, bodyMatched }) => ({
            id: section.id,
            title: section.title,
            path: section.id ? `${page.path}#${section.id}` : page.path,
            // A section found by its titles alone is shown from its start, without searching its body.
            body: snippet(section.body, bodyMatched ? firstMatchOffset(section.body, isMatch) : null),
            score,
          }));
        const hit: PageHit = { id: page.id, title: page.title, path: page.path, score: indexed.bestScore, rank: position + 1, sections };
        if (page.description !== undefined) hit.description = page.description;
        return hit;
      });
    } finally {
      for (const page of scored) page.bestScore = 0;
    }
  }
}

/** A query's terms: normalized as indexed text, deduplicated, at most MAX_QUERY_TERMS; none for a blank query. */
export function queryTerms(query: string): string[] {
  const terms = new Set(tokenize(query.slice(0, MAX_QUERY_LENGTH)));
  return [...terms].slice(0, MAX_QUERY_TERMS);
}

/** The terms a section's fields hold, in field order. */
function sectionFields(body: string[], sectionTitle: string[], description: string[], pageTitle: string[]): string[][] {
  const fields: string[][] = [];
  fields[BODY] = body;
  fields[SECTION_TITLE] = sectionTitle;
  fields[DESCRIPTION] = description;
  fields[PAGE_TITLE] = pageTitle;
  return fields;
}

/** First index of `sorted` whose item is not below `item`. */
function lowerBound(sorted: string[], item: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle] < item) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The `limit` first items of `items` in `order`, sorted: a bounded heap rather than a full sort,
 * since a short prefix can match most pages of a space and only a page of them is shown.
 */
function best<T>(items: T[], limit: number, order: (a: T, b: T) => number): T[] {
  if (items.length <= limit) return items.sort(order);
  // Max-heap on `order`: its root is the worst item kept, replaced whenever a better one comes.
  const heap: T[] = [];
  const worse = (i: number, j: number) => order(heap[i], heap[j]) > 0;
  const swap = (i: number, j: number) => ([heap[i], heap[j]] = [heap[j], heap[i]]);
  for (const item of items) {
    if (heap.length < limit) {
      heap.push(item);
      for (let i = heap.length - 1; i > 0 && worse(i, (i - 1) >> 1); i = (i - 1) >> 1) swap(i, (i - 1) >> 1);
    } else if (order(item, heap[0]) < 0) {
      heap[0] = item;
      for (let i = 0; ;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let largest = i;
        if (left < heap.length && worse(left, largest)) largest = left;
        if (right < heap.length && worse(right, largest)) largest = right;
        if (largest === i) break;
        swap(i, largest);
        i = largest;
      }
    }
  }
  return heap.sort(order);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
