import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startHealthServer, type HealthServer, type HealthServerOptions } from '../../src/ops/health-server.js';
import { createStorage } from '../../src/state/index.js';
import { httpGet } from './helpers/bot-process.js';

const metrics = { text: async () => 'threadwise_up 1\n', contentType: 'text/plain; version=0.0.4; charset=utf-8' };
let server: HealthServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const start = async (options: Partial<HealthServerOptions> = {}) => {
  server = await startHealthServer({ host: '127.0.0.1', port: 0, checks: {}, metrics, ...options });
  return server;
};

describe('health server', () => {
  it('is alive whatever the checks say, ready only when every check passes, and names what is not ready', async () => {
    let storageUp = true;
    const { url } = await start({
      checks: {
        gateway: () => undefined,
        storage: async () => {
          if (!storageUp) throw new Error('Cannot reach the redis server.');
        },
      },
    });
    expect(await httpGet(`${url}/readyz`)).toMatchObject({ status: 200, body: 'gateway: ok\nstorage: ok\n' });
    storageUp = false;
    expect(await httpGet(`${url}/readyz`)).toMatchObject({ status: 503, body: 'gateway: ok\nstorage: not ready: Cannot reach the redis server.\n' });
    expect(await httpGet(`${url}/healthz`)).toMatchObject({ status: 200, body: 'ok\n' });
  });

  it('counts a check that does not answer in time as not ready, without waiting for it', async () => {
    const { url } = await start({ checks: { storage: () => new Promise<void>(() => {}) }, checkTimeoutMs: 100 });
    // The check never answers: only the 100 ms limit can produce this answer.
    expect(await httpGet(`${url}/readyz`)).toMatchObject({ status: 503, body: 'storage: not ready: no answer within 100 ms\n' });
  });

  it('serves the metrics with their content type, and refuses other paths and methods', async () => {
    const { url } = await start();
    expect(await httpGet(`${url}/metrics`)).toEqual({ status: 200, body: 'threadwise_up 1\n', contentType: metrics.contentType });
    expect((await httpGet(`${url}/admin`)).status).toBe(404);
    expect((await fetch(`${url}/healthz`, { method: 'POST' })).status).toBe(405);
    const head = await fetch(`${url}/healthz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('fails to start, rather than run without probes, when its port is taken', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      await expect(startHealthServer({ host: '127.0.0.1', port, checks: {}, metrics })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });
});

describe('storage ping', () => {
  it('answers while storage is open and throws once it is closed', async () => {
    const storage = await createStorage({ keyvUrl: 'memory:', historyTokenBudget: 8_000 });
    await expect(storage.ping()).resolves.toBeUndefined();
    await storage.close();
    await expect(storage.ping()).rejects.toThrow(/closed/);
  });
});
