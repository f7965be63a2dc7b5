/**
 * `npm run rest-proxy`: the REST proxy on its own (app/rest-proxy.ts), for deployments whose shards
 * run on several hosts: every host sets DISCORD_REST_PROXY to this process's URL. Listens on
 * REST_PROXY_HOST:REST_PROXY_PORT and forwards to DISCORD_API_BASE_URL (default Discord's API).
 */
import { loadConfigOrReport } from '../src/config.js';
import { describeError } from '../src/errors.js';
import { createLogger } from '../src/logger.js';
import { startRestProxy } from './rest-proxy.js';

async function main(): Promise<number> {
  const config = loadConfigOrReport({ needDiscord: true, needModel: false });
  if (!config) return 1;
  const logger = createLogger(config.logLevel);
  let proxy;
  try {
    proxy = await startRestProxy({ apiBaseUrl: config.discord!.apiBaseUrl, host: config.ops.restProxyHost, port: config.ops.restProxyPort, logger });
  } catch (error) {
    console.error(`Could not start the REST proxy on ${config.ops.restProxyHost}:${config.ops.restProxyPort}: ${describeError(error)}`);
    return 1;
  }
  logger.info({ url: proxy.apiUrl }, 'REST proxy is running: set DISCORD_REST_PROXY to this URL on every host');
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  logger.info({ signal, sent: proxy.sent }, 'REST proxy stopping');
  await proxy.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`Unexpected failure: ${describeError(error)}`);
    process.exit(1);
  },
);
