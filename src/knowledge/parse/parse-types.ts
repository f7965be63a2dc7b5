/**
 * What the document parser's host and its worker process say to each other. Kept free of imports, so
 * the worker (started as a CommonJS child) and the host share one definition.
 */

/** The formats that are parsed in the worker: binary files whose text must be extracted. */
export type ParsedFormat = 'pdf' | 'docx';

/** The caps one parse runs under; the host also kills the worker past its time and heap limits. */
export interface ParseCaps {
  /** Most pages a PDF may have (KNOWLEDGE_MAX_PAGES); checked before any page is read. */
  maxPages: number;
  /** Most UTF-8 bytes of text extracted (KNOWLEDGE_MAX_FILE_BYTES): the parse stops past it. */
  maxTextBytes: number;
  /** Most bytes a .docx may inflate to, counted while inflating (a zip bomb stops here). */
  maxInflatedBytes: number;
}

/** A request to the worker. */
export interface ParseRequest {
  id: number;
  format: ParsedFormat;
  name: string;
  bytes: Uint8Array;
  caps: ParseCaps;
}

/** A PDF's text, one string per page (page 1 first), and its title when the file names one. */
export interface ParsedPages {
  kind: 'pages';
  pages: string[];
  title?: string;
}

/** A Word file as HTML (headings as h1-h6), for the same converter as HTML documents. */
export interface ParsedHtml {
  kind: 'html';
  html: string;
  title?: string;
}

export type Parsed = ParsedPages | ParsedHtml;

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
