import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { REST, Routes } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { isInteractionEndpoint, startRestProxy, type RestProxy } from '../../app/rest-proxy.js';
import { FakeDiscord } from '../fake-discord/index.js';
import { createLogger } from '../../src/logger.js';
import { SlidingWindowGate } from '../../src/ops/sliding-window-gate.js';

const logger = createLogger('silent');
let fake: FakeDiscord | undefined;
let proxy: RestProxy | undefined;
let upstream: http.Server | undefined;
const clients: REST[] = [];
afterEach(async () => {
  for (const rest of clients.splice(0)) {
    rest.clearHashSweeper();
    rest.clearHandlerSweeper();
  }
  await proxy?.close();
  await fake?.close();
  if (upstream) await new Promise((r) => upstream!.close(r));
  fake = proxy = upstream = undefined;
});

/** A discord.js REST client of one "process", sending through `api`. */
function client(api: string, token: string): REST {
  const rest = new REST({ api, timeout: 60_000 }).setToken(token);
  clients.push(rest);
  return rest;
}

describe('the REST proxy', () => {
  it('keeps three clients that each think they own 50 per second under 50 in every second at Discord, with no 429', async () => {
    fake = await FakeDiscord.start({ log: () => undefined, globalRateLimit: { mode: 'enforce' } });
    proxy = await startRestProxy({ apiBaseUrl: fake.apiUrl, host: '127.0.0.1', port: 0, logger });
    const channels = Array.from({ length: 30 }, (_, n) => fake!.addChannel({ name: `c${n}` }).id);
    fake.resetRestCalls();
    // 3 processes × 60 messages at once, spread over 30 channels (so no channel's own limit is the bound).
    const sends = [0, 1, 2].flatMap((p) => {
      const rest = client(proxy!.apiUrl, fake!.token);
      return Array.from({ length: 60 }, (_, n) => rest.post(Routes.channelMessages(channels[(p * 60 + n) % 30]!), { body: { content: `${p}-${n}` } }));
    });
    await Promise.all(sends);
    expect(fake.botMessages().length).toBe(180);
    expect(fake.restPeakPerSecond({ exempt: false })).toBeLessThanOrEqual(50);
    expect(fake.restPeakPerSecond({ exempt: false })).toBeGreaterThanOrEqual(45);
    expect(fake.restCalls.filter((c) => c.status === 429)).toEqual([]);
    expect(proxy.sent).toEqual({ total: 180, limited: 180 });
  }, 30_000);

  it('without it, the same three clients send Discord more than 50 in a second and get global 429s', async () => {
    fake = await FakeDiscord.start({ log: () => undefined, globalRateLimit: { mode: 'enforce' } });
    const channels = Array.from({ length: 30 }, (_, n) => fake!.addChannel({ name: `c${n}` }).id);
    fake.resetRestCalls();
    const sends = [0, 1, 2].flatMap((p) => {
      const rest = client(fake!.apiUrl, fake!.token);
      return Array.from({ length: 60 }, (_, n) => rest.post(Routes.channelMessages(channels[(p * 60 + n) % 30]!), { body: { content: `${p}-${n}` } }));
    });
    await Promise.all(sends);
    expect(fake.restPeakPerSecond({ exempt: false })).toBeGreaterThan(50);
    expect(fake.restCalls.filter((c) => c.status === 429).length).toBeGreaterThan(0);
  }, 30_000);

  it('sends a request again with its body when Discord answers 5xx (the request is not a one-shot stream)', async () => {
    const bodies: string[] = [];
    upstream = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        bodies.push(body);
        if (bodies.length === 1) return void res.writeHead(502).end();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: '1', echoed: JSON.parse(body) }));
      });
    });
    await new Promise<void>((r) => upstream!.listen(0, '127.0.0.1', r));
    proxy = await startRestProxy({ apiBaseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/api`, host: '127.0.0.1', port: 0, logger });
    const reply = await client(proxy.apiUrl, 'x.y.z').post(Routes.channelMessages('123456789012345678'), { body: { content: 'hello' } });
    expect(bodies).toEqual(['{"content":"hello"}', '{"content":"hello"}']);
    expect(reply).toEqual({ id: '1', echoed: { content: 'hello' } });
  });

  it('answers /healthz itself, and forwards GETs', async () => {
    fake = await FakeDiscord.start({ log: () => undefined });
    proxy = await startRestProxy({ apiBaseUrl: fake.apiUrl, host: '127.0.0.1', port: 0, logger });
    const health = await fetch(new URL('/healthz', proxy.apiUrl));
    expect([health.status, await health.text()]).toEqual([200, 'ok\n']);
    expect(await client(proxy.apiUrl, fake.token).get(Routes.gatewayBot())).toMatchObject({ shards: 1 });
  });

  it('exempts exactly the interaction endpoints from the limit', () => {
    expect(isInteractionEndpoint('http://p/api/v10/interactions/123/tok-en/callback')).toBe(true);
    expect(isInteractionEndpoint('http://p/api/v10/webhooks/123/tok-en/messages/@original')).toBe(true);
    expect(isInteractionEndpoint('http://p/api/v10/channels/123/messages')).toBe(false);
    expect(isInteractionEndpoint('http://p/api/v10/gateway/bot')).toBe(false);
  });
});

describe('the sliding-window gate', () => {
  it('lets `limit` through, then one more only a window after an answer', async () => {
    let now = 0;
    const gate = new SlidingWindowGate(2, 1_000, () => now);
    const a = await gate.take();
    const b = await gate.take();
    let third = false;
    const c = gate.take().then((done) => {
      third = true;
      return done;
    });
    a();
    now = 999;
    await new Promise((r) => setTimeout(r, 20));
    expect(third).toBe(false);
    now = 1_000;
    // The gate sleeps until the freed slot's time; a fake clock jumps it, so wake it with an answer.
    b();
    (await c)();
    expect(third).toBe(true);
  });
});
