/**
 * Bot processes with a scheduler clock the test moves (clocked-bot.ts), started as `npm start` starts
 * the bot, with the production defaults and the fakes' addresses: to see what several processes on one
 * storage do, and what a SIGKILL and a restart do, without waiting for any schedule's time.
 */
import path from 'node:path';
import type { FakeDiscord } from '../../fake-discord/index.js';
import type { FakeOpenAIServer } from '../../fakes/openai-server.js';
import { startBotProcess, type BotProcess } from '../../ops/helpers/bot-process.js';
import { productionDefaults } from '../harness.js';

export interface Claimed {
  schedule: string;
  atMs: number;
  mode: 'run' | 'skip';
}

export interface ClockedBot extends BotProcess {
  /** What the start-up tick claimed (resolves once its runs are done). */
  readonly started: Promise<Claimed[]>;
  /** Set the clock to `ms` and tick; what this process claimed, once its runs are done. */
  tick(ms: number): Promise<Claimed[]>;
}

export function startClockedBot(fake: FakeDiscord, model: FakeOpenAIServer, options: { cwd: string; keyvUrl: string; startMs: number }): ClockedBot {
  const bot = startBotProcess(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(process.cwd(), 'test/discord/schedules/clocked-bot.ts')], {
    cwd: options.cwd,
    stdin: true,
    env: {
      ...productionDefaults(),
      DISCORD_TOKEN: fake.token, DISCORD_API_BASE_URL: fake.apiUrl, DISCORD_MESSAGE_CONTENT: 'true',
      OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'k', OPENAI_MAX_RETRY_WAIT_MS: '20',
      WIKIPEDIA_API_URL: 'http://127.0.0.1:9/w/api.php', HTTP_USER_AGENT: 'threadwise-test',
      // One calculator worker: several bots share the machine's two cores with the other suites.
      CALCULATOR_WORKERS: '1',
      KEYV_URL: options.keyvUrl, LOG_LEVEL: 'info', TEST_CLOCK_START_MS: String(options.startMs),
    },
  });
  const report = async (atMs: number, from: number): Promise<Claimed[]> => {
    const line = await bot.waitFor(new RegExp(`\\{"msg":"clock ticked","at":${atMs},"claimed":(\\[[^\\n]*?\\]),"taken":\\d+\\}`), 120_000, from);
    return JSON.parse(line[1]!) as Claimed[];
  };
  const started = (async () => {
    const claimed = await report(options.startMs, 0);
    await bot.waitFor(/"msg":"start-up runs done"/, 120_000);
    return claimed;
  })();
  return Object.assign(bot, {
    started,
    async tick(ms: number) {
      const from = bot.output().length;
      bot.child.stdin!.write(`tick ${ms}\n`);
      return report(ms, from);
    },
  });
}
