/** The seed's deterministic text. */
import { SeedBodies } from './seed-content-builders';

const VOCABULARY = (
  'account api authentication backup branch build cache change client cluster collection comment configuration content deploy ' +
  'document domain editor endpoint environment error event export feature file guide hook import index install integration ' +
  'key language limit link member merge metric migration module network node organization page permission plugin policy ' +
  'project publish query queue record release request review role schema search secret server service session setting site ' +
  'space storage stream team template token topic update upload user version view webhook workflow workspace'
).split(' ');

/** Deterministic text: titles, names, sentences and page bodies that differ from one another. */
export class Words {
  private state: number;
  private readonly bodies = new SeedBodies();
  private readonly templates: string[];
  private readonly commentTemplates: string[];
  constructor(seedValue: number) {
    this.state = seedValue;
    this.templates = Array.from({ length: 16 }, () => this.page(this.title(3)));
    this.commentTemplates = Array.from({ length: 8 }, (_, index) =>
      index % 2 === 0 ? this.sentence() : `${this.sentence()} **${this.title(2)}** \`${this.word()}\`?`,
    );
  }
  private next(): number {
    // xorshift32: fast, deterministic, good enough for picking words.
    this.state ^= this.state << 13;
    this.state ^= this.state >>> 17;
    this.state ^= this.state << 5;
    return (this.state >>> 0) / 4294967296;
  }
  word(): string {
    return VOCABULARY[Math.floor(this.next() * VOCABULARY.length)];
  }
  title(words: number): string {
    const text = Array.from({ length: words }, () => this.word()).join(' ');
    return text[0].toUpperCase() + text.slice(1);
  }
  name(): string {
    const first = this.word();
    return `${first[0].toUpperCase()}${first.slice(1)} ${this.title(1)}son`;
  }
  sentence(): string {
    return `${this.title(8 + Math.floor(this.next() * 8))}.`;
  }
  /** A page body of about 1 KB, made from one of a few converted templates with words of its own. */
  body() {
    const template = this.templates[Math.floor(this.next() * this.templates.length)];
    return this.bodies.body(template, (text) => text.replace(/[A-Za-z]+/g, (word) => (word.length > 2 ? this.word() : word)));
  }

  /** A comment of a sentence or two, from converted templates with words of its own. */
  comment() {
    const template = this.commentTemplates[Math.floor(this.next() * this.commentTemplates.length)];
    return this.bodies.body(template, (text) => text.replace(/[A-Za-z]+/g, (word) => (word.length > 2 ? this.word() : word)));
  }

  /** Markdown of about 1 KB: headings, paragraphs, a list, a table and a code block. */
  private page(title: string): string {
    const paragraph = () => Array.from({ length: 3 }, () => this.sentence()).join(' ');
    return [
      `# ${title}`,
      paragraph(),
      `## ${this.title(2)}`,
      paragraph(),
      Array.from({ length: 4 }, () => `- ${this.title(4)}`).join('\n'),
      `| ${this.word()} | ${this.word()} |\n| --- | --- |\n| ${this.word()} | ${this.word()} |`,
      '```js\n' + `const ${this.word()} = await client.${this.word()}('${this.word()}');\n` + '```',
      `## ${this.title(2)}`,
      paragraph(),
    ].join('\n\n');
  }
}
