/**
 * From bytes to a document, and from a document to the passages that are indexed. Markdown, plain text
 * and HTML are decoded as text: content that is not UTF-8 text (NUL bytes, undecodable bytes, mostly
 * control characters) is refused as binary whatever its name says. PDF and Word files keep their bytes
 * for the document parser, once their first bytes show they are what they claim; HTML goes to the
 * parser's worker as text (`prepare-parsed.ts`), since finding a page's article can take seconds.
 */
import { createHash } from 'node:crypto';
import { chunkText, type Passage } from './chunk.js';
import { cleanDocumentText } from '../agent/clean-text.js';
import { KnowledgeInputError } from './errors.js';
import { ACCEPTED, formatOfMediaType, formatOfName, isParsedFormat, looksLike, readInWorker } from './formats.js';
import type { DocumentInput } from './types.js';

export { EXTENSIONS, formatOfMediaType, formatOfName } from './formats.js';

/** Options for `documentFromBytes`. */
export interface BytesDocument {
  /** The file or attachment name (used for the type, and as the title when the content has none). */
  name: string;
  bytes: Uint8Array;
  source: string;
  link?: string;
  /** When known (a URL, a Discord attachment's content type); otherwise the name's extension decides. */
  mediaType?: string;
  charset?: string;
  maxFileBytes: number;
  /** Largest PDF or Word file (KNOWLEDGE_MAX_UPLOAD_BYTES); default `maxFileBytes`. */
  maxUploadBytes?: number;
}

/** Decode and check a file or attachment; throws KnowledgeInputError when it is refused. */
export function documentFromBytes(input: BytesDocument): DocumentInput {
  const format = input.mediaType ? formatOfMediaType(input.mediaType, input.name) : formatOfName(input.name);
  if (!format) {
    const what = input.mediaType ? `of type ${input.mediaType}` : 'of an unknown type';
    throw new KnowledgeInputError(`${input.name} is ${what}; only ${ACCEPTED} can be added.`);
  }
  if (isParsedFormat(format)) {
    const max = input.maxUploadBytes ?? input.maxFileBytes;
    if (input.bytes.length > max) {
      throw new KnowledgeInputError(`${input.name} is ${formatBytes(input.bytes.length)}; a PDF or Word file may be at most ${formatBytes(max)} (KNOWLEDGE_MAX_UPLOAD_BYTES).`);
    }
    if (!looksLike(format, input.bytes)) {
      throw new KnowledgeInputError(`${input.name} is not a ${format === 'pdf' ? 'PDF' : 'Word (.docx)'} file, whatever its name says; only ${ACCEPTED} can be added.`);
    }
    return { source: input.source, link: input.link, title: undefined, format, content: '', data: input.bytes };
  }
  if (input.bytes.length > input.maxFileBytes) {
    throw new KnowledgeInputError(`${input.name} is ${formatBytes(input.bytes.length)}; a document may be at most ${formatBytes(input.maxFileBytes)} (KNOWLEDGE_MAX_FILE_BYTES).`);
  }
  const content = decodeText(input.bytes, input.name, input.charset);
  return { source: input.source, link: input.link, title: undefined, format, content };
}

/** Bytes to text; binary content is refused. */
export function decodeText(bytes: Uint8Array, name: string, charset?: string): string {
  if (bytes.includes(0)) throw binary(name);
  let text: string;
  try {
    text = new TextDecoder(charset ?? 'utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    // RangeError: a charset name TextDecoder does not know, so read it as UTF-8. TypeError: undecodable bytes.
    if (error instanceof RangeError && charset) return decodeText(bytes, name);
    throw binary(name, error);
  }
  assertTextual(text, name);
  return text;
}

/** Refuse text that is mostly control characters (what binary formats look like once decoded). */
export function assertTextual(text: string, name: string): void {
  if (text.includes('\u0000')) throw binary(name);
  const sample = text.slice(0, 8_192);
  const controls = sample.match(/[\u0001-\u0008\u000E-\u001F\u007F]/g)?.length ?? 0;
  if (controls > sample.length * 0.05) throw binary(name);
}

function binary(name: string, cause?: unknown): KnowledgeInputError {
  return new KnowledgeInputError(`${name} looks like a binary file, not UTF-8 text; only ${ACCEPTED} can be added.`, { cause });
}

/** A document ready to index. */
export interface PreparedDocument {
  title: string;
  passages: Passage[];
  hash: string;
  bytes: number;
  /** How it was read, when not as usual (an HTML page read as plain text, and why), for whoever added it. */
  note?: string;
}

/** Bump when chunking or cleaning changes, so unchanged documents are indexed again once (2: HTML by its article). */
const PREPARE_VERSION = 2;

/** The hash that decides whether a document changed: its content and everything shown with it. */
export function documentHash(doc: DocumentInput): string {
  const hash = createHash('sha256')
    // The channel only when there is one, so documents without it keep the hash they were indexed with.
    .update(JSON.stringify([PREPARE_VERSION, doc.format, doc.title ?? '', doc.link ?? '', doc.content, ...(doc.channelId ? [doc.channelId] : [])]));
  if (doc.data) hash.update(doc.data);
  return hash.digest('hex');
}

/** Clean and split a Markdown or plain text document (the others are read in the parser's worker: `prepareParsed`). */
export function prepareDocument(doc: DocumentInput): PreparedDocument {
  if (readInWorker(doc.format)) throw new KnowledgeInputError(`${doc.source}: a ${doc.format.toUpperCase()} document is read by the document parser, not as text.`);
  const bytes = Buffer.byteLength(doc.content, 'utf8');
  assertTextual(doc.content, doc.source);
  let text = cleanDocumentText(doc.content.replace(/^\uFEFF/, ''));
  const syntax = doc.format as 'markdown' | 'text';
  const frontMatter = syntax === 'markdown' ? /^---\n([\s\S]*?)\n---\n/.exec(text) : null;
  if (frontMatter) text = text.slice(frontMatter[0].length);
  const { passages, title: headingTitle } = chunkText(text, syntax);
  const frontTitle = frontMatter?.[1]?.match(/^title:\s*["']?(.+?)["']?\s*$/m)?.[1];
  return finishDocument(doc, passages, [frontTitle, headingTitle], bytes);
}

/**
 * The prepared document from its passages: the title (the one given, else the first of `titles` that
 * is set, else the file name), heading paths that merely repeat it trimmed, and the hash.
 */
export function finishDocument(doc: DocumentInput, passages: Passage[], titles: Array<string | undefined>, bytes: number): PreparedDocument {
  const chosen = doc.title ?? titles.find((t) => t?.trim()) ?? defaultTitle(doc.source);
  const title = cleanDocumentText(chosen).replace(/\s+/g, ' ').trim().slice(0, 200);
  if (passages.length === 0) throw new KnowledgeInputError(`${doc.source} has no text to index.`);
  // The title is shown with every passage; a heading path that merely repeats it says nothing more.
  for (const passage of passages) {
    if (passage.headings[0] === title) passage.headings = passage.headings.slice(1);
  }
  return { title: title || defaultTitle(doc.source), passages, hash: documentHash(doc), bytes };
}

export function defaultTitle(source: string): string {
  const name = source.replace(/[?#].*$/, '').replace(/\/+$/, '').split(/[\\/]/).pop() ?? source;
  return name || source;
}

/** 1.2 MB, 300 KB, 512 bytes. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(1).replace(/\.0$/, '')} MB`;
  if (bytes >= 1_000) return `${Math.round(bytes / 1_000)} KB`;
  return `${bytes} bytes`;
}
