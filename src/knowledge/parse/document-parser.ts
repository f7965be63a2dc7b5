/**
 * The bot's side of reading documents: one warm worker process (started on first use) that reads one
 * PDF, Word file or piece of HTML at a time, with a time limit per read and a memory limit for the
 * process, as the calculator's and the chart renderer's workers have. pdf.js, mammoth, linkedom and
 * Readability run synchronously for long stretches (Readability took 8 s over 90,000 nested `<div>`s),
 * so nothing of an untrusted document is read on the bot's main thread, and the only sure way to stop
 * a hostile one is to kill the process: a read that overruns, overflows the heap or takes the process's
 * resident memory past the limit (sampled from /proc: pdf.js's decoded streams live outside the heap)
 * costs the worker its life and is refused with the reason (a page whose article search overruns is
 * read again as plain text instead), and the next read starts a fresh worker. A refused read that grew
 * the worker ends it too (a hostile document's leftovers are not kept warm), and so does any read that
 * leaves it holding over half its limit, so the next one starts with its headroom. Inside the worker a
 * PDF's streams are first counted as they inflate (pdf-inflate.ts), so most PDF bombs are refused
 * before pdf.js decodes them, with the truer reason. Nothing is written to the index before the whole
 * file has been read, so a stopped file leaves nothing half-indexed.
 *
 * One parser is one lane, first come first served: the knowledge base has one, and read_url has its own
 * two (pages, and PDFs) so that a model's page never waits behind a moderator's 1,000-page PDF.
 */
import { KnowledgeInputError } from '../errors.js';
import { residentBytes } from '../../workers/worker-memory.js';
import { exchange, startParseWorker, type ParseWorker } from './parse-process.js';
import type { ParseCaps, ParsedFormat, Parsed, ParsedText, ParseRequest } from './parse-types.js';
import { TEXT_CAPS } from '../../agent/text-caps.js';

export interface DocumentParserOptions {
  /** Wall-clock limit per read, from when the worker starts on it (KNOWLEDGE_PARSE_TIMEOUT_MS, default 60 s). */
  timeoutMs?: number;
  /** The setting named when a read overruns `timeoutMs` (default KNOWLEDGE_PARSE_TIMEOUT_MS; '': none, a fixed limit). */
  timeoutSetting?: string;
  /** Memory limit of the worker process, its resident memory and its heap (KNOWLEDGE_PARSE_MEMORY_MB, default 512 MB). */
  maxMemoryMb?: number;
  /** Most pages of a PDF (KNOWLEDGE_MAX_PAGES, default 1,000). */
  maxPages?: number;
  /** Most bytes a .docx may inflate to, all its entries together (default 100 MB). */
  maxInflatedBytes?: number;
  /** Most bytes a PDF's streams may decode to together (KNOWLEDGE_PDF_MAX_INFLATED_BYTES, default 256 MB). */
  maxPdfInflatedBytes?: number;
  /** Most bytes one PDF page's content, or any one stream that is no image, may decode to (KNOWLEDGE_PDF_MAX_PAGE_BYTES, default 64 MB). */
  maxPdfPageBytes?: number;
  /** How far past its resting memory a refused read may have taken the worker before it is restarted (default an eighth of maxMemoryMb, at least 32 MB). */
  regrowMb?: number;
  /** Reads that may wait while one runs (default 8). */
  maxQueue?: number;
}

/** Options of one read. */
export interface ParseOptions {
  /** The file's name (or the page's address), for messages. */
  name: string;
  /** Most UTF-8 bytes of text it may hold (KNOWLEDGE_MAX_FILE_BYTES). */
  maxTextBytes: number;
  /** Cancels the read, also while it waits for its turn. */
  signal?: AbortSignal;
  /** Pages read so far, of how many (PDF only). */
  onProgress?: (done: number, total: number) => void;
}

/** Reads documents in a worker process; refusals are KnowledgeInputError. */
export interface DocumentParser {
  /** A PDF or Word file from its bytes. */
  parse(format: ParsedFormat, bytes: Uint8Array, options: ParseOptions): Promise<Parsed>;
  /** HTML as text; with `article`, by the page's article where it has one (`url` resolves its links). */
  readHtml(html: string, options: ParseOptions & { url?: string; article: boolean }): Promise<ParsedText>;
  readonly limits: { timeoutMs: number; maxMemoryMb: number; maxPages: number };
  /** The worker now, and the last read's highest resident memory (undefined where there is no /proc). */
  stats(): ParserStats;
  close(): Promise<void>;
}

/** What the parser tells of its worker, for tests and the bench. */
export interface ParserStats {
  /** Workers started so far (one more after every stop or restart, when the next read comes). */
  starts: number;
  pid?: number;
  /** The worker's resident memory when it was ready, in bytes. */
  restingRssBytes?: number;
  /** The highest resident memory sampled while the last read ran, in bytes. */
  lastPeakRssBytes?: number;
}

/** A request before it is given its id, its name and its caps. */
type Work = ParseRequest extends infer R ? (R extends ParseRequest ? Omit<R, 'id' | 'name' | 'caps'> : never) : never;

/** A read stopped at the time limit; a page stopped while its article was looked for is read again without. */
class Overran extends KnowledgeInputError {}

/** The parser with its worker not yet started (nothing runs until the first document). */
export function createDocumentParser(options: DocumentParserOptions = {}): DocumentParser {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const timeoutSetting = options.timeoutSetting ?? 'KNOWLEDGE_PARSE_TIMEOUT_MS';
  const maxMemoryMb = options.maxMemoryMb ?? 512;
  const maxPages = options.maxPages ?? 1_000;
  const maxInflatedBytes = options.maxInflatedBytes ?? 100_000_000;
  const maxPdfInflatedBytes = options.maxPdfInflatedBytes ?? 256_000_000;
  const maxPdfPageBytes = options.maxPdfPageBytes ?? 64_000_000;
  const maxRssBytes = maxMemoryMb * 1_048_576;
  const regrowBytes = (options.regrowMb ?? Math.max(32, maxMemoryMb / 8)) * 1_048_576;
  const maxQueue = options.maxQueue ?? 8;
  const stats: ParserStats = { starts: 0 };
  const limit = timeoutMs >= 1_000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`;
  let worker: ParseWorker | undefined;
  let tail: Promise<unknown> = Promise.resolve();
  let waiting = 0;
  let nextId = 0;
  let closed = false;

  const start = () => {
    if (worker) return worker;
    stats.starts += 1;
    return (worker = startParseWorker(maxMemoryMb, (gone) => {
      if (worker === gone) worker = undefined;
    }));
  };
  const kill = async () => {
    const current = worker;
    worker = undefined;
    await current?.process.terminate();
  };
  /**
   * The worker collects its garbage before it replies, so what it holds then is what the read left
   * behind. A good read's leftovers (pdf.js loaded, V8 keeping its pages) are worth keeping warm; a
   * refused read that grew the worker, or any read that leaves it over half its limit, costs it its life.
   */
  const leftGrown = (current: ParseWorker, ok: boolean, peak: number | undefined) => {
    const after = residentBytes(current.process.pid);
    const resting = current.restingRssBytes;
    const grown = (bytes?: number) => bytes !== undefined && resting !== undefined && bytes > resting + regrowBytes;
    return (after ?? 0) > maxRssBytes / 2 || (!ok && (grown(peak) || grown(after)));
  };
  const cancelled = (name: string) => new KnowledgeInputError(`Reading ${name} was cancelled.`);

  const read = async (work: Work, parse: ParseOptions): Promise<Parsed> => {
    if (parse.signal?.aborted || closed) throw cancelled(parse.name);
    const current = start();
    try {
      await current.ready;
    } catch (error) {
      await kill();
      throw new KnowledgeInputError(`The document reader could not start, so ${parse.name} was not read; try again later.`, { cause: error });
    }
    const caps: ParseCaps = { maxPages, maxTextBytes: parse.maxTextBytes, maxInflatedBytes, maxPdfInflatedBytes, maxPdfPageBytes };
    const request = { ...work, id: ++nextId, name: parse.name, caps } as ParseRequest;
    const { outcome, peakRssBytes } = await exchange(current.process, request, { timeoutMs, maxRssBytes, signal: parse.signal, onProgress: parse.onProgress });
    stats.lastPeakRssBytes = peakRssBytes;
    if (outcome.kind === 'reply') {
      if (leftGrown(current, outcome.reply.ok, peakRssBytes)) await kill();
      if (outcome.reply.ok) return outcome.reply.parsed;
      throw new KnowledgeInputError(outcome.reply.refused ? outcome.reply.message : `${parse.name} could not be read (${outcome.reply.message.slice(0, TEXT_CAPS.echo)}).`);
    }
    await kill();
    if (outcome.kind === 'timeout') {
      const setting = timeoutSetting ? ` (${timeoutSetting})` : '';
      throw new Overran(`Reading ${parse.name} took longer than ${limit}${setting} and was stopped: it is too large or built to exhaust the reader.`);
    }
    if (outcome.kind === 'aborted') throw cancelled(parse.name);
    if (outcome.kind === 'memory-limit' || (outcome.error as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY' || /SIGABRT/.test(outcome.error?.message ?? '')) {
      const why = work.format === 'html' ? 'it is too large or built to exhaust the reader' : 'it unpacks to far more than it shows (a PDF or zip bomb?)';
      throw new KnowledgeInputError(`Reading ${parse.name} needed more than the reader's ${maxMemoryMb} MB of memory and was stopped: ${why}.`);
    }
    throw new KnowledgeInputError(`The document reader stopped unexpectedly on ${parse.name}; nothing was read.`, { cause: outcome.error });
  };

  /**
   * Readability's cost grows with the page's nesting times its paragraphs, which no cheap count bounds
   * well: a page whose article search overruns the limit is read again, in a fresh worker, by the
   * converter alone (linear), and says so, rather than being refused.
   */
  const readOrPlain = async (work: Work, parse: ParseOptions): Promise<Parsed> => {
    try {
      return await read(work, parse);
    } catch (error) {
      if (!(error instanceof Overran) || work.format !== 'html' || !work.article) throw error;
      const plain = (await read({ ...work, article: false }, parse)) as ParsedText;
      return { ...plain, plainBecause: `finding its article took longer than ${limit}, the reader's limit` };
    }
  };

  /** In line behind the reads before it; a cancelled wait answers at once (its turn, when it comes, is skipped). */
  const enqueue = (work: Work, parse: ParseOptions): Promise<Parsed> => {
    if (closed) return Promise.reject(new KnowledgeInputError('The document reader is shut down.'));
    if (waiting >= maxQueue) return Promise.reject(new KnowledgeInputError('The document reader is busy with other documents; try again in a moment.'));
    waiting += 1;
    const turn = tail.then(() => {
      waiting -= 1;
      return readOrPlain(work, parse);
    });
    tail = turn.catch(() => undefined);
    const { signal } = parse;
    if (!signal) return turn;
    return new Promise<Parsed>((resolve, reject) => {
      const onAbort = () => reject(cancelled(parse.name));
      signal.addEventListener('abort', onAbort, { once: true });
      turn.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  };

  return {
    limits: { timeoutMs, maxMemoryMb, maxPages },
    stats: () => ({ ...stats, pid: worker?.process.pid, restingRssBytes: worker?.restingRssBytes }),
    parse: (format, bytes, parse) => enqueue({ format, bytes }, parse),
    readHtml: (html, { url, article, ...parse }) => enqueue({ format: 'html', html, url, article }, parse) as Promise<ParsedText>,
    async close() {
      closed = true;
      await kill();
    },
  };
}
