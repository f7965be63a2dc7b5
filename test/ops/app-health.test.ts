import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../discord/harness.js';
import { httpGet, metricValue } from './helpers/bot-process.js';
import { startRestProxy, type RestProxy } from '../../app/rest-proxy.js';
import { FakeDiscord } from '../fake-discord/index.js';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { createLogger } from '../../src/logger.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('the app with HEALTH_PORT set', () => {
  it('has no health server unless HEALTH_PORT is set', async () => {
    h = await startHarness();
    expect(h.app.health).toBeUndefined();
  });

  it('is ready once connected, counts a refused model request by kind, and is not ready once the gateway is gone', async () => {
    // No retries: one refused request is what the counters must show (with the shipped 2 it would be retried).
    h = await startHarness({ env: { HEALTH_PORT: '0' }, maxRetries: 0 });
    const url = h.app.health!.url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await httpGet(`${url}/readyz`)).toMatchObject({ status: 200, body: 'gateway: ok\nstorage: ok\n' });

    h.model.script({ status: 429, error: 'slow down' });
    h.fake.sendSlashCommand({ name: 'ask', options: { question: 'Anyone there?' } });
    await h.fake.waitForMessage((m) => m.content.includes('rate limiting'), 10_000);
    const metrics = (await httpGet(`${url}/metrics`)).body;
    expect(metricValue(metrics, 'threadwise_model_errors_total{kind="rate-limit"}')).toBe(1);
    expect(metricValue(metrics, 'threadwise_model_request_duration_seconds_count{outcome="error"}')).toBe(1);
    expect(metricValue(metrics, 'threadwise_runs_total{reason="error"}')).toBe(1);
    expect(metricValue(metrics, 'threadwise_interaction_ack_seconds_count{kind="command"}')).toBe(1);

    // The fake Discord closes every session with 4004, after which discord.js does not reconnect.
    await h.fake.close();
    await expect.poll(async () => (await httpGet(`${url}/readyz`)).body, { timeout: 5_000 }).toBe('gateway: not ready: not connected to Discord (reconnecting, or closed)\nstorage: ok\n');
    expect((await httpGet(`${url}/healthz`)).status).toBe(200);
  });

  it('with DISCORD_REST_PROXY, sends its REST calls through the proxy and is ready only while the proxy answers', async () => {
    const fake = await FakeDiscord.start({ log: () => undefined });
    let proxy: RestProxy | undefined = await startRestProxy({ apiBaseUrl: fake.apiUrl, host: '127.0.0.1', port: 0, logger: createLogger('silent') });
    try {
      h = await startHarness({ env: { HEALTH_PORT: '0', DISCORD_REST_PROXY: proxy.apiUrl } }, { fake, model: await FakeOpenAIServer.start() });
      const url = h.app.health!.url;
      expect(await httpGet(`${url}/readyz`)).toMatchObject({ status: 200, body: 'gateway: ok\nstorage: ok\nrestProxy: ok\n' });
      const through = proxy.sent.total;
      expect(through).toBeGreaterThan(0);
      h.model.script({ content: 'Here.' });
      h.fake.sendSlashCommand({ name: 'ask', options: { question: 'Anyone there?' } });
      await h.fake.waitForMessage((m) => m.content.includes('Here.'), 10_000);
      expect(proxy.sent.total).toBeGreaterThan(through);

      await proxy.close();
      proxy = undefined;
      const ready = await httpGet(`${url}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.body).toMatch(/^restProxy: not ready: the REST proxy at http:\/\/127\.0\.0\.1:\d+ does not answer/m);
    } finally {
      await h?.close();
      h = undefined;
      await proxy?.close();
    }
  });
});
