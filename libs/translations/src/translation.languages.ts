import { DomainError } from '#platform/errors';

/**
 * Languages of translation settings: BCP 47 tags (RFC 5646), checked against the IANA Language
 * Subtag Registry by the `language-tags` package and stored in canonical form.
 */

/** The part of `language-tags` this context uses (the package ships no types). */
interface Subtag {
  type(): string;
  format(): string;
  preferred(): Subtag | null;
  deprecated(): string | undefined;
}

interface Tag {
  type(): 'grandfathered' | 'redundant' | 'tag';
  preferred(): Tag | null;
  subtags(): Subtag[];
  errors(): Array<{ code: number; message: string; subtag?: unknown }>;
  valid(): boolean;
  format(): string;
}

type LanguageTags = (tag: string) => Tag;

// Tag.ERR_* of language-tags: the two refusals canonicalization resolves instead.
const ERR_SUPPRESS_SCRIPT = 10;
const ERR_SUBTAG_DEPRECATED = 11;

/** language-tags is an ES module whose default export is the parser (2.1.0 and later load through `require`). */
function loadLanguageTags(): LanguageTags {
  const loaded = require('language-tags') as LanguageTags | { default: LanguageTags };
  return typeof loaded === 'function' ? loaded : loaded.default;
}

let languageTags: LanguageTags | null = null;
const tags = (tag: string) => (languageTags ??= loadLanguageTags())(tag);

/** Subtags of 1 to 8 letters and digits joined by hyphens: checked before the registry sees the text. */
const SUBTAGS = /^[A-Za-z0-9]{1,8}(?:-[A-Za-z0-9]{1,8})*$/;
/**
 * The `langtag` production of RFC 5646 (section 2.1): language (with extended language subtags),
 * script, region, variants, extensions (a singleton and at least one subtag of 2 to 8), private use.
 * The registry checks what the subtags mean; this, that they are in their places. Grandfathered
 * tags (`i-klingon`) are the registry's own entries and skip it.
 */
const LANGTAG =
  /^(?:[a-z]{2,3}(?:-[a-z]{3}){0,3}|[a-z]{4,8})(?:-[a-z]{4})?(?:-(?:[a-z]{2}|[0-9]{3}))?(?:-(?:[a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*(?:-[a-wyz0-9](?:-[a-z0-9]{2,8})+)*(?:-x(?:-[a-z0-9]{1,8})+)?$/i;
export const LANGUAGE_TAG_MAX_LENGTH = 64;

function refuse(value: string, reason: string): DomainError {
  return DomainError.invalid(`languages: ${JSON.stringify(value)} is not a valid BCP 47 language tag (${reason})`);
}

/**
 * The canonical form of a BCP 47 tag (RFC 5646, section 4.5), or a 400 naming it: a deprecated or
 * redundant tag becomes its preferred value (`zh-yue` → `yue`, `i-klingon` → `tlh`), a deprecated
 * subtag its replacement (`iw` → `he`, `de-DD` → `de-DE`), a script the language implies by default
 * is dropped (`en-Latn` → `en`), and the result takes the registry's case conventions (`en-GB`,
 * `zh-Hant-TW`). Tags the registry does not know are refused.
 */
export function canonicalLanguage(value: string): string {
  if (value.length > LANGUAGE_TAG_MAX_LENGTH || !SUBTAGS.test(value))
    throw refuse(value, 'subtags are 1 to 8 letters or digits joined by hyphens');
  let tag = tags(value);
  if (tag.type() === 'tag' && !LANGTAG.test(value))
    throw refuse(
      value,
      'RFC 5646 tags are a language, then optionally script, region, variants, extensions and private use, in that order',
    );
  if (tag.type() !== 'tag') {
    const preferred = tag.preferred();
    if (preferred) tag = preferred;
  } else {
    tag = resolvedSubtags(tag, value);
  }
  const errors = tag.errors();
  if (errors.length > 0) throw refuse(value, errors[0].message);
  return tag.format();
}

/** The tag with deprecated and extended language subtags replaced and a default script dropped, when those are its only faults. */
function resolvedSubtags(tag: Tag, value: string): Tag {
  const faults = tag.errors();
  if (faults.some((fault) => fault.code !== ERR_SUBTAG_DEPRECATED && fault.code !== ERR_SUPPRESS_SCRIPT)) return tag;
  const codes = value.toLowerCase().split('-');
  const singleton = codes.findIndex((code) => code.length === 1);
  const head = singleton === -1 ? codes : codes.slice(0, singleton);
  const tail = singleton === -1 ? [] : codes.slice(singleton);
  const subtags = tag.subtags();
  // Every code before a singleton was recognized (no other fault), one subtag each; anything else is left to the registry's verdict.
  if (
    subtags.length !== head.length ||
    !subtags.some((subtag) => subtag.deprecated() || subtag.type() === 'extlang' || subtag.type() === 'script')
  )
    return tag;
  const suppressed = new Set(
    faults.filter((fault) => fault.code === ERR_SUPPRESS_SCRIPT).map((fault) => String((fault.subtag as Subtag).format()).toLowerCase()),
  );
  const resolved: string[] = [];
  subtags.forEach((subtag, index) => {
    const code = head[index];
    if (subtag.type() === 'script' && suppressed.has(code)) return;
    // Extended language subtags are never marked deprecated, but their canonical form is their preferred language (`ar-aao` → `aao`).
    const preferred = subtag.deprecated() || subtag.type() === 'extlang' ? subtag.preferred() : null;
    if (!preferred) resolved.push(code);
    // An extended language subtag stands for a language of its own: it replaces the primary one.
    else if (subtag.type() === 'extlang') resolved.splice(0, resolved.length, preferred.format().toLowerCase());
    else resolved.push(preferred.format().toLowerCase());
  });
  return tags([...resolved, ...tail].join('-'));
}

/** The languages of a request, each canonical; 400 naming the first invalid tag, or a language listed twice. */
export function canonicalLanguages(values: readonly string[]): string[] {
  const seen = new Map<string, string>();
  for (const value of values) {
    const canonical = canonicalLanguage(value);
    const earlier = seen.get(canonical);
    if (earlier === value) throw DomainError.invalid(`languages lists ${JSON.stringify(value)} twice`);
    if (earlier !== undefined)
      throw DomainError.invalid(
        `languages lists ${JSON.stringify(earlier)} and ${JSON.stringify(value)}, which are one language (${canonical})`,
      );
    seen.set(canonical, value);
  }
  return [...seen.keys()];
}
