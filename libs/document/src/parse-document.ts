import { DomainError } from '#platform/errors';
import { isPlainObject } from '#platform/plain-object';
import { hasSafeScheme, readContentRef } from './content-refs';
import type { Block, BlockType, DocumentNode, Inline, InlineType, Leaf, Mark, Text } from './document.model';
import { defaultNewKey, mark, normalizeInlineContent, normalizeLeaves, normalizeMarks, textOf } from './document.nodes';
import {
  BLOCK_CONTENT,
  DOCUMENT_LIMITS,
  HINT_STYLES,
  isBlockType,
  isFlowBlock,
  isInlineType,
  isMarkType,
  VOID_INLINES,
} from './document.schema';

/**
 * Reads a document a client sent (docs/content.md, "Document model"): checks its shape against
 * the content table of document.schema.ts, the data the platform reads (references, styles,
 * titles, ...), and the limits; refuses with a 400 naming the path of the first problem. Returns
 * a normalised copy: only known fields, inline content in normal form, every block with a unique
 * key (missing and repeated ones get new keys). Data fields the platform does not read are kept as
 * JSON.
 */

export interface ParseDocumentOptions {
  newKey?: () => string;
}

const KEY = /^[A-Za-z0-9_-]{1,64}$/;
/** Names that would reach an object's prototype if data were ever merged into an object. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** Marks on one leaf: there are eight types, so more can only be repeats. */
const MAX_MARKS = 16;

export function parseDocument(value: unknown, options: ParseDocumentOptions = {}): DocumentNode {
  const reader = new DocumentReader();
  const document = reader.document(value);
  assignKeys(document, reader.givenKeys, options.newKey ?? defaultNewKey);
  return document;
}

function fail(path: string, message: string): never {
  throw DomainError.invalid(`${path} ${message}`);
}

class DocumentReader {
  private nodes = 0;
  private characters = 0;
  /** Keys as the client gave them: new keys must not take one of them. */
  readonly givenKeys = new Set<string>();

  document(value: unknown): DocumentNode {
    const path = 'document';
    if (!isPlainObject(value)) fail(path, 'must be an object');
    if (value.object !== 'document') fail(`${path}.object`, "must be 'document'");
    const data = value.data === undefined ? {} : this.data(value.data, `${path}.data`);
    if (data.schemaVersion !== undefined && (typeof data.schemaVersion !== 'number' || !Number.isInteger(data.schemaVersion))) {
      fail(`${path}.data.schemaVersion`, 'must be an integer');
    }
    const nodes = this.array(value.nodes, `${path}.nodes`);
    return {
      object: 'document',
      data,
      nodes: nodes.map((child, index) => this.flowBlock(child, `${path}.nodes[${index}]`, 1)),
    };
  }

  private count(path: string): void {
    this.nodes++;
    if (this.nodes > DOCUMENT_LIMITS.nodes) fail(path, `is beyond the limit of ${DOCUMENT_LIMITS.nodes} nodes in a document`);
  }

  private countCharacters(length: number, path: string): void {
    this.characters += length;
    if (this.characters > DOCUMENT_LIMITS.text)
      fail(path, `is beyond the limit of ${DOCUMENT_LIMITS.text} characters of text and data in a document`);
  }

  private array(value: unknown, path: string): unknown[] {
    if (!Array.isArray(value)) fail(path, 'must be an array');
    return value;
  }

  private flowBlock(value: unknown, path: string, depth: number): Block {
    const block = this.block(value, path, depth);
    if (!isFlowBlock(block.type)) fail(`${path}.type`, `${JSON.stringify(block.type)} can only be inside its parent block`);
    return block;
  }

  private block(value: unknown, path: string, depth: number): Block {
    if (depth > DOCUMENT_LIMITS.depth) fail(path, `is nested deeper than ${DOCUMENT_LIMITS.depth} levels`);
    if (!isPlainObject(value)) fail(path, 'must be an object');
    if (value.object !== 'block')
      fail(
        `${path}.object`,
        value.object === 'inline' || value.object === 'text'
          ? `is ${JSON.stringify(value.object)} where a block is expected`
          : "must be 'block'",
      );
    this.count(path);
    if (!isBlockType(value.type)) fail(`${path}.type`, `is not a known block type: ${JSON.stringify(String(value.type).slice(0, 40))}`);
    const type = value.type;
    const block: Block = { object: 'block', type };
    const key = this.key(value.key, `${path}.key`);
    if (key !== undefined) block.key = key;
    const data = this.blockData(type, value.data, `${path}.data`);
    if (data) block.data = data;

    const content = BLOCK_CONTENT[type];
    const children = value.nodes === undefined ? [] : this.array(value.nodes, `${path}.nodes`);
    switch (content.kind) {
      case 'void':
        // Slate gives a void node one empty text; anything else inside is an error.
        children.forEach((child, index) => this.emptyText(child, `${path}.nodes[${index}]`, depth + 1));
        block.isVoid = true;
        break;
      case 'inline':
        block.nodes = normalizeInlineContent(
          children.map((child, index) => this.inlineOrText(child, `${path}.nodes[${index}]`, depth + 1)),
        );
        break;
      case 'flow':
        block.nodes = children.map((child, index) => this.flowBlock(child, `${path}.nodes[${index}]`, depth + 1));
        break;
      case 'children':
        block.nodes = children.map((child, index) => {
          const childPath = `${path}.nodes[${index}]`;
          const parsed = this.block(child, childPath, depth + 1);
          if (parsed.type !== content.type) fail(`${childPath}.type`, `must be ${JSON.stringify(content.type)} inside a ${type} block`);
          return parsed;
        });
        break;
    }
    return block;
  }

  private inlineOrText(value: unknown, path: string, depth: number): Text | Inline {
    if (isPlainObject(value) && value.object === 'text') return this.text(value, path, depth);
    return this.inline(value, path, depth);
  }

  private inline(value: unknown, path: string, depth: number): Inline {
    if (depth > DOCUMENT_LIMITS.depth) fail(path, `is nested deeper than ${DOCUMENT_LIMITS.depth} levels`);
    if (!isPlainObject(value)) fail(path, 'must be an object');
    if (value.object !== 'inline')
      fail(`${path}.object`, value.object === 'block' ? 'is a block where text or an inline is expected' : "must be 'inline' or 'text'");
    this.count(path);
    if (!isInlineType(value.type)) fail(`${path}.type`, `is not a known inline type: ${JSON.stringify(String(value.type).slice(0, 40))}`);
    const type = value.type;
    const inline: Inline = { object: 'inline', type };
    const key = this.key(value.key, `${path}.key`);
    if (key !== undefined) inline.key = key;
    const data = this.inlineData(type, value.data, `${path}.data`);
    if (data) inline.data = data;
    const children = value.nodes === undefined ? [] : this.array(value.nodes, `${path}.nodes`);
    if (VOID_INLINES.has(type)) {
      children.forEach((child, index) => this.emptyText(child, `${path}.nodes[${index}]`, depth + 1));
      inline.isVoid = true;
      return inline;
    }
    const texts = children.map((child, index) => this.text(child, `${path}.nodes[${index}]`, depth + 1));
    // An inline holds one text: its leaves, merged.
    const merged = textOf(normalizeLeaves(texts.flatMap((text) => text.leaves)));
    const textKey = texts.find((text) => text.key !== undefined)?.key;
    if (textKey !== undefined) merged.key = textKey;
    inline.nodes = [merged];
    return inline;
  }

  private emptyText(value: unknown, path: string, depth: number): void {
    const text = this.text(value, path, depth);
    if (text.leaves.some((part) => part.text !== '')) fail(path, 'is text inside a void node');
  }

  private text(value: unknown, path: string, depth: number): Text {
    if (depth > DOCUMENT_LIMITS.depth) fail(path, `is nested deeper than ${DOCUMENT_LIMITS.depth} levels`);
    if (!isPlainObject(value)) fail(path, 'must be an object');
    if (value.object !== 'text') fail(`${path}.object`, "must be 'text'");
    this.count(path);
    const leaves = this.array(value.leaves, `${path}.leaves`).map((item, index) => this.leaf(item, `${path}.leaves[${index}]`));
    const text = textOf(normalizeLeaves(leaves));
    if (value.key !== undefined) {
      if (typeof value.key !== 'string' || !KEY.test(value.key)) fail(`${path}.key`, 'must be 1 to 64 letters, digits, _ or -');
      text.key = value.key;
    }
    return text;
  }

  private leaf(value: unknown, path: string): Leaf {
    if (!isPlainObject(value)) fail(path, 'must be an object');
    if (value.object !== 'leaf') fail(`${path}.object`, "must be 'leaf'");
    this.count(path);
    if (typeof value.text !== 'string') fail(`${path}.text`, 'must be a string');
    this.countCharacters(value.text.length, `${path}.text`);
    const marks = value.marks === undefined ? [] : this.array(value.marks, `${path}.marks`);
    if (marks.length > MAX_MARKS) fail(`${path}.marks`, `has more than ${MAX_MARKS} marks`);
    return {
      object: 'leaf',
      text: value.text,
      marks: normalizeMarks(marks.map((item, index) => this.mark(item, `${path}.marks[${index}]`))),
    };
  }

  private mark(value: unknown, path: string): Mark {
    if (!isPlainObject(value)) fail(path, 'must be an object');
    if (value.object !== 'mark') fail(`${path}.object`, "must be 'mark'");
    this.count(path);
    if (!isMarkType(value.type)) fail(`${path}.type`, `is not a known mark type: ${JSON.stringify(String(value.type).slice(0, 40))}`);
    if (value.type !== 'color') return mark(value.type);
    const data = value.data === undefined ? {} : this.data(value.data, `${path}.data`);
    const colors: Record<string, string> = {};
    for (const name of ['color', 'background']) {
      if (data[name] === undefined) continue;
      if (typeof data[name] !== 'string') fail(`${path}.data.${name}`, 'must be a string');
      colors[name] = data[name];
    }
    return mark('color', colors);
  }

  private key(value: unknown, path: string): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' || !KEY.test(value)) fail(path, 'must be 1 to 64 letters, digits, _ or -');
    this.givenKeys.add(value);
    return value;
  }

  // ---- data ----

  private blockData(type: BlockType, value: unknown, path: string): Record<string, unknown> | undefined {
    const data = value === undefined || value === null ? {} : this.data(value, path);
    const check = new DataCheck(data, path);
    switch (type) {
      case 'hint':
        if (data.style === undefined) data.style = 'info';
        check.oneOf('style', HINT_STYLES);
        break;
      case 'list-ordered':
        check.integer('start');
        break;
      case 'list-item':
        check.boolean('checked');
        break;
      case 'code':
        check.string('syntax');
        check.string('title');
        break;
      case 'table':
        if (
          data.align !== undefined &&
          (!Array.isArray(data.align) ||
            !data.align.every((item) => item === null || item === 'left' || item === 'center' || item === 'right'))
        ) {
          fail(`${path}.align`, "must be an array of 'left', 'center', 'right' or null");
        }
        break;
      case 'table-row':
        check.boolean('header');
        break;
      case 'image':
        check.ref('ref', true);
        check.string('alt');
        break;
      case 'file':
      case 'content-ref':
        check.ref('ref', true);
        break;
      case 'embed':
        check.string('url', true);
        if (!hasSafeScheme(data.url as string)) fail(`${path}.url`, 'must be relative or use http, https, mailto or tel');
        break;
      case 'expandable':
      case 'tabs-item':
        check.string('title');
        break;
      case 'math':
        check.string('formula', true);
        break;
      case 'swagger':
        check.string('src');
        check.string('path');
        check.string('method');
        break;
      case 'openapi-operation':
        check.ref('ref', true);
        check.string('path');
        check.string('method');
        break;
      default:
        break;
    }
    return Object.keys(data).length > 0 ? data : undefined;
  }

  private inlineData(type: InlineType, value: unknown, path: string): Record<string, unknown> | undefined {
    const data = value === undefined || value === null ? {} : this.data(value, path);
    const check = new DataCheck(data, path);
    switch (type) {
      case 'link':
      case 'mention':
        check.ref('ref', true);
        break;
      case 'inline-image':
        check.ref('ref', true);
        check.string('alt');
        break;
      case 'inline-math':
        check.string('formula', true);
        break;
      case 'emoji':
        check.string('code');
        break;
      default:
        break;
    }
    return Object.keys(data).length > 0 ? data : undefined;
  }

  /** A JSON object: plain objects, arrays, strings, finite numbers, booleans and null; no prototype keys. */
  private data(value: unknown, path: string): Record<string, unknown> {
    if (!isPlainObject(value)) fail(path, 'must be an object');
    return this.json(value, path, 1) as Record<string, unknown>;
  }

  private json(value: unknown, path: string, depth: number): unknown {
    if (depth > DOCUMENT_LIMITS.depth) fail(path, `is nested deeper than ${DOCUMENT_LIMITS.depth} levels`);
    this.count(path);
    if (value === null || typeof value === 'boolean') return value;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) fail(path, 'must be a finite number');
      return value;
    }
    if (typeof value === 'string') {
      this.countCharacters(value.length, path);
      return value;
    }
    if (Array.isArray(value)) return value.map((item, index) => this.json(item, `${path}[${index}]`, depth + 1));
    if (!isPlainObject(value)) fail(path, 'must be JSON data');
    const copy: Record<string, unknown> = {};
    for (const name of Object.keys(value)) {
      if (PROTOTYPE_KEYS.has(name)) fail(`${path}.${name}`, 'is not an allowed data key');
      this.countCharacters(name.length, path);
      const item = value[name];
      if (item !== undefined) copy[name] = this.json(item, `${path}.${name}`, depth + 1);
    }
    return copy;
  }
}

/** Checks of the data fields the platform reads; references are rebuilt with their known fields. */
class DataCheck {
  constructor(
    private readonly data: Record<string, unknown>,
    private readonly path: string,
  ) {}

  private present(name: string, required: boolean): boolean {
    if (this.data[name] !== undefined) return true;
    if (required) fail(`${this.path}.${name}`, 'is required');
    return false;
  }

  string(name: string, required = false): void {
    if (this.present(name, required) && typeof this.data[name] !== 'string') fail(`${this.path}.${name}`, 'must be a string');
  }

  boolean(name: string): void {
    if (this.present(name, false) && typeof this.data[name] !== 'boolean') fail(`${this.path}.${name}`, 'must be a boolean');
  }

  integer(name: string): void {
    const value = this.data[name];
    if (this.present(name, false) && (typeof value !== 'number' || !Number.isInteger(value) || value < 0))
      fail(`${this.path}.${name}`, 'must be a non-negative integer');
  }

  oneOf(name: string, values: readonly string[]): void {
    if (this.present(name, false) && !values.includes(this.data[name] as string))
      fail(`${this.path}.${name}`, `must be one of ${values.join(', ')}`);
  }

  ref(name: string, required: boolean): void {
    if (!this.present(name, required)) return;
    const ref = readContentRef(this.data[name]);
    if (typeof ref === 'string') fail(`${this.path}.${name}`, ref);
    this.data[name] = ref;
  }
}

/** Gives blocks without a key, or with a key an earlier block has, a new key no block was given. */
function assignKeys(document: DocumentNode, givenKeys: ReadonlySet<string>, newKey: () => string): void {
  const used = new Set<string>();
  const fresh = () => {
    for (let attempt = 0; attempt < 100; attempt++) {
      const key = newKey();
      if (!used.has(key) && !givenKeys.has(key)) return key;
    }
    throw new Error('newKey keeps answering keys the document already has');
  };
  const stack: Block[] = [...document.nodes].reverse();
  while (stack.length > 0) {
    const block = stack.pop()!;
    if (block.key === undefined || used.has(block.key)) block.key = fresh();
    used.add(block.key);
    const children = block.nodes ?? [];
    for (let index = children.length - 1; index >= 0; index--) {
      const child = children[index];
      if (child.object === 'block') stack.push(child);
    }
  }
}
