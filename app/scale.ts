/**
 * What running past one process adds to a bot process: its REST calls sent through the bot's one
 * REST proxy (DISCORD_REST_PROXY, which the shard manager sets for its shards when it runs the proxy
 * itself), traced when traces are on, and, in a shard, logins spaced with every other host's through
 * the shared store, when its backend declares an identify lock (src/state/identify-lock.ts). Plus the
 * proxy's health for `/readyz`.
 */
import { DefaultRestOptions, type ClientOptions } from 'discord.js';
import type { Config } from '../src/config.js';
import { describeError } from '../src/errors.js';
import type { ReadinessCheck } from '../src/ops/health-server.js';
import type { RunTracer } from '../src/ops/run-tracer.js';
import { openIdentifyLock, sharedIdentifyThrottler, type IdentifyLock } from '../src/state/identify-lock.js';
import { supportsOf } from '../src/storage/registry.js';

export interface ScaleParts {
  client: Pick<ClientOptions, 'rest' | 'ws'>;
  checks: Record<string, ReadinessCheck>;
  close(): Promise<void>;
}

/** The bot's user id, from the token's first part: what tells two bots apart on one lock server. */
function botIdOf(token: string): string {
  return Buffer.from(token.split('.')[0] ?? '', 'base64').toString('utf8').replace(/\W/g, '') || 'bot';
}

export async function scaleParts(config: Config, tracer?: RunTracer): Promise<ScaleParts> {
  const proxyUrl = typeof config.ops.restProxy === 'object' ? config.ops.restProxy.url : undefined;
  const rest: ClientOptions['rest'] = {
    // Behind the proxy a request waits its turn among the whole bot's: more than the default 15 s.
    // This process keeps its own count of 50 a second too: without it a burst reaches the proxy all
    // at once, and on a busy machine the interactions' acknowledgements fell behind Discord's 3 s.
    ...(proxyUrl ? { api: proxyUrl, timeout: 60_000 } : {}),
    ...(tracer ? { makeRequest: tracer.wrapFetch(DefaultRestOptions.makeRequest) } : {}),
  };
  const checks: Record<string, ReadinessCheck> = {};
  if (proxyUrl) checks.restProxy = () => proxyReachable(proxyUrl);

  let lock: IdentifyLock | undefined;
  let ws: ClientOptions['ws'];
  const shared = supportsOf(config.storage.keyvUrl)?.identifyLock === true;
  if (config.ops.shard && shared) {
    lock = await openIdentifyLock(config.storage.keyvUrl, botIdOf(config.discord!.token));
    const held = lock;
    ws = {
      buildIdentifyThrottler: async (manager) => {
        const gateway = await manager.fetchGatewayInformation();
        return sharedIdentifyThrottler({ lock: held, maxConcurrency: gateway.session_start_limit.max_concurrency });
      },
    };
  }
  return {
    client: { rest, ...(ws ? { ws } : {}) },
    checks,
    async close() {
      await lock?.close();
    },
  };
}

/** Any HTTP answer means the proxy is up (ours answers /healthz; other proxies may say 404 there). */
async function proxyReachable(apiUrl: string): Promise<void> {
  const url = new URL('/healthz', apiUrl);
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_500) });
    await response.body?.cancel();
  } catch (error) {
    throw new Error(`the REST proxy at ${url.origin} does not answer (${describeError(error)})`);
  }
}
