import type { Extension as FromMarkdownExtension } from 'mdast-util-from-markdown';
import type { Handle, Options as ToMarkdownOptions, Unsafe } from 'mdast-util-to-markdown';
import type { Code, Construct, Extension, State, TokenizeContext, Tokenizer } from 'micromark-util-types';

/**
 * Inline math, `$$x^2$$` (docs/content.md, "Markdown"), as a micromark construct: the formula is
 * read raw, so `*`, `_` and backslashes inside it are not markdown. Modelled on micromark's code
 * (text): exactly two dollars open and close, the formula is not empty and stays on one line.
 * Block math (`$$` lines) is found by the container split, not here.
 */

declare module 'micromark-util-types' {
  interface TokenTypeMap {
    inlineMath: 'inlineMath';
    inlineMathSequence: 'inlineMathSequence';
    inlineMathData: 'inlineMathData';
  }
}

/** The mdast node of inline math (not one of mdast's own types, so it is not added to them). */
export interface InlineMathNode {
  type: 'inlineMath';
  value: string;
}

const DOLLAR = 36;

function isLineEndingOrEnd(code: Code): boolean {
  // micromark's codes: null is the end, -5/-4/-3 are CR, LF and CRLF.
  return code === null || code === -5 || code === -4 || code === -3;
}

/** A `$` just before (unless escaped) means this `$$` is part of a longer run, not an opening. */
function notAfterDollar(this: TokenizeContext, code: Code): boolean {
  return code !== DOLLAR || this.events[this.events.length - 1][1].type === 'characterEscape';
}

const tokenizeInlineMath: Tokenizer = function (effects, ok, nok) {
  let openSize = 0;
  let closeSize = 0;
  let closing: { type: string } | undefined;

  const open: State = (code) => {
    if (code === DOLLAR) {
      effects.consume(code);
      openSize++;
      return open;
    }
    if (openSize !== 2 || isLineEndingOrEnd(code)) return nok(code);
    effects.exit('inlineMathSequence');
    effects.enter('inlineMathData');
    return data(code);
  };

  const data: State = (code) => {
    if (isLineEndingOrEnd(code)) return nok(code);
    if (code === DOLLAR) {
      effects.exit('inlineMathData');
      closing = effects.enter('inlineMathSequence');
      closeSize = 0;
      return close(code);
    }
    effects.consume(code);
    return data;
  };

  const close: State = (code) => {
    if (code === DOLLAR) {
      effects.consume(code);
      closeSize++;
      return close;
    }
    if (closeSize === 2) {
      effects.exit('inlineMathSequence');
      effects.exit('inlineMath');
      return ok(code);
    }
    // Not two dollars: they belong to the formula (as micromark's code (text) does with its ticks).
    closing!.type = 'inlineMathData';
    return data(code);
  };

  return (code) => {
    effects.enter('inlineMath');
    effects.enter('inlineMathSequence');
    return open(code);
  };
};

const inlineMathConstruct: Construct = { name: 'inlineMath', tokenize: tokenizeInlineMath, previous: notAfterDollar };

export function inlineMathSyntax(): Extension {
  return { text: { [DOLLAR]: inlineMathConstruct } };
}

export function inlineMathFromMarkdown(): FromMarkdownExtension {
  return {
    enter: {
      inlineMath(token) {
        const node: InlineMathNode = { type: 'inlineMath', value: '' };
        this.enter(node as never, token);
      },
    },
    exit: {
      inlineMath(token) {
        const node = this.stack[this.stack.length - 1] as unknown as InlineMathNode;
        node.value = this.sliceSerialize(token).slice(2, -2);
        this.exit(token);
      },
    },
  };
}

// `peek` tells the text before a formula which character follows it (for the escapes below).
const inlineMathHandle: Handle = Object.assign((node: InlineMathNode) => `$$${node.value}$$`, { peek: () => '$' });

export const inlineMathToMarkdown: ToMarkdownOptions = {
  handlers: { inlineMath: inlineMathHandle } as ToMarkdownOptions['handlers'],
  // Two dollars in text would open math: escape a dollar next to another one (in the text or
  // where text meets a formula).
  unsafe: [
    { character: '$', after: '\\$' },
    { character: '$', before: '\\$' },
  ] satisfies Unsafe[],
};
