/**
 * The `read_url` tool: "what does this link say?". It reaches the open web from the bot's machine, so
 * it is off by default (`network: true`) and every request goes through `safeGet`, which refuses
 * anything but public addresses on every hop. It uses node:http rather than `ctx.fetch` on purpose:
 * fetch cannot be made to connect to the exact address that was checked.
 */
import { z } from 'zod';
import { defineTool, type ToolDefinition } from '../src/agent/tool.js';
import { capText, htmlToText, tidyWhitespace } from './html-text.js';
import { safeGet, type HostLookup } from '../src/net/safe-http.js';

export interface ReadUrlOptions {
  userAgent: string;
  /**
   * Tests only: allow loopback addresses so a test can read a server it started. There is no
   * environment variable or config field for this; code has to pass it explicitly.
   */
  allowLoopbackForTests?: boolean;
  /** Tests only: resolve host names without DNS (e.g. make a public-looking name point at 10.0.0.1). */
  lookup?: HostLookup;
  /** Most bytes of a page read (default 1 MB, decompressed); the rest is never downloaded. */
  maxBytes?: number;
  /** Deadline for the whole exchange, redirects included (default 10 s). */
  timeoutMs?: number;
  /** Longest text returned to the model (default 4,000 characters). */
  maxChars?: number;
}

const TEXT_TYPES = new Set(['text/html', 'application/xhtml+xml', 'text/plain', 'text/markdown', 'application/json', 'text/csv']);

const parameters = z.object({
  url: z.string().max(2_048).describe('The full http(s) address of the page, e.g. https://example.com/article.'),
});

/** The `read_url` tool. */
export function createReadUrlTool(options: ReadUrlOptions): ToolDefinition<z.infer<typeof parameters>> {
  const maxBytes = options.maxBytes ?? 1_000_000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxChars = options.maxChars ?? 4_000;
  return defineTool({
    name: 'read_url',
    description:
      'Read a public web page and return its title and main text (size-limited). Use it when the user ' +
      'gives a link or asks what a page says. Only http(s) pages with text content can be read.',
    parameters,
    textParameter: 'url',
    aliases: ['browse', 'fetch_url', 'open_url'],
    examples: ['https://en.wikipedia.org/wiki/ReAct', 'https://www.example.com/'],
    network: true,
    async run({ url }, ctx) {
      const response = await safeGet(url.trim(), {
        userAgent: options.userAgent,
        allowLoopback: options.allowLoopbackForTests === true,
        lookup: options.lookup,
        maxBytes,
        maxRedirects: 5,
        accept: (mediaType) => TEXT_TYPES.has(mediaType),
        signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]),
      });
      const decoded = decode(response.body, response.charset);
      const isHtml = response.mediaType === 'text/html' || response.mediaType === 'application/xhtml+xml';
      const { title, text } = isHtml ? htmlToText(decoded) : { title: undefined, text: tidyWhitespace(decoded) };
      const capped = capText(text, maxChars);
      const notes = [
        response.truncated ? `only the first ${Math.round(maxBytes / 1000)} KB of the page were read` : '',
        capped.cut ? `text cut to ${maxChars} characters` : '',
      ].filter(Boolean);
      const body = capped.text || '(The page has no readable text; it may need JavaScript to show its content.)';
      const output = [
        title ? `Title: ${title}` : undefined,
        `URL: ${response.url}`,
        '',
        body,
        notes.length ? `\n[${notes.join('; ')}]` : undefined,
      ].filter((line) => line !== undefined).join('\n');
      return { output, sources: [{ title: title ?? response.url, url: response.url }] };
    },
  });
}

/** Bytes to text in the declared charset, UTF-8 when none (or an unknown one) is declared. */
function decode(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
