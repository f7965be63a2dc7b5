/**
 * A PDF or Word file to passages, after the document parser has read it. A PDF's pages are packed one
 * by one, never across a page break, and each passage keeps its page as its location (`p. 12`), which
 * the answer cites. A Word file arrives as HTML with its headings, and takes the HTML path from there.
 */
import { cleanDocumentText } from '../agent/clean-text.js';
import { CHUNK_SIZES, chunkText, packSection, type Passage } from './chunk.js';
import { finishDocument, formatBytes, markHtmlHeadings, type PreparedDocument } from './documents.js';
import { KnowledgeInputError } from './errors.js';
import { htmlToText } from '../../tools/html-text.js';
import type { DocumentParser } from './parse/document-parser.js';
import type { DocumentInput } from './types.js';

/** Options of `prepareParsed`. */
export interface PrepareParsedOptions {
  /** KNOWLEDGE_MAX_FILE_BYTES: the most text a document may hold. */
  maxTextBytes: number;
  signal?: AbortSignal;
  /** Pages read so far, of how many. */
  onPages?: (done: number, total: number) => void;
}

/** Read a PDF or Word document with `parser` and split it; refusals are KnowledgeInputError. */
export async function prepareParsed(doc: DocumentInput, parser: DocumentParser, options: PrepareParsedOptions): Promise<PreparedDocument> {
  const name = doc.source.split(/[\\/]/).pop() || doc.source;
  if (!doc.data || (doc.format !== 'pdf' && doc.format !== 'docx')) throw new KnowledgeInputError(`${name}: a PDF or Word document needs its bytes.`);
  const parsed = await parser.parse(doc.format, doc.data, { name, maxTextBytes: options.maxTextBytes, signal: options.signal, onProgress: options.onPages });
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
  const converted = htmlToText(markHtmlHeadings(parsed.html));
  const text = cleanDocumentText(converted.text);
  const bytes = Buffer.byteLength(text, 'utf8');
  checkText(name, bytes, options.maxTextBytes);
  const { passages, title } = chunkText(text, 'marked');
  return finishDocument(doc, passages, [parsed.title, title], bytes);
}

function checkText(name: string, bytes: number, max: number): void {
  if (bytes > max) throw new KnowledgeInputError(`${name} holds ${formatBytes(bytes)} of text; a document may hold at most ${formatBytes(max)} (KNOWLEDGE_MAX_FILE_BYTES).`);
}
