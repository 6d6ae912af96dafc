/**
 * Reaction emoji, as the platform takes them: a character (`👍`), its Unicode codepoints in hex
 * (`1f44d`, `1F389`, a sequence joined by `-`: `1f3f3-fe0f-200d-1f308`), or a `:shortcode:`.
 *
 * One stored form, so that a reaction added one way is the reaction removed another way: the
 * emoji's characters in their fully-qualified form (Unicode's RGI emoji, with the U+FE0F
 * presentation selectors where that form has them), whatever form was sent: `2764`, `❤` and `❤️`
 * are all `❤️`. A shortcode is kept as sent (the service has no table of shortcodes).
 */

/** One RGI emoji (the `v` flag's property of strings; built at run time: the compiler targets ES2022). */
const RGI_EMOJI = new RegExp('^\\p{RGI_Emoji}$', 'v');
const CODEPOINTS = /^[0-9A-Fa-f]{1,6}(?:-[0-9A-Fa-f]{1,6}){0,15}$/;
const SHORTCODE = /^:[a-z0-9_+-]{1,30}:$/;
const PRESENTATION_SELECTOR = '\ufe0f';
const EMOJI = /^\p{Emoji}$/u;
const EMOJI_PRESENTATION = /^\p{Emoji_Presentation}$/u;
const EMOJI_MODIFIER = /^\p{Emoji_Modifier}$/u;
/** A lone surrogate (in `u` mode a pair is one code point and does not match). */
const LONE_SURROGATE = /[\ud800-\udfff]/u;

/** Longest reaction accepted, in UTF-16 code units (the platform's Emoji schema: 50). */
export const MAX_EMOJI_LENGTH = 50;

/** The characters the codepoints name, or null when one is not a Unicode scalar value. */
function fromCodepoints(hex: string): string | null {
  const codepoints = hex.split('-').map((part) => parseInt(part, 16));
  if (codepoints.some((codepoint) => codepoint > 0x10ffff || (codepoint >= 0xd800 && codepoint <= 0xdfff))) return null;
  return String.fromCodePoint(...codepoints);
}

/**
 * The emoji with U+FE0F after each character that shows as text unless asked (❤, ☺, a keycap's
 * digit), except before a skin-tone modifier, and nowhere else: the fully-qualified form of the
 * emoji sequences that need selectors.
 */
function qualified(characters: string): string {
  const codepoints = [...characters.replaceAll(PRESENTATION_SELECTOR, '')];
  let out = '';
  codepoints.forEach((character, index) => {
    out += character;
    const next = codepoints[index + 1];
    if (EMOJI.test(character) && !EMOJI_PRESENTATION.test(character) && !(next !== undefined && EMOJI_MODIFIER.test(next)))
      out += PRESENTATION_SELECTOR;
  });
  return out;
}

/** The stored form of a reaction as sent, or null when it is not one emoji (nor a shortcode). */
export function canonicalEmoji(sent: string): string | null {
  if (typeof sent !== 'string' || sent.length === 0 || sent.length > MAX_EMOJI_LENGTH) return null;
  if (SHORTCODE.test(sent)) return sent;
  const characters = CODEPOINTS.test(sent) ? fromCodepoints(sent) : sent;
  if (characters === null || LONE_SURROGATE.test(characters)) return null;
  if (RGI_EMOJI.test(characters)) return characters;
  for (const candidate of [qualified(characters), characters.replaceAll(PRESENTATION_SELECTOR, '')]) {
    if (RGI_EMOJI.test(candidate)) return candidate;
  }
  return null;
}
