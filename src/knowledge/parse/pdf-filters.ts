/**
 * What pdf.js will do with one stream, read from its dictionary by pdf.js's own rules (its Parser's
 * makeStream and filter): which filters in which order with which /DecodeParms, whether it is an
 * image, and where its data ends. Each rule here is one pdf.js follows, so what the inflate check
 * counts is what pdf.js would decode: /F before /Filter and /DP before /DecodeParms, references
 * followed, and the data ending at the `endstream` its /Length points at or else at the first one.
 */
import type { PdfFile, PdfValue } from './pdf-objects.js';

/** One filter of a stream, with its /DecodeParms entries when it has any. */
export interface PlannedFilter {
  name: string;
  params?: Map<string, PdfValue>;
}

/** A stream as pdf.js will decode it. */
export interface StreamPlan {
  filters: PlannedFilter[];
  /** /Subtype /Image: not held to the one-stream cap (reading text never decodes an image); still counted for a page that uses it as content. */
  image: boolean;
  /** Where its data ends (exclusive). */
  end: number;
}

const isRef = (value: PdfValue | undefined): value is { ref: string } => Boolean(value && typeof value === 'object' && 'ref' in value);
const isName = (value: PdfValue | undefined): value is { name: string } => Boolean(value && typeof value === 'object' && 'name' in value);
const follow = (file: PdfFile, value: PdfValue | undefined) => (isRef(value) ? file.resolve(value.ref) : value);

/** The filter names; a reference this cannot follow (inside an object stream) is taken for deflate, which costs nothing when it is not. */
function filterNames(file: PdfFile, raw: PdfValue | undefined): string[] {
  const value = follow(file, raw);
  if (value === undefined) return isRef(raw) ? ['FlateDecode'] : [];
  if (isName(value)) return [value.name];
  if (!Array.isArray(value)) return []; // pdf.js decodes nothing when /Filter is neither a name nor an array
  return value.map((item) => {
    const name = follow(file, item);
    return isName(name) ? name.name : 'FlateDecode';
  });
}

/** The furthest pdf.js reads a stream's data: to the `endstream` its /Length points at, else to the first; to the file's end when a /Length by reference cannot be followed. */
function dataEnd(file: PdfFile, dataStart: number, raw: PdfValue | undefined): number {
  const { text } = file;
  const length = follow(file, raw);
  if (isRef(raw) && typeof length !== 'number') return text.length;
  // The token after the data must be `endstream` (the lexer skips white space and comments before it).
  if (Number.isInteger(length) && (length as number) >= 0) {
    const at = dataStart + (length as number);
    if (/^(?:[\0\t\n\f\r ]|%[^\r\n]*)*endstream/.test(text.slice(at, at + 256))) return at;
  }
  const first = text.indexOf('endstream', dataStart);
  return first < 0 ? text.length : first;
}

/** The plan for the stream whose data starts at `dataStart`, with this dictionary (undefined: one this could not read). */
export function planStream(file: PdfFile, dataStart: number, dict: Map<string, PdfValue> | undefined): StreamPlan {
  if (!dict) return { filters: [{ name: 'FlateDecode' }], image: false, end: dataEnd(file, dataStart, undefined) };
  const names = filterNames(file, dict.get('F') ?? dict.get('Filter'));
  const allParams = follow(file, dict.get('DP') ?? dict.get('DecodeParms'));
  const filters = names.map((name, i): PlannedFilter => {
    const params = follow(file, Array.isArray(allParams) ? allParams[i] : names.length === 1 ? allParams : undefined);
    return { name, params: params instanceof Map ? params : undefined };
  });
  const subtype = dict.get('Subtype');
  return { filters, image: isName(subtype) && subtype.name === 'Image', end: dataEnd(file, dataStart, dict.get('Length')) };
}
