/**
 * The fake's stand-in for Discord's attachment CDN. Discord signs attachment URLs:
 * `https://cdn.discordapp.com/attachments/<channel>/<attachment>/<name>?ex=<hex expiry>&is=<hex issued>&hm=<signature>&`
 * (docs/reference.mdx, "Signed Attachment CDN URLs"), refreshes the signature in every payload it
 * sends, and serves nothing for an expired or unsigned URL. The fake serves the same paths from its
 * own 127.0.0.1 server, signed with an HMAC, and answers 404 otherwise, so code that checks a file
 * name with `url.endsWith('.png')`, or keeps a URL past its expiry, fails here as it would there.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FakeAttachment } from './records.js';

export interface CdnOptions {
  /** How long a signed URL stays valid. Discord does not document it; 24 hours by default. */
  urlLifetimeMs: number;
  /** Wall clock for `ex`/`is`, injectable so a test can let a URL expire. */
  now: () => number;
  /** Finds an attachment by id (message attachments and ephemeral command uploads alike). */
  find: (attachmentId: string) => FakeAttachment | undefined;
}

export class FakeCdn {
  base = '';
  readonly #secret = randomBytes(32);

  constructor(private readonly options: CdnOptions) {}

  /** `/attachments/<channel>/<id>/<name>`, the name percent-encoded like Discord's. */
  static pathFor(channelId: string, attachmentId: string, filename: string): string {
    return `/attachments/${channelId}/${attachmentId}/${encodeURIComponent(filename)}`;
  }

  /** A freshly signed URL for a CDN path. */
  sign(path: string): string {
    const issued = Math.floor(this.options.now() / 1000);
    const expires = Math.floor((this.options.now() + this.options.urlLifetimeMs) / 1000);
    const ex = expires.toString(16);
    const is = issued.toString(16);
    // The trailing `&` is Discord's too: code that appends `&size=…` must cope with it.
    return `${this.base}${path}?ex=${ex}&is=${is}&hm=${this.#mac(path, ex, is)}&`;
  }

  /** Serves `GET /attachments/...` when the URL is signed and unexpired; true if it handled the request. */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const match = /^\/(?:ephemeral-)?attachments\/\d+\/(\d+)\/[^/]+$/.exec(url.pathname);
    if (!match) return false;
    const attachment = this.options.find(match[1] as string);
    const ok = attachment !== undefined && attachment.path === url.pathname && this.#valid(url);
    if (!ok) {
      // What the CDN says for an expired or tampered link (plain text, 404).
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('This content is no longer available.');
      return true;
    }
    res.writeHead(200, {
      'content-type': attachment.contentType ?? 'application/octet-stream',
      'content-length': String(attachment.data.length),
    });
    res.end(req.method === 'HEAD' ? undefined : attachment.data);
    return true;
  }

  #valid(url: URL): boolean {
    const ex = url.searchParams.get('ex');
    const is = url.searchParams.get('is');
    const hm = url.searchParams.get('hm');
    if (!ex || !is || !hm || !/^[0-9a-f]+$/.test(ex)) return false;
    const expected = Buffer.from(this.#mac(url.pathname, ex, is));
    const given = Buffer.from(hm);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return false;
    return Number.parseInt(ex, 16) * 1000 > this.options.now();
  }

  #mac(path: string, ex: string, is: string): string {
    return createHmac('sha256', this.#secret).update(`${path}\n${ex}\n${is}`).digest('hex');
  }
}
