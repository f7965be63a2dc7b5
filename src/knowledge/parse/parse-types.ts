/**
 * What the document reader's host and its worker process say to each other. Kept free of imports, so
 * the worker (started as a CommonJS child) and the host share one definition.
 */

/** The binary formats the worker reads from their bytes. */
export type ParsedFormat = 'pdf' | 'docx';

/** The caps one parse runs under; the host also kills the worker past its time and memory limits. */
export interface ParseCaps {
  /** Most pages a PDF may have (KNOWLEDGE_MAX_PAGES); checked before any page is read. */
  maxPages: number;
  /** Most UTF-8 bytes of text extracted (KNOWLEDGE_MAX_FILE_BYTES): the parse stops past it. */
  maxTextBytes: number;
  /** Most bytes a .docx may inflate to, all its entries together, counted while inflating (a zip bomb stops here). */
  maxInflatedBytes: number;
  /** Most bytes a PDF's streams may decode to together (KNOWLEDGE_PDF_MAX_INFLATED_BYTES), counted before pdf.js reads it. */
  maxPdfInflatedBytes: number;
  /** Most bytes one PDF page's content (its content streams together), or any one stream that is no image, may decode to (KNOWLEDGE_PDF_MAX_PAGE_BYTES). */
  maxPdfPageBytes: number;
}

/** A request to the worker: a PDF or Word file's bytes, or HTML (a document or a web page) as text. */
export type ParseRequest = { id: number; name: string; caps: ParseCaps } & (
  | { format: ParsedFormat; bytes: Uint8Array }
  /** `url`: the page's address, for its links; `article`: look for the page's article (Readability). */
  | { format: 'html'; html: string; url?: string; article: boolean }
);

/** A PDF's text, one string per page (page 1 first), and its title when the file names one. */
export interface ParsedPages {
  kind: 'pages';
  pages: string[];
  title?: string;
}

/**
 * HTML (a page, an HTML document, a Word file through mammoth) as text, its headings marked with
 * HEADING_MARK and their level (see heading-marks.ts).
 */
export interface ParsedText {
  kind: 'text';
  text: string;
  title?: string;
  byline?: string;
  /** The text is the page's article (Readability found one), not all of the page. */
  article: boolean;
  /** Why no article was looked for (the page's size or shape), for whoever added or asked for it. */
  plainBecause?: string;
}

export type Parsed = ParsedPages | ParsedText;

/** What the worker answers: ready once, progress while it reads pages, then one reply per request. */
export type ParseReply =
  | { type: 'ready' }
  | { type: 'progress'; id: number; done: number; total: number }
  | { type: 'reply'; id: number; ok: true; parsed: Parsed }
  /** `refused`: the file itself is the problem (a cap, no text layer, not a real PDF); the message says why. */
  | { type: 'reply'; id: number; ok: false; refused: boolean; message: string };

/** Thrown inside the worker for a file that is refused; its message is for the moderator. */
export class ParseRefusal extends Error {
  override name = 'ParseRefusal';
}
