/**
 * One REST rate limit for every process of the bot. Discord counts 50 requests per second per bot
 * token, whichever process sends them; a shard's own discord.js limiter only knows its own requests.
 * So every shard sends its REST calls here (its REST `api` base), and this server forwards them with
 * `@discordjs/proxy`'s `proxyRequests` through one `@discordjs/rest` client: the per-route buckets
 * and the global limit live in one place. The proxy passes each caller's Authorization header on and
 * holds no token of its own.
 *
 * The global limit is kept by the gate below, at the point where requests leave for Discord: at most
 * 50 in every sliding second (with a margin for the network's jitter). `@discordjs/rest`'s own counts
 * fixed one-second windows, which can let close to twice the limit through across a window's edge,
 * and counts the interaction webhooks too. Interaction endpoints are exempt from Discord's global
 * limit and skip the gate.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { proxyRequests } from '@discordjs/proxy';
import { DefaultRestOptions, REST } from 'discord.js';
import type { Logger } from '../src/logger.js';
import { SlidingWindowGate } from '../src/ops/sliding-window-gate.js';

export interface RestProxyOptions {
  /** Discord's REST base (DISCORD_API_BASE_URL); default Discord's own. */
  apiBaseUrl?: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  logger: Logger;
  /** Requests per sliding second sent on, interaction endpoints apart. Default 50, Discord's global limit. */
  perSecond?: number;
  /** The window the limit counts. Default 1,000 ms. */
  windowMs?: number;
}

export interface RestProxy {
  /** The base to give discord.js as its REST `api` (what DISCORD_REST_PROXY holds): `http://host:port/api`. */
  readonly apiUrl: string;
  /** Requests sent on to Discord so far, and how many of those were bound by the global limit. */
  readonly sent: { total: number; limited: number };
  close(): Promise<void>;
}

/** Interaction callbacks and interaction-token webhooks: not bound by the global limit. */
export function isInteractionEndpoint(url: string): boolean {
  const path = new URL(url, 'http://x').pathname.replace(/^\/api(\/v\d+)?/, '');
  return /^\/interactions\/\d+\/[^/]+\/callback/.test(path) || /^\/webhooks\/\d+\/[^/]+/.test(path);
}

/**
 * `proxyRequests` hands the incoming request itself to undici as the body. A stream can be sent once,
 * and @discordjs/rest retries after a 429 or a 5xx: the retry would go out empty (Discord: "Cannot
 * send an empty message"). So the body is read first, and the request handed on as that Buffer,
 * which can be sent again, carrying the method, URL and headers proxyRequests reads.
 */
async function replayable(req: http.IncomingMessage): Promise<http.IncomingMessage> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return Object.assign(body, { method: req.method, url: req.url, headers: req.headers }) as unknown as http.IncomingMessage;
}

/** Start the proxy; resolves once it listens. */
export async function startRestProxy(options: RestProxyOptions): Promise<RestProxy> {
  const gate = new SlidingWindowGate(options.perSecond ?? 50, options.windowMs ?? 1_000);
  const sent = { total: 0, limited: 0 };
  const rest = new REST({
    ...(options.apiBaseUrl ? { api: options.apiBaseUrl.replace(/\/+$/, '') } : {}),
    // Callers queue here behind the whole bot's traffic: give a request time to wait its turn.
    timeout: 60_000,
    // The gate below is the global limit: @discordjs/rest's own would also count the interaction
    // webhooks, which Discord does not, and halve the bot's budget for everything else.
    globalRequestsPerSecond: 10_000,
    async makeRequest(url, init) {
      sent.total++;
      if (isInteractionEndpoint(url)) return DefaultRestOptions.makeRequest(url, init);
      sent.limited++;
      const done = await gate.take();
      try {
        return await DefaultRestOptions.makeRequest(url, init);
      } finally {
        done();
      }
    },
  });
  rest.on('rateLimited', (info) => options.logger.debug({ route: info.route, global: info.global, waitMs: info.timeToReset }, 'REST proxy: waiting for a rate limit'));
  const forward = proxyRequests(rest);
  const server = http.createServer((req, res) => {
    if (req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      return;
    }
    res.on('error', (error) => options.logger.warn({ err: error, url: req.url }, 'REST proxy: could not answer the caller'));
    void replayable(req)
      .then((request) => forward(request, res))
      .catch((error: unknown) => {
        options.logger.error({ err: error, method: req.method, url: req.url }, 'REST proxy: request failed');
        if (res.writableEnded) return;
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: 'REST proxy: the request could not be forwarded', code: 0 }));
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host === '0.0.0.0' ? '127.0.0.1' : options.host;
  return {
    apiUrl: `http://${host}:${port}/api`,
    sent,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rest.clearHashSweeper();
      rest.clearHandlerSweeper();
    },
  };
}
