import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../discord/harness.js';
import { httpGet, metricValue } from './helpers/bot-process.js';

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
    h = await startHarness({ env: { HEALTH_PORT: '0' } });
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
});
