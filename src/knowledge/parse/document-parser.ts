/**
 * The bot's side of reading PDF and Word files: one warm worker process (started on first use) that
 * reads one file at a time, with a time limit per file and a heap limit for the process, as the
 * calculator's and the chart renderer's workers have. pdf.js and mammoth run synchronously for long
 * stretches, so the only sure way to stop a hostile file (a PDF bomb, a zip bomb in a .docx) is to kill
 * the process: a file that overruns or overflows the heap costs the worker its life and is refused with
 * the reason, and the next file starts a fresh worker. Nothing is written to the index before the whole
 * file has been read, so a stopped file leaves nothing half-indexed.
 */
import { startWorker, type ProcessWorker } from '../../../tools/calculator/worker-entry.js';
import { KnowledgeInputError } from '../errors.js';
import type { ParseCaps, ParsedFormat, Parsed, ParseReply, ParseRequest } from './parse-types.js';

export interface DocumentParserOptions {
  /** Wall-clock limit per file, from when the worker starts on it (KNOWLEDGE_PARSE_TIMEOUT_MS, default 60 s). */
  timeoutMs?: number;
  /** Heap limit of the worker process (default 512 MB). */
  maxMemoryMb?: number;
  /** Most pages of a PDF (KNOWLEDGE_MAX_PAGES, default 1,000). */
  maxPages?: number;
  /** Most bytes a .docx may inflate to (default 100 MB). */
  maxInflatedBytes?: number;
  /** Files that may wait while one is read (default 8). */
  maxQueue?: number;
}

/** Options of one parse. */
export interface ParseOptions {
  /** The file's name, for messages. */
  name: string;
  /** Most UTF-8 bytes of text it may hold (KNOWLEDGE_MAX_FILE_BYTES). */
  maxTextBytes: number;
  signal?: AbortSignal;
  /** Pages read so far, of how many (PDF only). */
  onProgress?: (done: number, total: number) => void;
}

/** Reads PDF and Word files in a worker process; refusals are KnowledgeInputError. */
export interface DocumentParser {
  parse(format: ParsedFormat, bytes: Uint8Array, options: ParseOptions): Promise<Parsed>;
  readonly limits: { timeoutMs: number; maxMemoryMb: number; maxPages: number };
  close(): Promise<void>;
}

const START_TIMEOUT_MS = 30_000;

type Outcome = { kind: 'reply'; reply: Extract<ParseReply, { type: 'reply' }> } | { kind: 'timeout' } | { kind: 'aborted' } | { kind: 'died'; error?: Error };

/** The parser with its worker not yet started (nothing runs until the first PDF or Word file). */
export function createDocumentParser(options: DocumentParserOptions = {}): DocumentParser {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const maxMemoryMb = options.maxMemoryMb ?? 512;
  const maxPages = options.maxPages ?? 1_000;
  const maxInflatedBytes = options.maxInflatedBytes ?? 100_000_000;
  const maxQueue = options.maxQueue ?? 8;
  let worker: { process: ProcessWorker; ready: Promise<void> } | undefined;
  let tail: Promise<unknown> = Promise.resolve();
  let waiting = 0;
  let nextId = 0;
  let closed = false;

  const start = () => {
    if (worker) return worker;
    const child = startWorker('parse-worker', { maxMemoryMb }, [], import.meta.url);
    child.unref();
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the parser worker did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
      child.on('message', (message: ParseReply) => message.type === 'ready' && (clearTimeout(timer), resolve()));
      child.on('error', (error) => (clearTimeout(timer), reject(error)));
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the parser worker exited with code ${code}`));
        if (worker?.process === child) worker = undefined;
      });
    });
    ready.catch(() => undefined);
    worker = { process: child, ready };
    return worker;
  };
  const kill = async () => {
    const current = worker;
    worker = undefined;
    await current?.process.terminate();
  };

  const exchange = (child: ProcessWorker, request: ParseRequest, parse: ParseOptions) => new Promise<Outcome>((resolve) => {
    let lastError: Error | undefined;
    const finish = (outcome: Outcome) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      child.off('error', onError);
      parse.signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const onMessage = (message: ParseReply) => {
      if (message.type === 'progress' && message.id === request.id) parse.onProgress?.(message.done, message.total);
      if (message.type === 'reply' && message.id === request.id) finish({ kind: 'reply', reply: message });
    };
    const onError = (error: Error) => (lastError = error);
    const onExit = () => finish({ kind: 'died', error: lastError });
    const onAbort = () => finish({ kind: 'aborted' });
    const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
    child.on('message', onMessage);
    child.on('error', onError);
    child.on('exit', onExit);
    parse.signal?.addEventListener('abort', onAbort, { once: true });
    child.postMessage(request);
  });

  const read = async (format: ParsedFormat, bytes: Uint8Array, parse: ParseOptions): Promise<Parsed> => {
    if (parse.signal?.aborted || closed) throw new KnowledgeInputError(`Reading ${parse.name} was cancelled.`);
    const current = start();
    try {
      await current.ready;
    } catch (error) {
      await kill();
      throw new KnowledgeInputError(`The document reader could not start, so ${parse.name} was not added; try again later.`, { cause: error });
    }
    const caps: ParseCaps = { maxPages, maxTextBytes: parse.maxTextBytes, maxInflatedBytes };
    const outcome = await exchange(current.process, { id: ++nextId, format, name: parse.name, bytes, caps }, parse);
    if (outcome.kind === 'reply') {
      if (outcome.reply.ok) return outcome.reply.parsed;
      throw new KnowledgeInputError(outcome.reply.refused ? outcome.reply.message : `${parse.name} could not be read (${outcome.reply.message.slice(0, 200)}).`);
    }
    await kill();
    if (outcome.kind === 'timeout') {
      throw new KnowledgeInputError(`Reading ${parse.name} took longer than ${Math.round(timeoutMs / 1000)} s (KNOWLEDGE_PARSE_TIMEOUT_MS) and was stopped: the file is too large or built to exhaust the reader.`);
    }
    if (outcome.kind === 'aborted') throw new KnowledgeInputError(`Reading ${parse.name} was cancelled.`);
    if ((outcome.error as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY' || /SIGABRT/.test(outcome.error?.message ?? '')) {
      throw new KnowledgeInputError(`Reading ${parse.name} needed more than the reader's ${maxMemoryMb} MB of memory and was stopped: the file unpacks to far more than it shows (a PDF or zip bomb?).`);
    }
    throw new KnowledgeInputError(`The document reader stopped unexpectedly on ${parse.name}; nothing was added.`, { cause: outcome.error });
  };

  return {
    limits: { timeoutMs, maxMemoryMb, maxPages },
    parse(format, bytes, parse) {
      if (closed) return Promise.reject(new KnowledgeInputError('The document reader is shut down.'));
      if (waiting >= maxQueue) return Promise.reject(new KnowledgeInputError('The document reader is busy with other files; try again in a moment.'));
      waiting += 1;
      const turn = tail.then(() => {
        waiting -= 1;
        return read(format, bytes, parse);
      });
      tail = turn.catch(() => undefined);
      return turn;
    },
    async close() {
      closed = true;
      await kill();
    },
  };
}
