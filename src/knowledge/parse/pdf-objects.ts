/**
 * A PDF's objects as the inflate check finds them, without pdf.js (which offers no hook into its
 * decoders and must not see a bomb). Every `obj` keyword in the file is tried, wherever it is, because
 * pdf.js finds objects by the offsets its cross-reference table gives, not in file order: an object
 * hidden inside another's data is still found. The objects are indexed by number first, so a
 * reference (a /Length or /Filter given as `12 0 R`, often defined after the stream) is found at once;
 * objects packed in object streams are added as those streams are decoded.
 */
import { ParseRefusal } from './parse-types.js';
import { Reader, type PdfValue } from './pdf-syntax.js';

export type { PdfValue } from './pdf-syntax.js';

/** One object whose value is a dictionary: its number, the dictionary (undefined: not readable here) and, for a stream, where its data starts. */
export interface PdfObject {
  num?: number;
  dict?: Map<string, PdfValue>;
  dataStart?: number;
}

/** How far after an unreadable object's `obj` its `stream` keyword is looked for. */
const UNREAD_REACH = 65_536;
// After white space or straight after the generation number (`1 0obj`: pdf.js's lexer ends a number at
// the letter), and before a delimiter: `endobj` and words that merely hold "obj" are not objects.
const OBJ = /(?<=[\0\t\n\f\r \d])obj(?=[\0\t\n\f\r <[/%(])/g;
const NUMBERS = /(?<![\d.])(\d+)[\0\t\n\f\r ]+\d+[\0\t\n\f\r ]*$/;

/** The refusal of a file built so that reading it would go over the same bytes again and again. */
export function exhausting(name: string): ParseRefusal {
  return new ParseRefusal(`${name} is damaged or built to exhaust the reader (its objects or streams do not end where they should); add a repaired copy.`);
}

/** As pdf.js does: a stream's data starts after the first end of line following the keyword. */
function dataAfter(text: string, afterKeyword: number): number {
  const eol = text.slice(afterKeyword, afterKeyword + 1_024).search(/\r\n|\n|\r/);
  const at = eol < 0 ? afterKeyword : afterKeyword + eol;
  return at + (text.startsWith('\r\n', at) ? 2 : 1);
}

/** The file's text (one character per byte, so offsets are the file's) and its objects by number. */
export class PdfFile {
  readonly text: string;
  /** Where each object's value starts (after `obj`); a later definition wins, as in an updated file. */
  private readonly offsets = new Map<number, number>();
  private readonly packed = new Map<number, PdfValue>();
  private readonly headers: Array<{ at: number; num?: number }> = [];

  constructor(bytes: Uint8Array, private readonly name: string) {
    this.text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    for (let match = OBJ.exec(this.text); match; match = OBJ.exec(this.text)) {
      const digits = NUMBERS.exec(this.text.slice(Math.max(0, match.index - 32), match.index))?.[1];
      const num = digits === undefined ? undefined : Number(digits);
      this.headers.push({ at: match.index + 3, num });
      if (num !== undefined) this.offsets.set(num, match.index + 3);
    }
  }

  /** The value a reference points at: an object of the file, or one packed in an object stream. */
  resolve(ref: string): PdfValue | undefined {
    const num = Number(ref.split(' ')[0]);
    const at = this.offsets.get(num);
    return at === undefined ? this.packed.get(num) : new Reader(this.text, at).value();
  }

  /** An object found inside an object stream (it has no offset in the file). */
  addPacked(num: number, value: PdfValue): void {
    if (!this.offsets.has(num)) this.packed.set(num, value);
  }

  /**
   * Every object whose value is a dictionary, streams with where their data starts. A real file's
   * objects are read about once in all; one whose dictionaries each run on over the rest of it (an
   * unclosed string in every object) is refused rather than read over and over.
   */
  *objects(): Generator<PdfObject> {
    const { text } = this;
    let scanned = 0;
    for (const { at: start, num } of this.headers) {
      const reader = new Reader(text, start);
      reader.skip();
      if (!text.startsWith('<<', reader.at)) continue;
      const dict = reader.dict(0);
      scanned += reader.at - start;
      if (scanned > text.length * 4 + 4_000_000) throw exhausting(this.name);
      if (dict) {
        reader.skip();
        yield { num, dict, dataStart: text.startsWith('stream', reader.at) ? dataAfter(text, reader.at + 6) : undefined };
        continue;
      }
      // A dictionary this cannot read that pdf.js might: its stream, if one follows, is still counted,
      // with its filters unknown (a hidden bomb must not pass for want of a parse).
      const found = /(?<!end)stream(?=\r|\n)/.exec(text.slice(start, start + UNREAD_REACH));
      if (found) yield { num, dataStart: dataAfter(text, start + found.index + 6) };
    }
  }
}
