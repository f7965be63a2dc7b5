/**
 * `npm start` with SHARDS (or SHARD_COUNT) set: discord.js's own ShardingManager runs one process per
 * shard of this host (SHARD_IDS, default all), each the same entry point as a single bot (it finds
 * itself a shard through the variables the manager sets), and starts a new process for a shard whose
 * process ends, after a wait that grows while it keeps dying (src/ops/restart-backoff.ts). The shards
 * share their state through KEYV_URL (Redis or PostgreSQL; the configuration refuses anything else),
 * so a shard that restarts picks its threads up where they were; the same store spaces their logins.
 *
 * With more than one shard here and DISCORD_REST_PROXY left at `auto`, this process also serves the
 * REST proxy (app/rest-proxy.ts) and points every shard at it: one process fewer to supervise, and
 * the proxy stops with the manager, whose shards stop too.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { REST, Routes, ShardingManager, type RESTGetAPIGatewayBotResult, type Shard } from 'discord.js';
import type { Config } from '../src/config.js';
import { describeStartupError } from '../src/discord/startup-errors.js';
import type { Logger } from '../src/logger.js';
import { RestartBackoff } from '../src/ops/restart-backoff.js';
import { startRestProxy, type RestProxy } from './rest-proxy.js';

export interface ShardManagerOptions {
  /** The script each shard process runs (app/main, compiled or from source). */
  entry: string;
  /** Node flags for the shard processes. Default: this process's own (tsx's loader when run from source). */
  execArgv?: string[];
  /** Longest a shard may take to connect at start-up. Default 60 s, plus its turn to log in. */
  spawnTimeoutMs?: number;
  /** How long a shard gets to finish its runs when stopping, before it is killed. Default 20 s. */
  stopGraceMs?: number;
}

/** Start the shards and keep them running until SIGINT or SIGTERM. Resolves with the exit status. */
export async function runShardManager(config: Config, logger: Logger, options: ShardManagerOptions): Promise<number> {
  const discord = config.discord!;
  let count: number;
  let maxConcurrency: number;
  try {
    ({ count, maxConcurrency } = await shardCount(config, logger));
  } catch (error) {
    console.error(`Could not start the shards: ${describeStartupError(error)}`);
    return 1;
  }
  const ids = config.ops.shardIds ?? [...Array(count).keys()];
  const proxy = await ownRestProxy(config, logger, ids.length);
  if (proxy === null) return 1;
  if (ids.length < count && typeof config.ops.restProxy !== 'object') {
    logger.warn({ shards: ids, of: count }, 'this host runs part of the shards without DISCORD_REST_PROXY: each host counts Discord\'s 50 requests per second on its own; point every host at one proxy (npm run rest-proxy)');
  }

  const manager = new ShardingManager(options.entry, {
    totalShards: count,
    shardList: ids,
    token: discord.token,
    mode: 'process',
    // Never discord.js's own respawn (at once, every time): ours waits longer while a shard keeps dying.
    respawn: false,
    execArgv: options.execArgv ?? process.execArgv,
  });
  let started = false;
  let stopping = false;
  let diedWhileStarting: number | undefined;
  const backoff = new RestartBackoff();
  const spawnTimeout = options.spawnTimeoutMs ?? 60_000 + 5_500 * Math.ceil(count / Math.max(1, maxConcurrency));
  const restarts = new Set<NodeJS.Timeout>();
  manager.on('shardCreate', (shard: Shard) => {
    let spawnedAt = Date.now();
    // Process mode: each shard is a ChildProcess (never a Worker).
    shard.on('spawn', (child) => {
      spawnedAt = Date.now();
      logger.info({ shard: shard.id, pid: (child as ChildProcess).pid }, 'shard process started');
    });
    shard.on('ready', () => logger.info({ shard: shard.id }, 'shard connected to Discord'));
    shard.on('death', (ended) => {
      if (!started) diedWhileStarting ??= shard.id;
      const child = ended as ChildProcess;
      const info = { shard: shard.id, pid: child.pid, exitCode: child.exitCode, signal: child.signalCode };
      if (stopping || !started) return void logger[stopping ? 'info' : 'warn'](info, 'shard process ended');
      const waitMs = backoff.next(shard.id, Date.now() - spawnedAt);
      logger.warn({ ...info, restartInMs: waitMs }, 'shard process ended; the manager starts a new one');
      const timer = setTimeout(() => {
        restarts.delete(timer);
        if (stopping) return;
        // A start that fails ends in another 'death', which schedules the next try.
        shard.spawn(spawnTimeout).catch((error: unknown) => logger.error({ err: error, shard: shard.id }, 'shard did not start again'));
      }, waitMs);
      restarts.add(timer);
    });
    shard.on('error', (error: unknown) => logger.error({ err: error, shard: shard.id }, 'shard error'));
  });

  try {
    // No pause between shards here: the shared identify lock spaces the logins of every host.
    await manager.spawn({ amount: count, delay: 0, timeout: spawnTimeout });
    if (diedWhileStarting !== undefined) throw new Error(`shard ${diedWhileStarting} ended while the others were starting`);
  } catch (error) {
    console.error(`Could not start the shards: ${describeStartupError(error)} The shard's own message is above.`);
    await stopShards(manager, options.stopGraceMs);
    await proxy?.close();
    return 1;
  }
  started = true;
  logger.info({ shards: count, here: ids }, 'all shards are running');

  const signal = await new Promise<string>((resolve) => {
    // Kept listening: a second signal while the shards stop must not kill the manager under them.
    process.on('SIGINT', () => resolve('SIGINT'));
    process.on('SIGTERM', () => resolve('SIGTERM'));
  });
  stopping = true;
  for (const timer of restarts) clearTimeout(timer);
  logger.info({ signal }, 'stopping the shards');
  await stopShards(manager, options.stopGraceMs);
  await proxy?.close();
  return 0;
}

/**
 * The manager's own REST proxy: with DISCORD_REST_PROXY at `auto` and more than one shard here. Its
 * URL goes to the shards through the environment they inherit. Undefined: none needed; null: failed.
 */
async function ownRestProxy(config: Config, logger: Logger, localShards: number): Promise<RestProxy | undefined | null> {
  if (config.ops.restProxy !== 'auto' || localShards < 2) return undefined;
  try {
    const proxy = await startRestProxy({ apiBaseUrl: config.discord!.apiBaseUrl, host: '127.0.0.1', port: 0, logger });
    process.env.DISCORD_REST_PROXY = proxy.apiUrl;
    logger.info({ url: proxy.apiUrl }, 'REST proxy started: every shard sends its REST calls through it');
    return proxy;
  } catch (error) {
    console.error(`Could not start the REST proxy: ${describeStartupError(error)}`);
    return null;
  }
}

/**
 * How many shards: SHARDS, or Discord's recommendation for `auto`. Asking Discord either way checks
 * the token once here, rather than in every shard, and reads how many sessions may still start today.
 */
async function shardCount(config: Config, logger: Logger): Promise<{ count: number; maxConcurrency: number }> {
  const discord = config.discord!;
  const rest = new REST(discord.apiBaseUrl ? { api: discord.apiBaseUrl.replace(/\/+$/, '') } : {}).setToken(discord.token);
  const gateway = (await rest.get(Routes.gatewayBot())) as RESTGetAPIGatewayBotResult;
  const count = config.ops.shards === 'auto' || config.ops.shards === undefined ? gateway.shards : config.ops.shards;
  const limit = gateway.session_start_limit;
  const here = config.ops.shardIds?.length ?? count;
  logger.info({ shards: count, here: config.ops.shardIds ?? 'all', recommended: gateway.shards, sessionsLeft: limit.remaining, maxConcurrency: limit.max_concurrency }, 'starting shards');
  if (limit.remaining < here) {
    const reset = new Date(Date.now() + limit.reset_after).toISOString();
    throw new Error(
      `Discord allows ${limit.remaining} more gateway sessions until ${reset} (of ${limit.total} a day), and ${here} shards need ${here}. ` +
        'Wait until then; restarting often uses these up.',
    );
  }
  return { count, maxConcurrency: limit.max_concurrency };
}

/** Stop every shard: SIGTERM (each finishes or interrupts its runs and saves), SIGKILL after the grace. */
async function stopShards(manager: ShardingManager, graceMs = 20_000): Promise<void> {
  manager.respawn = false;
  await Promise.all(
    manager.shards.map(async (shard) => {
      const child = shard.process;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    }),
  );
}
