/**
 * An HTTP GET that cannot be turned against the bot's own network. Every hop (the first request and
 * each redirect) resolves its host name once, refuses it if any address is not public, and then
 * connects to exactly the address it checked (the host name travels only in the Host header and TLS
 * SNI), so a DNS answer cannot change between the check and the connection. Redirects are followed
 * by hand, the body is read only up to a size cap, and one deadline covers the whole exchange.
 */
import type { LookupAddress } from 'node:dns';
import { promises as dns } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { ToolError } from '../errors.js';
import { addressRefusal } from './address-policy.js';
import { readCapped } from './read-capped.js';
import { TEXT_CAPS } from '../agent/text-caps.js';

/** Resolves a host name to all its addresses; tests inject one that answers without DNS. */
export type HostLookup = (hostname: string) => Promise<LookupAddress[]>;

export interface SafeGetOptions {
  userAgent: string;
  /** Test-only: allow 127.0.0.0/8 and ::1. Never read from configuration. */
  allowLoopback?: boolean;
  lookup?: HostLookup;
  maxBytes: number;
  maxRedirects: number;
  /** Checked on the final response's media type (lower-case, no parameters) before its body is read. */
  accept(mediaType: string): boolean;
  /** Ends the exchange: the run's signal combined with the tool's own deadline. */
  signal: AbortSignal;
}

export interface SafeResponse {
  url: string;
  mediaType: string;
  charset?: string;
  body: Buffer;
  /** The body went past `maxBytes` and was cut there. */
  truncated: boolean;
}

const defaultLookup: HostLookup = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Check a URL may be fetched at all (scheme, credentials) and parse it. */
export function parseFetchableUrl(raw: string | URL, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new ToolError(`"${String(raw).slice(0, TEXT_CAPS.echo)}" is not a valid URL. Give a full address such as https://example.com/page.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError(`Only http and https addresses can be read (got ${url.protocol}).`);
  }
  if (url.username || url.password) throw new ToolError('Addresses with a user name or password in them are not read.');
  return url;
}

/** GET `raw`, following up to `maxRedirects` redirects, each checked like the first request. */
export async function safeGet(raw: string, options: SafeGetOptions): Promise<SafeResponse> {
  let url = parseFetchableUrl(raw);
  for (let redirects = 0; ; redirects += 1) {
    const response = await request(url, options);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (REDIRECTS.has(status) && location) {
      response.destroy();
      if (redirects >= options.maxRedirects) {
        throw new ToolError(`${url.host} redirected more than ${options.maxRedirects} times; giving up.`);
      }
      url = parseFetchableUrl(location, url);
      continue;
    }
    if (status < 200 || status >= 300) {
      response.destroy();
      throw new ToolError(`${url.href} answered HTTP ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}.`);
    }
    const [mediaType = '', ...params] = (response.headers['content-type'] ?? '').split(';').map((part) => part.trim());
    if (!options.accept(mediaType.toLowerCase())) {
      response.destroy();
      throw new ToolError(`${url.href} is ${mediaType || 'of an unknown type'}, not a web page or text; only text can be read.`);
    }
    const charset = params.find((p) => /^charset=/i.test(p))?.slice(8).replace(/"/g, '');
    const { body, truncated } = await readBody(response, options.maxBytes, url, options.signal);
    return { url: url.href, mediaType: mediaType.toLowerCase(), charset, body, truncated };
  }
}

/** Resolve and check `url`'s host, then send the request to the checked address. */
async function request(url: URL, options: SafeGetOptions): Promise<IncomingMessage> {
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const target = await checkedAddress(hostname, options);
  const secure = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(
      {
        host: target.address,
        family: target.family,
        port: url.port || (secure ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        servername: net.isIP(hostname) ? undefined : hostname,
        headers: {
          Host: url.host,
          'User-Agent': options.userAgent,
          Accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.1',
          'Accept-Encoding': 'gzip, deflate, br',
        },
        agent: false,
        signal: options.signal,
      },
      resolve,
    );
    req.on('error', (error) => reject(connectionError(url, error, options.signal)));
    req.end();
  });
}

async function checkedAddress(hostname: string, options: SafeGetOptions): Promise<LookupAddress> {
  const policy = { allowLoopback: options.allowLoopback };
  if (net.isIP(hostname)) {
    const reason = addressRefusal(hostname, policy);
    if (reason) throw new ToolError(`Refusing to read ${hostname}: it is ${reason}. Only public web addresses can be read.`);
    return { address: hostname, family: net.isIP(hostname) };
  }
  let addresses: LookupAddress[];
  try {
    addresses = await untilAborted((options.lookup ?? defaultLookup)(hostname), options.signal);
  } catch (error) {
    if (options.signal.aborted) throw connectionError(new URL(`http://${hostname}`), error as Error, options.signal);
    throw new ToolError(`Could not find the host ${hostname}; check the address.`, { cause: error });
  }
  if (addresses.length === 0) throw new ToolError(`Could not find the host ${hostname}; check the address.`);
  // One bad address refuses the name: round-robin DNS must not let a later attempt reach it.
  for (const { address } of addresses) {
    const reason = addressRefusal(address, policy);
    if (reason) throw new ToolError(`Refusing to read ${hostname}: it resolves to ${address}, ${reason}. Only public web addresses can be read.`);
  }
  return addresses[0]!;
}

/** `promise`, or a rejection as soon as `signal` aborts (a DNS lookup cannot itself be cancelled). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function connectionError(url: URL, error: Error & { code?: string }, signal: AbortSignal): ToolError {
  if (signal.aborted) {
    const reason = signal.reason as Error | undefined;
    const timedOut = reason?.name === 'TimeoutError';
    return new ToolError(timedOut ? `${url.host} did not answer in time.` : 'Reading the page was cancelled.', { cause: error });
  }
  if (error.code === 'ECONNREFUSED') return new ToolError(`${url.host} refused the connection.`, { cause: error });
  return new ToolError(`Could not read ${url.href}: ${error.message}`, { cause: error });
}

/** Read the (decompressed) body until `maxBytes`; a bigger body is cut there and its stream destroyed. */
async function readBody(
  response: IncomingMessage,
  maxBytes: number,
  url: URL,
  signal: AbortSignal,
): Promise<{ body: Buffer; truncated: boolean }> {
  const encoding = String(response.headers['content-encoding'] ?? 'identity').toLowerCase();
  const decoders: Record<string, () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress> = {
    gzip: zlib.createGunzip, 'x-gzip': zlib.createGunzip, deflate: zlib.createInflate, br: zlib.createBrotliDecompress,
  };
  let stream: Readable = response;
  if (encoding !== 'identity') {
    const make = decoders[encoding];
    if (!make) {
      response.destroy();
      throw new ToolError(`The page is compressed with "${encoding}", which cannot be read.`);
    }
    const decoder = make();
    response.on('error', (error) => decoder.destroy(error));
    stream = response.pipe(decoder);
  }
  try {
    // Counted on decompressed bytes, so a small compressed bomb stops at the cap too.
    return await readCapped(stream, maxBytes);
  } catch (error) {
    if (signal.aborted) throw connectionError(url, error as Error, signal);
    throw new ToolError(`The page stopped sending part-way (${(error as Error).message}).`, { cause: error });
  } finally {
    response.destroy();
    stream.destroy();
  }
}
