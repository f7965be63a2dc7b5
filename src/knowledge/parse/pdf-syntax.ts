/**
 * PDF syntax, read as far as the inflate check needs it: values (numbers, names, strings, arrays,
 * dictionaries, `N G R` references) from the file's text, leniently where pdf.js's lexer is lenient
 * (stray delimiters read past, a non-name where a key should be skipped alone), so that what pdf.js
 * reads in a dictionary is read the same here. Only a dictionary's top level is kept: nested values,
 * strings and comments are skipped whole, so a decoy /Filter inside one is not taken for the stream's.
 */

/** A value of a PDF dictionary, as far as the inflate check needs it. */
export type PdfValue = number | boolean | null | { name: string } | { ref: string } | PdfValue[] | Map<string, PdfValue> | { other: true };

const WHITE = new Set([0, 9, 10, 12, 13, 32]);
const DELIMITER = new Set([...'()<>[]{}/%'].map((c) => c.charCodeAt(0)));
/** Deeper than any real file nests; past it the object is not read (pdf.js gives up on such files too). */
const MAX_DEPTH = 64;
/** Reads PDF values from the file's text, from `at` on; lenient where pdf.js's lexer is. */
export class Reader {
  constructor(private readonly text: string, public at: number) {}

  skip(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.at);
      if (WHITE.has(c)) this.at++;
      else if (c === 37 /* % */) while (this.at < this.text.length && !/[\r\n]/.test(this.text[this.at]!)) this.at++;
      else return;
    }
  }

  token(): string {
    const start = this.at;
    while (this.at < this.text.length && !WHITE.has(this.text.charCodeAt(this.at)) && !DELIMITER.has(this.text.charCodeAt(this.at))) this.at++;
    return this.text.slice(start, this.at);
  }

  /** One value; undefined when the bytes are no PDF syntax (then the object is not a stream we can read). */
  value(depth = 0): PdfValue | undefined {
    if (depth > MAX_DEPTH) return undefined;
    this.skip();
    const t = this.text;
    if (t.startsWith('<<', this.at)) return this.dict(depth);
    const c = t[this.at];
    if (c === '[') {
      this.at++;
      const items: PdfValue[] = [];
      for (;;) {
        this.skip();
        if (t[this.at] === ']') return (this.at++, this.refs(items));
        const item = this.value(depth + 1);
        if (item === undefined) return undefined;
        items.push(item);
      }
    }
    if (c === '/') {
      this.at++;
      return { name: this.token().replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) };
    }
    if (c === '(') return this.literalString();
    if (c === '<') {
      const end = t.indexOf('>', this.at);
      return end < 0 ? undefined : ((this.at = end + 1), { other: true });
    }
    const word = this.token();
    // A stray delimiter (`{`, `)`, a lone `>`): pdf.js reads on past such a token, and so does this.
    if (word === '') return this.at < t.length ? (this.at++, { other: true }) : undefined;
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) return Number(word);
    if (word === 'R') return { name: 'R' }; // joined to the two numbers before it by refs()
    return word === 'true' ? true : word === 'false' ? false : word === 'null' ? null : { other: true };
  }

  /** `<< /Key value ... >>`: the keys of the top level and their values; `N G R` joined into one ref. */
  dict(depth: number): Map<string, PdfValue> | undefined {
    this.at += 2;
    const entries: PdfValue[] = [];
    for (;;) {
      this.skip();
      if (this.text.startsWith('>>', this.at)) break;
      const item = this.value(depth + 1);
      if (item === undefined) return undefined;
      entries.push(item);
    }
    this.at += 2;
    const joined = this.refs(entries);
    const dict = new Map<string, PdfValue>();
    // As pdf.js: a key must be a name, and anything else where a key should be is skipped alone, so a
    // stray number cannot shift every key after it onto a value.
    for (let i = 0; i + 1 < joined.length; i++) {
      const key = joined[i];
      if (key && typeof key === 'object' && 'name' in key) dict.set(key.name, joined[++i]!);
    }
    return dict;
  }

  private refs(items: PdfValue[]): PdfValue[] {
    const out: PdfValue[] = [];
    for (const item of items) {
      const [gen, num] = [out.at(-1), out.at(-2)];
      if (item && typeof item === 'object' && 'name' in item && item.name === 'R' && typeof gen === 'number' && typeof num === 'number') {
        out.splice(-2, 2, { ref: `${num} ${gen}` });
      } else out.push(item);
    }
    return out;
  }

  private literalString(): PdfValue | undefined {
    let depth = 0;
    for (; this.at < this.text.length; this.at++) {
      const c = this.text[this.at];
      if (c === '\\') this.at++;
      else if (c === '(') depth++;
      else if (c === ')' && --depth === 0) return (this.at++, { other: true });
    }
    return undefined;
  }
}
