/**
 * The PDF bomb check: before pdf.js reads a file, every stream in it is decoded once through its
 * filters, counting the bytes that come out and keeping none, against a cap for one stream and one
 * for the whole file. pdf.js decodes a stream whole into memory that its V8 heap limit does not bound
 * (a 1 MB file whose content stream inflates to 1 GB took the reader to 2.4 GB and was then refused
 * for "no text layer"); counted here, it is refused in about a second with the true reason.
 *
 * Each stream's data is fed from where it starts until its filters say its data has ended (the zlib
 * final block, ASCII85's `~>`, LZW's end code), but never past where pdf.js stops reading it (the
 * `endstream` its /Length points at, else the first: pdf-filters.ts). So neither a /Length that says
 * less nor a decoy `endstream` before the true one shortens the count, and a stream without an end is
 * not fed the rest of the file (where LZW would decode the next objects as codes). What this cannot
 * count (an encrypted file's streams: their bytes are not deflate until decrypted) is left to the
 * host's limit on the reader's memory.
 */
import { exhausting, PdfFile, type PdfValue } from './pdf-objects.js';
import { PageBytes } from './pdf-page-bytes.js';
import { IMAGE_CODECS, stageFor, type Stage, type StageParams } from './pdf-decoders.js';
import { planStream, type PlannedFilter } from './pdf-filters.js';
import { ParseRefusal } from './parse-types.js';

/** The caps the check runs under (KNOWLEDGE_PDF_MAX_INFLATED_BYTES, KNOWLEDGE_PDF_MAX_PAGE_BYTES). */
export interface InflateCaps {
  /** Most bytes all of a file's streams may decode to together. */
  maxInflatedBytes: number;
  /** Most bytes one page's content (its content streams together), or any one stream that is no image, may decode to. */
  maxPageBytes: number;
}

/** What the check counted, for tests and the bench. */
export interface InflateCount {
  streams: number;
  inflated: number;
}

/** Fed a slice at a time, so a cap is seen before the next slice is decoded. */
const SLICE = 16_384;
const mb = (bytes: number) => Math.round(bytes / 1_000_000).toLocaleString('en-US');

/**
 * The stages for a stream's filters, first filter first, each one's output counted (`count`) and fed to
 * the next; the last one's output also goes to `packed` (an object stream's objects, to be read).
 */
function chain(filters: PlannedFilter[], count: (size: number) => void, params: (earlyChange: PdfValue | undefined) => StageParams, packed?: { add(chunk: Uint8Array): void }): Stage[] {
  const stages: Stage[] = [];
  let downstream: ((decoded: Uint8Array) => void) | undefined;
  // Built from the last filter back, so each stage knows where its output goes.
  for (const filter of [...filters].reverse()) {
    if (IMAGE_CODECS.has(filter.name)) {
      // An image codec's output cannot be known without decoding the image: count what comes before it.
      stages.length = 0;
      downstream = undefined;
      continue;
    }
    const next = downstream;
    // A predictor (/DecodeParms /Predictor > 1) is a second stream in pdf.js holding the same bytes again.
    const predictor = filter.params?.get('Predictor');
    const copies = typeof predictor === 'number' && predictor > 1 && /^(FlateDecode|Fl|LZWDecode|LZW)$/.test(filter.name) ? 2 : 1;
    const emit = (decoded: Uint8Array) => {
      count(decoded.length * copies);
      if (next) next(decoded);
      else packed?.add(decoded);
    };
    const stage = stageFor(filter.name, emit, params(filter.params?.get('EarlyChange')));
    // A filter pdf.js does not know passes the bytes through unchanged, and so it does here.
    if (!stage) continue;
    stages.unshift(stage);
    downstream = (decoded) => stage.push(decoded);
  }
  return stages;
}

/** Decode every stream, counting; throws ParseRefusal past either cap. */
export function checkPdfInflate(bytes: Uint8Array, name: string, caps: InflateCaps): InflateCount {
  const file = new PdfFile(bytes, name);
  const pages = new PageBytes(file);
  let inflated = 0;
  let streams = 0;
  let fed = 0;
  for (const { num, dataStart, dict } of file.objects()) {
    if (dict) pages.note(dict);
    if (dataStart === undefined) continue;
    const { filters, image, end } = planStream(file, dataStart, dict);
    // An object stream's objects are read once it is decoded: page dictionaries are often packed there.
    const packed = dict && (dict.get('Type') as { name?: string } | undefined)?.name === 'ObjStm' ? pages.collector() : undefined;
    let streamBytes = 0;
    const count = (size: number) => {
      streamBytes += size;
      inflated += size;
      if (!image && streamBytes > caps.maxPageBytes) {
        throw new ParseRefusal(`${name} has a stream that inflates to more than ${mb(caps.maxPageBytes)} MB (a PDF bomb, or far more than a page needs); it was stopped there (KNOWLEDGE_PDF_MAX_PAGE_BYTES).`);
      }
      if (inflated > caps.maxInflatedBytes) {
        throw new ParseRefusal(`${name} inflates to more than ${mb(caps.maxInflatedBytes)} MB (a PDF bomb, or far more than a document needs); it was stopped there (KNOWLEDGE_PDF_MAX_INFLATED_BYTES).`);
      }
    };
    const params = (earlyChange: PdfValue | undefined): StageParams => ({
      earlyChange: typeof earlyChange === 'number' ? earlyChange : undefined,
      // What is left under the caps: a whole-input decoder stops one byte past it.
      get limit() {
        return Math.min(caps.maxInflatedBytes - inflated, image ? Infinity : caps.maxPageBytes - streamBytes) + 1;
      },
      over: count,
    });
    const stages = chain(filters, count, params, packed);
    const first = stages[0];
    if (!first) {
      // Not decoded (no filter, or an image codec first): pdf.js holds its bytes as they are.
      pages.sized(num, end - dataStart);
      continue;
    }
    streams++;
    for (let at = dataStart; at < end && !stages.some((stage) => stage.done); at += SLICE) {
      const slice = bytes.subarray(at, Math.min(at + SLICE, end));
      fed += slice.length;
      first.push(slice);
    }
    for (const stage of stages) stage.end?.();
    pages.sized(num, streamBytes);
    const objects = packed?.bytes();
    if (objects && dict) pages.unpack(dict, objects);
    // A real file's streams are fed about once in all; one fed far more than its size (lengths that
    // each reach over the rest of the file) is built to waste the reader's time.
    if (fed > bytes.length * 4 + 4_000_000) throw exhausting(name);
  }
  if (pages.largest() > caps.maxPageBytes) {
    throw new ParseRefusal(`${name} has a page whose content inflates to more than ${mb(caps.maxPageBytes)} MB, its content streams together (a PDF bomb, or far more than a page needs) (KNOWLEDGE_PDF_MAX_PAGE_BYTES).`);
  }
  return { streams, inflated };
}
