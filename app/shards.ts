/**
 * `npm start` with SHARDS set: discord.js's own ShardingManager runs one process per shard, each the
 * same entry point as a single bot (it finds itself a shard through the variables the manager sets),
 * and starts a new process for a shard whose process ends. The shards share their state through
 * KEYV_URL (Redis or PostgreSQL; the configuration refuses anything else), so a shard that restarts
 * picks its threads up where they were.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { REST, Routes, ShardingManager, type RESTGetAPIGatewayBotResult, type Shard } from 'discord.js';
import type { Config } from '../src/config.js';
import { describeStartupError } from '../src/discord/startup-errors.js';
import type { Logger } from '../src/logger.js';

export interface ShardManagerOptions {
  /** The script each shard process runs (app/main, compiled or from source). */
  entry: string;
  /** Node flags for the shard processes. Default: this process's own (tsx's loader when run from source). */
  execArgv?: string[];
  /** Longest a shard may take to connect at start-up. Default 60 s. */
  spawnTimeoutMs?: number;
  /** How long a shard gets to finish its runs when stopping, before it is killed. Default 20 s. */
  stopGraceMs?: number;
}

/** Start the shards and keep them running until SIGINT or SIGTERM. Resolves with the exit status. */
export async function runShardManager(config: Config, logger: Logger, options: ShardManagerOptions): Promise<number> {
  const discord = config.discord!;
  let count: number;
  try {
    count = await shardCount(config, logger);
  } catch (error) {
    console.error(`Could not start the shards: ${describeStartupError(error)}`);
    return 1;
  }

  const manager = new ShardingManager(options.entry, {
    totalShards: count,
    token: discord.token,
    mode: 'process',
    // Off while starting: a shard that cannot start (bad intents, storage down) fails the start
    // instead of being restarted in a loop. On once every shard is up.
    respawn: false,
    execArgv: options.execArgv ?? process.execArgv,
  });
  let started = false;
  let stopping = false;
  let diedWhileStarting: number | undefined;
  manager.on('shardCreate', (shard: Shard) => {
    // Process mode: each shard is a ChildProcess (never a Worker).
    shard.on('spawn', (child) => logger.info({ shard: shard.id, pid: (child as ChildProcess).pid }, 'shard process started'));
    shard.on('ready', () => logger.info({ shard: shard.id }, 'shard connected to Discord'));
    shard.on('death', (ended) => {
      if (!started) diedWhileStarting ??= shard.id;
      const child = ended as ChildProcess;
      const info = { shard: shard.id, pid: child.pid, exitCode: child.exitCode, signal: child.signalCode };
      if (stopping) logger.info(info, 'shard process ended');
      else logger.warn(info, manager.respawn ? 'shard process ended; the manager starts a new one' : 'shard process ended');
    });
    shard.on('error', (error: unknown) => logger.error({ err: error, shard: shard.id }, 'shard error'));
  });

  try {
    await manager.spawn({ amount: count, timeout: options.spawnTimeoutMs ?? 60_000 });
    if (diedWhileStarting !== undefined) throw new Error(`shard ${diedWhileStarting} ended while the others were starting`);
  } catch (error) {
    console.error(`Could not start the shards: ${describeStartupError(error)} The shard's own message is above.`);
    await stopShards(manager, options.stopGraceMs);
    return 1;
  }
  started = true;
  manager.respawn = true;
  logger.info({ shards: count }, 'all shards are running');

  const signal = await new Promise<string>((resolve) => {
    // Kept listening: a second signal while the shards stop must not kill the manager under them.
    process.on('SIGINT', () => resolve('SIGINT'));
    process.on('SIGTERM', () => resolve('SIGTERM'));
  });
  stopping = true;
  logger.info({ signal }, 'stopping the shards');
  await stopShards(manager, options.stopGraceMs);
  return 0;
}

/**
 * How many shards: SHARDS, or Discord's recommendation for `auto`. Asking Discord either way checks
 * the token once here, rather than in every shard, and reads how many sessions may still start today.
 */
async function shardCount(config: Config, logger: Logger): Promise<number> {
  const discord = config.discord!;
  const rest = new REST(discord.apiBaseUrl ? { api: discord.apiBaseUrl.replace(/\/+$/, '') } : {}).setToken(discord.token);
  const gateway = (await rest.get(Routes.gatewayBot())) as RESTGetAPIGatewayBotResult;
  const count = config.ops.shards === 'auto' || config.ops.shards === undefined ? gateway.shards : config.ops.shards;
  const limit = gateway.session_start_limit;
  logger.info({ shards: count, recommended: gateway.shards, sessionsLeft: limit.remaining }, 'starting shards');
  if (limit.remaining < count) {
    const reset = new Date(Date.now() + limit.reset_after).toISOString();
    throw new Error(
      `Discord allows ${limit.remaining} more gateway sessions until ${reset} (of ${limit.total} a day), and ${count} shards need ${count}. ` +
        'Wait until then; restarting often uses these up.',
    );
  }
  return count;
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
