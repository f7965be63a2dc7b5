/**
 * A document read in the document parser's worker, to passages: a PDF's pages are packed one by one,
 * never across a page break, and each passage keeps its page as its location (`p. 12`), which the
 * answer cites. An HTML document (by its article, byline first, where it has one) and a Word file come
 * back as text with their headings marked, and are split into sections by those headings.
 */
import { cleanDocumentText } from '../agent/clean-text.js';
import { CHUNK_SIZES, chunkText, packSection, type Passage } from './chunk.js';
import { assertTextual, finishDocument, formatBytes, type PreparedDocument } from './documents.js';
import { KnowledgeInputError } from './errors.js';
import { bylineLine } from './parse/html-text.js';
import type { DocumentParser } from './parse/document-parser.js';
import type { Parsed } from './parse/parse-types.js';
import type { DocumentInput } from './types.js';

/** Options of `prepareParsed`. */
export interface PrepareParsedOptions {
  /** KNOWLEDGE_MAX_FILE_BYTES: the most text a document may hold. */
  maxTextBytes: number;
  signal?: AbortSignal;
  /** Pages read so far, of how many. */
  onPages?: (done: number, total: number) => void;
}

/** Read a PDF, Word or HTML document with `parser` and split it; refusals are KnowledgeInputError. */
export async function prepareParsed(doc: DocumentInput, parser: DocumentParser, options: PrepareParsedOptions): Promise<PreparedDocument> {
  const name = doc.source.split(/[\\/]/).pop() || doc.source;
  const parse = { name, maxTextBytes: options.maxTextBytes, signal: options.signal };
  let parsed: Parsed;
  if (doc.format === 'html') {
    assertTextual(doc.content, doc.source);
    parsed = await parser.readHtml(doc.content, { ...parse, url: doc.link, article: true });
  } else {
    if (!doc.data || (doc.format !== 'pdf' && doc.format !== 'docx')) throw new KnowledgeInputError(`${name}: a PDF or Word document needs its bytes.`);
    parsed = await parser.parse(doc.format, doc.data, { ...parse, onProgress: options.onPages });
  }
  if (parsed.kind === 'pages') {
    const passages: Passage[] = [];
    let bytes = 0;
    parsed.pages.forEach((raw, index) => {
      const text = cleanDocumentText(raw);
      bytes += Buffer.byteLength(text, 'utf8');
      const blocks = text.split(/\n\s*\n/).map((b) => b.trim()).filter(Boolean);
      for (const passage of packSection({ headings: [], blocks }, CHUNK_SIZES)) passages.push({ ...passage, location: `p. ${index + 1}` });
    });
    checkText(name, bytes, options.maxTextBytes);
    return finishDocument(doc, passages, [parsed.title], bytes);
  }
  const text = cleanDocumentText((parsed.byline ? `${bylineLine(parsed.byline)}\n\n` : '') + parsed.text);
  const textBytes = Buffer.byteLength(text, 'utf8');
  checkText(name, textBytes, options.maxTextBytes);
  const { passages, title } = chunkText(text, 'marked');
  // An HTML document counts as the markup it was added as (as it always has); a Word file as its text.
  const prepared = finishDocument(doc, passages, [parsed.title, title], doc.format === 'html' ? Buffer.byteLength(doc.content, 'utf8') : textBytes);
  return parsed.plainBecause ? { ...prepared, note: `Read as plain text, not by its article: ${parsed.plainBecause}.` } : prepared;
}

function checkText(name: string, bytes: number, max: number): void {
  if (bytes > max) throw new KnowledgeInputError(`${name} holds ${formatBytes(bytes)} of text; a document may hold at most ${formatBytes(max)} (KNOWLEDGE_MAX_FILE_BYTES).`);
}
