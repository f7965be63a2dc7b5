/**
 * From bytes to a document, and from a document to the passages that are indexed. Only Markdown, plain
 * text and HTML are accepted: a type is known by the file name's extension (or, for a URL, the media
 * type), and content that is not UTF-8 text (NUL bytes, undecodable bytes, mostly control characters)
 * is refused as binary whatever its name says.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { htmlToText } from '../../tools/html-text.js';
import { chunkText, type Passage } from './chunk.js';
import { cleanDocumentText } from '../agent/clean-text.js';
import { KnowledgeInputError } from './errors.js';
import { HEADING_MARK } from './sections.js';
import type { DocumentFormat, DocumentInput } from './types.js';

/** File name endings the knowledge base reads, and as what. */
export const EXTENSIONS: Readonly<Record<string, DocumentFormat>> = {
  '.md': 'markdown', '.markdown': 'markdown', '.txt': 'text', '.html': 'html', '.htm': 'html',
};

const MEDIA_TYPES: Readonly<Record<string, DocumentFormat>> = {
  'text/markdown': 'markdown', 'text/x-markdown': 'markdown', 'text/plain': 'text',
  'text/html': 'html', 'application/xhtml+xml': 'html',
};

const ACCEPTED = 'Markdown (.md, .markdown), plain text (.txt) or HTML (.html, .htm)';

/** The format a file name says, or undefined for an unknown type. */
export function formatOfName(name: string): DocumentFormat | undefined {
  return EXTENSIONS[path.extname(name).toLowerCase()];
}

/**
 * The format of a fetched or uploaded body: the media type decides, except that a plain-text body whose
 * name ends in .md is Markdown (many servers send Markdown as text/plain).
 */
export function formatOfMediaType(mediaType: string, name = ''): DocumentFormat | undefined {
  const format = MEDIA_TYPES[mediaType.toLowerCase()];
  if (format === 'text' && formatOfName(name) === 'markdown') return 'markdown';
  return format;
}

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
}

/** Decode and check a file or attachment; throws KnowledgeInputError when it is refused. */
export function documentFromBytes(input: BytesDocument): DocumentInput {
  const format = input.mediaType ? formatOfMediaType(input.mediaType, input.name) : formatOfName(input.name);
  if (!format) {
    const what = input.mediaType ? `of type ${input.mediaType}` : 'of an unknown type';
    throw new KnowledgeInputError(`${input.name} is ${what}; only ${ACCEPTED} can be added.`);
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
}

/** Bump when chunking or cleaning changes, so unchanged documents are indexed again once. */
const PREPARE_VERSION = 1;

/** The hash that decides whether a document changed: its content and everything shown with it. */
export function documentHash(doc: DocumentInput): string {
  return createHash('sha256')
    // The channel only when there is one, so documents without it keep the hash they were indexed with.
    .update(JSON.stringify([PREPARE_VERSION, doc.format, doc.title ?? '', doc.link ?? '', doc.content, ...(doc.channelId ? [doc.channelId] : [])]))
    .digest('hex');
}

/** Convert, clean and split a document. */
export function prepareDocument(doc: DocumentInput): PreparedDocument {
  const bytes = Buffer.byteLength(doc.content, 'utf8');
  assertTextual(doc.content, doc.source);
  let text: string;
  let fallbackTitle: string | undefined;
  if (doc.format === 'html') {
    const converted = htmlToText(markHtmlHeadings(doc.content));
    text = converted.text;
    fallbackTitle = converted.title;
  } else {
    text = doc.content.replace(/^\uFEFF/, '');
  }
  text = cleanDocumentText(text);
  const syntax = doc.format === 'html' ? 'marked' : doc.format;
  const frontMatter = syntax === 'markdown' ? /^---\n([\s\S]*?)\n---\n/.exec(text) : null;
  if (frontMatter) text = text.slice(frontMatter[0].length);
  const { passages, title: headingTitle } = chunkText(text, syntax);
  const frontTitle = frontMatter?.[1]?.match(/^title:\s*["']?(.+?)["']?\s*$/m)?.[1];
  const title = cleanDocumentText(doc.title ?? frontTitle ?? fallbackTitle ?? headingTitle ?? defaultTitle(doc.source)).replace(/\s+/g, ' ').trim().slice(0, 200);
  if (passages.length === 0) throw new KnowledgeInputError(`${doc.source} has no text to index.`);
  // The title is shown with every passage; a heading path that merely repeats it says nothing more.
  for (const passage of passages) {
    if (passage.headings[0] === title) passage.headings = passage.headings.slice(1);
  }
  return { title: title || defaultTitle(doc.source), passages, hash: documentHash(doc), bytes };
}

/** HTML headings carry a mark into the converted text, so their structure survives conversion. */
function markHtmlHeadings(html: string): string {
  return html.replaceAll(HEADING_MARK, '').replace(/<h([1-6])(\s[^>]*)?>/gi, (tag, level: string) => `${tag}${HEADING_MARK}${level}`);
}

function defaultTitle(source: string): string {
  const name = source.replace(/[?#].*$/, '').replace(/\/+$/, '').split(/[\\/]/).pop() ?? source;
  return name || source;
}

/** 1.2 MB, 300 KB, 512 bytes. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(1).replace(/\.0$/, '')} MB`;
  if (bytes >= 1_000) return `${Math.round(bytes / 1_000)} KB`;
  return `${bytes} bytes`;
}
