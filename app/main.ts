/**
 * `npm start`: validate the configuration, start the bot, stop cleanly on SIGINT/SIGTERM.
 * A missing or invalid setting exits with status 1 and a list of every problem (secrets never printed).
 */
import { loadConfigOrReport } from '../src/config.js';
import { describeError } from '../src/errors.js';
import { createLogger } from '../src/logger.js';
import { startApp } from './app.js';

async function main(): Promise<number> {
  const config = loadConfigOrReport({ needDiscord: true });
  if (!config) return 1;
  const logger = createLogger(config.logLevel);
  let app;
  try {
    app = await startApp(config, logger);
  } catch (error) {
    const hint = /TokenInvalid|401/.test(String(error)) ? ' Check DISCORD_TOKEN.' : '';
    console.error(`Could not start: ${describeError(error)}.${hint}`);
    return 1;
  }
  const running = app;
  await new Promise<void>((resolve) => {
    const shutdown = (signal: string) => {
      logger.info({ signal }, 'shutting down: interrupting runs and saving state');
      void running.stop().finally(resolve);
    };
    process.once('SIGINT', () => shutdown('SIGINT'));
    process.once('SIGTERM', () => shutdown('SIGTERM'));
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
