/**
 * A Word file (.docx) as HTML, with mammoth (Word's heading styles become h1-h6, so headings are kept).
 * Runs inside the parser's worker process. A .docx is a zip, and a zip can say it is small and inflate
 * to gigabytes: before mammoth unzips it, every entry is inflated here once with fflate, counting the
 * bytes as they come out and stopping at the cap, so the sizes the file declares are never trusted.
 */
import { Unzip, UnzipInflate } from 'fflate';
import { ParseRefusal, type ParseCaps } from './parse-types.js';
import { TEXT_CAPS } from '../../agent/text-caps.js';

/** More entries than any real Word file has. */
const MAX_ENTRIES = 5_000;

/** Inflate every entry, counting; throws ParseRefusal past the cap or when it is no zip. */
export function checkZip(bytes: Uint8Array, name: string, maxInflatedBytes: number): { entries: string[]; inflated: number } {
  const entries: string[] = [];
  let inflated = 0;
  let problem: string | undefined;
  const unzip = new Unzip();
  unzip.register(UnzipInflate);
  unzip.onfile = (file) => {
    entries.push(file.name);
    if (entries.length > MAX_ENTRIES) problem ??= `${name} holds more than ${MAX_ENTRIES} files inside; that is no Word document.`;
    file.ondata = (error, chunk) => {
      if (error) problem ??= `${name} is damaged (${error.message}).`;
      inflated += chunk?.length ?? 0;
      if (inflated > maxInflatedBytes) {
        problem ??= `${name} unpacks to more than ${Math.round(maxInflatedBytes / 1_000_000)} MB (a zip bomb, or far more than a document needs); it was stopped there.`;
        file.terminate();
      }
    };
    if (!problem) file.start();
  };
  try {
    // Fed in slices, so a bomb is stopped after a slice, not after the whole file has inflated.
    for (let at = 0; at < bytes.length && !problem; at += 65_536) unzip.push(bytes.subarray(at, at + 65_536), at + 65_536 >= bytes.length);
  } catch (error) {
    problem ??= `${name} is not a valid .docx (${(error as Error).message}).`;
  }
  if (problem) throw new ParseRefusal(problem);
  if (!entries.includes('word/document.xml')) throw new ParseRefusal(`${name} is not a Word document (it has no word/document.xml).`);
  return { entries, inflated };
}

/** The document's body as HTML, for the worker's HTML reader; its title from the first heading is left to the sections. */
export async function docxHtml(bytes: Uint8Array, name: string, caps: ParseCaps): Promise<{ html: string }> {
  checkZip(bytes, name, caps.maxInflatedBytes);
  const mammoth = (await import('mammoth')).default;
  let html: string;
  try {
    // Images are dropped: only text is indexed, and an image's bytes would only cost memory.
    html = (await mammoth.convertToHtml({ buffer: Buffer.from(bytes) }, { convertImage: mammoth.images.imgElement(async () => ({ src: '' })) })).value;
  } catch (error) {
    throw new ParseRefusal(`${name} could not be read as a Word document (${(error as Error).message.slice(0, TEXT_CAPS.echo)}).`);
  }
  if (Buffer.byteLength(html, 'utf8') > caps.maxTextBytes * 4) {
    throw new ParseRefusal(`${name} holds more text than a document may (KNOWLEDGE_MAX_FILE_BYTES).`);
  }
  return { html };
}
