/**
 * What each page's content decodes to, all its content streams together: pdf.js joins a page's
 * /Contents streams into one buffer before reading it, so ten streams of 60 MB, each under the cap for
 * one stream, are 600 MB at once. Pages are found among the file's objects and among those packed in
 * object streams (most files written since PDF 1.5 keep their page dictionaries there), as the inflate
 * check decodes them.
 */
import type { PdfFile, PdfValue } from './pdf-objects.js';
import { Reader } from './pdf-syntax.js';

/** Most of an object stream's decoded bytes kept to read the objects in it. */
const MAX_OBJECT_STREAM = 32_000_000;

const isRef = (value: PdfValue | undefined): value is { ref: string } => Boolean(value && typeof value === 'object' && 'ref' in value);
const isName = (value: PdfValue | undefined, name: string) => Boolean(value && typeof value === 'object' && 'name' in value && value.name === name);
const refNum = (ref: { ref: string }) => Number(ref.ref.split(' ')[0]);

/** Collects pages and stream sizes while the inflate check runs, and says which page's content is largest. */
export class PageBytes {
  private readonly contents: PdfValue[] = [];
  private readonly sizes = new Map<number, number>();

  constructor(private readonly file: PdfFile) {}

  /** A dictionary of the file or of an object stream: a page's /Contents is kept. */
  note(dict: Map<string, PdfValue>): void {
    if (isName(dict.get('Type'), 'Page') && dict.has('Contents')) this.contents.push(dict.get('Contents')!);
  }

  /** What stream `num` decoded to. */
  sized(num: number | undefined, bytes: number): void {
    if (num !== undefined) this.sizes.set(num, bytes);
  }

  /** An object stream's decoded bytes, or undefined when it holds more than is kept to read it. */
  collector(): { add(chunk: Uint8Array): void; bytes(): Uint8Array | undefined } {
    const chunks: Uint8Array[] = [];
    let total = 0;
    return {
      add(chunk) {
        total += chunk.length;
        if (total <= MAX_OBJECT_STREAM) chunks.push(chunk.slice());
      },
      bytes: () => (total <= MAX_OBJECT_STREAM ? Buffer.concat(chunks) : undefined),
    };
  }

  /** The objects packed in an object stream (/N of them, their values from /First on), each noted. */
  unpack(dict: Map<string, PdfValue>, decoded: Uint8Array): void {
    const count = this.number(dict.get('N'));
    const first = this.number(dict.get('First'));
    if (count === undefined || first === undefined) return;
    const text = Buffer.from(decoded.buffer, decoded.byteOffset, decoded.byteLength).toString('latin1');
    const header = text.slice(0, first).trim().split(/[\0\t\n\f\r ]+/).map(Number);
    for (let i = 0; i < count && 2 * i + 1 < header.length; i++) {
      const [num, offset] = [header[2 * i]!, header[2 * i + 1]!];
      if (!Number.isInteger(num) || !Number.isInteger(offset)) break;
      const value = new Reader(text, first + offset).value();
      if (value === undefined) continue;
      this.file.addPacked(num, value);
      if (value instanceof Map) this.note(value);
    }
  }

  /** The most any one page's content streams decode to together. */
  largest(): number {
    let most = 0;
    for (const contents of this.contents) {
      const list = isRef(contents) && !this.sizes.has(refNum(contents)) ? this.file.resolve(contents.ref) : contents;
      const refs = (Array.isArray(list) ? list : [list]).filter(isRef);
      most = Math.max(most, refs.reduce((sum, ref) => sum + (this.sizes.get(refNum(ref)) ?? 0), 0));
    }
    return most;
  }

  private number(value: PdfValue | undefined): number | undefined {
    const direct = isRef(value) ? this.file.resolve(value.ref) : value;
    return typeof direct === 'number' ? direct : undefined;
  }
}
