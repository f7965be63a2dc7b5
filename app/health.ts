/**
 * The /healthz, /readyz and /metrics server (when HEALTH_PORT is set), up before the gateway connects, so
 * /healthz answers at once and /readyz says why the bot is not ready yet. Each shard listens on the port
 * plus its id, so several on one host do not collide.
 */
import type { Config } from '../src/config.js';
import type { RunningBot } from '../src/discord/bot.js';
import { startHealthServer, type HealthServer } from '../src/ops/health-server.js';
import type { Metrics } from '../src/ops/metrics.js';
import type { Storage } from '../src/state/index.js';
import type { ScaleParts } from './scale.js';

export interface HealthParts {
  metrics: Metrics;
  storage: Pick<Storage, 'ping'>;
  scale: Pick<ScaleParts, 'checks'>;
  /** The bot once it is started (undefined while it connects). */
  bot: () => RunningBot | undefined;
}

export async function openHealth(config: Config, parts: HealthParts): Promise<HealthServer | undefined> {
  const { healthPort, healthHost, shard } = config.ops;
  if (healthPort === undefined) return undefined;
  return startHealthServer({
    host: healthHost,
    port: healthPort === 0 ? 0 : healthPort + (shard?.id ?? 0),
    metrics: parts.metrics,
    checks: {
      gateway: () => {
        const bot = parts.bot();
        if (!bot?.gatewayReady()) throw new Error(bot ? 'not connected to Discord (reconnecting, or closed)' : 'connecting to Discord');
      },
      storage: () => parts.storage.ping(),
      ...parts.scale.checks,
    },
  });
}
