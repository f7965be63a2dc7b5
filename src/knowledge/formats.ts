/**
 * Which files the knowledge base reads, and as what. A type is known by the file name's extension or,
 * for a URL or an upload that says so, its media type. Markdown, text and HTML are decoded as text; PDF
 * and Word files are read from their bytes by the document parser, after their first bytes show they
 * are what their name says, and HTML is converted in the parser's worker too.
 */
import path from 'node:path';
import type { DocumentFormat } from './types.js';

/** File name endings the knowledge base reads, and as what. */
export const EXTENSIONS: Readonly<Record<string, DocumentFormat>> = {
  '.md': 'markdown', '.markdown': 'markdown', '.txt': 'text', '.html': 'html', '.htm': 'html', '.pdf': 'pdf', '.docx': 'docx',
};

const MEDIA_TYPES: Readonly<Record<string, DocumentFormat>> = {
  'text/markdown': 'markdown', 'text/x-markdown': 'markdown', 'text/plain': 'text',
  'text/html': 'html', 'application/xhtml+xml': 'html', 'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
};

/** What may be added, for refusals. */
export const ACCEPTED = 'Markdown (.md, .markdown), plain text (.txt), HTML (.html, .htm), PDF (.pdf) or Word (.docx)';

/** Whether a format is read from bytes by the document parser rather than decoded as text. */
export function isParsedFormat(format: DocumentFormat): format is 'pdf' | 'docx' {
  return format === 'pdf' || format === 'docx';
}

/**
 * Whether a document is read in the document parser's worker: PDF and Word from their bytes, HTML as
 * text (its article is found there, off the bot's main thread). Markdown and plain text are split here.
 */
export function readInWorker(format: DocumentFormat): format is 'pdf' | 'docx' | 'html' {
  return isParsedFormat(format) || format === 'html';
}

/** The format a file name says, or undefined for an unknown type. */
export function formatOfName(name: string): DocumentFormat | undefined {
  return EXTENSIONS[path.extname(name).toLowerCase()];
}

/**
 * The format of a fetched or uploaded body: the media type decides, except that a plain-text body whose
 * name ends in .md is Markdown (many servers send Markdown as text/plain), and a generic binary type
 * (`application/octet-stream`) leaves it to a .pdf or .docx name.
 */
export function formatOfMediaType(mediaType: string, name = ''): DocumentFormat | undefined {
  const type = mediaType.toLowerCase();
  const byName = formatOfName(name);
  if (type === 'application/octet-stream' && byName && isParsedFormat(byName)) return byName;
  const format = MEDIA_TYPES[type];
  if (format === 'text' && byName === 'markdown') return 'markdown';
  return format;
}

/** Whether the first bytes are those of the format: `%PDF-` near the start, or a zip's `PK\3\4`. */
export function looksLike(format: 'pdf' | 'docx', bytes: Uint8Array): boolean {
  if (format === 'docx') return bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
  // PDF readers accept the header anywhere in the first kilobyte.
  return Buffer.from(bytes.subarray(0, 1_024)).includes('%PDF-');
}
