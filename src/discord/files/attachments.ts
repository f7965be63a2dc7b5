/**
 * Files attached to a question, read for the model: images become image parts for a model that takes
 * them, text files are inlined under a header with their name, anything else becomes a one-line note
 * saying it was not read and why (the model can then tell the person). Files are fetched only from
 * Discord's CDN (`cdn.discordapp.com`, `media.discordapp.net`, over https), never past a size cap,
 * within a timeout, and without following redirects: an attachment URL cannot send the bot elsewhere.
 */
import { cleanText } from '../../agent/clean-text.js';
import { imageForModel } from '../../agent/tool-images.js';
import type { ContentPart } from '../../agent/types.js';
import { fileKind, formatBytes } from './attachment-kinds.js';
import { TEXT_CAPS } from '../../agent/text-caps.js';

/** An attachment as Discord describes it (discord.js's `Attachment` fits). */
export interface AttachmentRef {
  name: string;
  url: string;
  contentType: string | null;
  size: number;
}

/** One file as the model gets it, and what became of it. */
export interface ReadFile {
  name: string;
  parts: ContentPart[];
  outcome: 'read' | 'shortened' | 'not-read';
  /** Why it was not read, or how it was shortened. */
  why?: string;
}

export interface AttachmentReaderOptions {
  /** Largest text file read, in bytes (ATTACHMENT_MAX_BYTES). */
  maxTextBytes: number;
  /** Largest image sent, in bytes (ATTACHMENT_IMAGE_MAX_BYTES). */
  maxImageBytes: number;
  /** Whether a model takes images (MODEL_VISION). */
  takesImages(model: string): boolean;
  /** Cut text to a number of tokens with a note saying so (the history's token counter). */
  shorten?(text: string, maxTokens: number): string;
  /** Tokens in a text (the history's token counter), so the files' shared budget is counted as the history is. */
  countTokens?(text: string): number;
  /**
   * Most tokens the text files of one message may take together, in the order they were attached: a
   * file past the budget is shortened to what is left, and the ones after it are not read. Needs
   * `shorten` and `countTokens`; without them, or unset, nothing is cut.
   */
  maxTextTokens?: number;
  /** Longest wait for one file. Default 10 seconds. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /**
   * Origins besides Discord's CDN that files may come from: only the fake Discord's CDN in tests,
   * set through the composition root's overrides, never through the environment.
   */
  extraOrigins?: readonly string[];
}

export interface AttachmentReader {
  read(files: readonly AttachmentRef[], model: string, signal?: AbortSignal): Promise<ReadFile[]>;
}

const CDN_HOSTS = new Set(['cdn.discordapp.com', 'media.discordapp.net']);

/** Whether a URL is on Discord's CDN (or an origin the composition root allowed). */
export function allowedSource(url: string, extraOrigins: readonly string[] = []): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.username || parsed.password) return false;
  if (parsed.protocol === 'https:' && CDN_HOSTS.has(parsed.hostname) && parsed.port === '') return true;
  return extraOrigins.includes(parsed.origin);
}

export function createAttachmentReader(options: AttachmentReaderOptions): AttachmentReader {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;

  /** One file: an image or a note as it will be sent, or a text file's text, which the shared budget places. */
  async function readOne(file: AttachmentRef, model: string, signal?: AbortSignal): Promise<ReadFile | TextFile> {
    const name = cleanName(file.name);
    const notRead = (why: string): ReadFile => ({
      name,
      outcome: 'not-read',
      why,
      parts: [{ type: 'text', text: `[attached file ${name} (${formatBytes(file.size)}) was not read: ${why}]` }],
    });
    const kind = fileKind(file.name, file.contentType);
    if (kind.kind === 'other') return notRead(kind.why);
    if (kind.kind === 'image' && !options.takesImages(model)) return notRead(`it is an image, and the model (${model}) does not take images`);
    const cap = kind.kind === 'image' ? options.maxImageBytes : options.maxTextBytes;
    if (file.size > cap) return notRead(`it is larger than the ${formatBytes(cap)} I read`);
    if (!allowedSource(file.url, options.extraOrigins)) return notRead('it is not on Discord\'s file server');

    let body: Buffer;
    try {
      body = await download(fetchImpl, file.url, cap, AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(signal ? [signal] : [])]));
    } catch (error) {
      return notRead(error instanceof TooLarge ? `it is larger than the ${formatBytes(cap)} I read` : `it could not be downloaded (${downloadProblem(error, timeoutMs)})`);
    }
    if (kind.kind === 'image') {
      // Scaled down to what the model can use: the thread's memory keeps this, and every later request carries it.
      const fitted = await imageForModel(body);
      if ('error' in fitted) return notRead(fitted.error);
      return {
        name,
        outcome: 'read',
        parts: [{ type: 'text', text: `[attached image: ${name}]` }, { type: 'image_url', image_url: { url: fitted.url } }],
      };
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(body).replace(/^\uFEFF/, '');
    } catch {
      return notRead('it is not UTF-8 text');
    }
    // Files are input like any message: invisible and spoofing characters go before the model sees them.
    return { name, size: file.size, text: cleanText(text) };
  }

  return {
    async read(files, model, signal) {
      const downloaded = await Promise.all(files.map((file) => readOne(file, model, signal)));
      return shareTextBudget(downloaded, options);
    },
  };
}

/** A text file downloaded and decoded, before the message's shared budget decides how much of it goes in. */
interface TextFile {
  name: string;
  size: number;
  text: string;
}

/** Below this many tokens left, a file is not worth a shortened excerpt: it is not read. */
const SMALLEST_EXCERPT = 64;
/** Room for the "[… shortened: …]" note the counter adds, and for re-encoding at the cut. */
const SHORTEN_NOTE_TOKENS = 32;

/** Put the text files into the message one after another, while the budget lasts. */
function shareTextBudget(files: Array<ReadFile | TextFile>, options: AttachmentReaderOptions): ReadFile[] {
  const { maxTextTokens: budget, shorten, countTokens } = options;
  let left = budget ?? Infinity;
  return files.map((file) => {
    if (!('text' in file)) return file;
    const wrap = (body: string) => `[attached file: ${file.name}]\n${body}\n[end of ${file.name}]`;
    const whole = wrap(file.text);
    if (budget === undefined || !shorten || !countTokens) return { name: file.name, outcome: 'read', parts: [{ type: 'text', text: whole }] };
    const cost = countTokens(whole);
    if (cost <= left) {
      left -= cost;
      return { name: file.name, outcome: 'read', parts: [{ type: 'text', text: whole }] };
    }
    const room = left - countTokens(wrap('')) - SHORTEN_NOTE_TOKENS;
    if (room < SMALLEST_EXCERPT) {
      const why = `the files of this message already take the ${budget} tokens allowed for files (half of HISTORY_TOKEN_BUDGET)`;
      return { name: file.name, outcome: 'not-read', why, parts: [{ type: 'text', text: `[attached file ${file.name} (${formatBytes(file.size)}) was not read: ${why}]` }] };
    }
    const excerpt = wrap(shorten(file.text, room));
    left = Math.max(0, left - countTokens(excerpt));
    return { name: file.name, outcome: 'shortened', why: 'shortened to fit the conversation', parts: [{ type: 'text', text: excerpt }] };
  });
}

class TooLarge extends Error {}

/** The body, never holding more than `cap` bytes (a lying Content-Length or none at all changes nothing). */
async function download(fetchImpl: typeof fetch, url: string, cap: number, signal: AbortSignal): Promise<Buffer> {
  const response = await fetchImpl(url, { redirect: 'manual', signal });
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(response.status >= 300 && response.status < 400 ? 'the file server redirected elsewhere' : `the file server answered ${response.status}`);
  }
  const declared = Number(response.headers.get('content-length'));
  if (declared > cap) {
    await response.body?.cancel().catch(() => undefined);
    throw new TooLarge();
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response.body ?? []) {
    total += chunk.length;
    if (total > cap) throw new TooLarge();
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

function downloadProblem(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return error.name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : 'cancelled';
  }
  return error instanceof Error ? error.message : String(error);
}

/** A file name fit for a header line: one line, no brackets that could close the header (nor backticks), at most TEXT_CAPS.fileName characters. */
function cleanName(name: string): string {
  const clean = cleanText(name).replace(/[\r\n[\]`]+/g, ' ').trim() || 'file';
  return clean.length > TEXT_CAPS.fileName ? `${clean.slice(0, TEXT_CAPS.fileName - 1)}…` : clean;
}

/**
 * A person's message as the model gets it: their text (and any context, such as the message they
 * asked about), then the files. Plain text unless an image is among them, so servers that take only
 * strings still work with text files.
 */
export function userContent(text: string, files: readonly ReadFile[]): string | ContentPart[] {
  if (files.length === 0) return text;
  const parts: ContentPart[] = [{ type: 'text', text }, ...files.flatMap((f) => f.parts)];
  if (parts.some((p) => p.type === 'image_url')) return parts;
  return parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n\n');
}

/** One line for the thread saying which files were read and which were not, and why. */
export function filesNotice(files: readonly ReadFile[]): string | undefined {
  if (files.length === 0) return undefined;
  const read = files.filter((f) => f.outcome !== 'not-read').map((f) => (f.outcome === 'shortened' ? `\`${f.name}\` (shortened to fit)` : `\`${f.name}\``));
  const skipped = files.filter((f) => f.outcome === 'not-read').map((f) => `\`${f.name}\` (${f.why})`);
  const line = [read.length ? `read ${read.join(', ')}` : '', skipped.length ? `not read: ${skipped.join('; ')}` : ''].filter(Boolean).join(' · ');
  const text = `-# 📎 Files: ${line}`;
  return text.length > TEXT_CAPS.filesNotice ? `${text.slice(0, TEXT_CAPS.filesNotice - 1)}…` : text;
}
