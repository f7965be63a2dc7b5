/**
 * `npm start` (and `npm run start:prod`, compiled): validate the configuration, start the bot, stop
 * cleanly on SIGINT/SIGTERM. A missing or invalid setting exits with status 1 and a list of every
 * problem (secrets never printed). With SHARDS set this process becomes discord.js's ShardingManager
 * and runs this same file once per shard (app/shards.ts).
 */
import { fileURLToPath } from 'node:url';
import { loadConfigOrReport } from '../src/config.js';
import { describeStartupError } from '../src/discord/startup-errors.js';
import { describeError } from '../src/errors.js';
import { createLogger } from '../src/logger.js';
import { startApp } from './app.js';
import { runShardManager } from './shards.js';

async function main(): Promise<number> {
  const config = loadConfigOrReport({ needDiscord: true });
  if (!config) return 1;
  const shard = config.ops.shard;
  if (config.ops.shards !== undefined && !shard) {
    return runShardManager(config, createLogger(config.logLevel), { entry: fileURLToPath(import.meta.url) });
  }
  // discord.js's client reads SHARDS itself (that is how the manager names a shard); an empty
  // `SHARDS=` copied from .env.example would make it fail to parse.
  if (!shard) delete process.env.SHARDS;
  const logger = shard ? createLogger(config.logLevel).child({ shard: shard.id }) : createLogger(config.logLevel);
  let app;
  try {
    app = await startApp(config, logger);
  } catch (error) {
    console.error(`Could not start${shard ? ` shard ${shard.id}` : ''}: ${describeStartupError(error)}`);
    return 1;
  }
  const running = app;
  await new Promise<void>((resolve) => {
    let stopping = false;
    const shutdown = (reason: string) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal: reason }, 'shutting down: interrupting runs and saving state');
      void running.stop().finally(resolve);
    };
    // `on`, not `once`: a shard gets Ctrl-C's SIGINT and then the manager's SIGTERM, and the second
    // signal must not kill it halfway through saving.
    process.on('SIGINT', () => shutdown('SIGINT'));
    process.on('SIGTERM', () => shutdown('SIGTERM'));
    // A shard whose manager is gone (killed) stops too, rather than run on unsupervised.
    if (shard) process.once('disconnect', () => shutdown('manager gone'));
  });
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`Unexpected failure: ${describeError(error)}`);
    process.exit(1);
  },
);
