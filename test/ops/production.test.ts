import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildCompiled, type CompiledInstall } from './helpers/compiled.js';
import { httpGet, metricValue, startBotProcess, type BotProcess } from './helpers/bot-process.js';
import { FakeDiscord } from '../fake-discord/index.js';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { REDIS_URL, serverTarget } from '../state/helpers/targets.js';
import { startTcpProxy, type TcpProxy } from '../state/helpers/tcp-proxy.js';
import { commands } from '../../commands/index.js';

// One build for the file: compiling the project takes a while on a busy machine.
let install: CompiledInstall;
beforeAll(async () => {
  install = await buildCompiled('prod');
}, 300_000);
afterAll(() => install?.remove());

let fake: FakeDiscord | undefined;
let model: FakeOpenAIServer | undefined;
let bot: BotProcess | undefined;
let proxy: TcpProxy | undefined;
afterEach(async () => {
  await bot?.stop('SIGKILL');
  await fake?.close();
  await model?.close();
  await proxy?.close();
  bot = fake = model = proxy = undefined;
});

/** `npm run start:prod`, or the command it runs (as the container does: npm does not pass SIGTERM on). */
async function startProd(env: Record<string, string>, via: 'npm' | 'node' = 'npm'): Promise<{ health: string }> {
  fake = await FakeDiscord.start({ log: () => undefined, idBaseTime: Date.now() });
  // Registered as npm run deploy-commands does: Discord offers no others.
  fake.registerCommands(commands.map((c) => c.data.toJSON()));
  model = await FakeOpenAIServer.start();
  const [command, args] = via === 'npm' ? ['npm', ['run', 'start:prod']] : [process.execPath, ['dist/app/main.js']];
  bot = startBotProcess(command, args, {
    cwd: install.dir,
    env: {
      DISCORD_TOKEN: fake.token, DISCORD_API_BASE_URL: fake.apiUrl, DISCORD_MESSAGE_CONTENT: 'true',
      OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'k', AGENT_PROTOCOL: 'native', OPENAI_MAX_RETRIES: '0',
      WIKIPEDIA_API_URL: 'http://127.0.0.1:9/w/api.php', KEYV_URL: 'sqlite://data/bot.sqlite', HEALTH_PORT: '0', LOG_LEVEL: 'info',
      ...env,
    },
  });
  const running = await bot.waitFor(/"health":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*threadwise is running/, 60_000);
  return { health: running[1]! };
}

describe('npm run start:prod (compiled JavaScript, production dependencies only)', () => {
  it('answers an /ask through the compiled bot and calculator worker, serves health and metrics, and stops cleanly', async () => {
    const { health } = await startProd({});
    expect(bot!.output()).toMatch(/"inviteUrl":"https:\/\/discord\.com\/oauth2\/authorize\?client_id=\d+&scope=bot\+applications\.commands&permissions=309237746688"/);

    expect(await httpGet(`${health}/healthz`)).toMatchObject({ status: 200, body: 'ok\n' });
    const ready = await httpGet(`${health}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body).toBe('gateway: ok\nstorage: ok\n');
    const before = (await httpGet(`${health}/metrics`)).body;
    expect(metricValue(before, 'threadwise_runs_total{reason="answer"}')).toBeUndefined();

    model!.script(
      { content: 'Computing.', toolCalls: [{ name: 'calculate', arguments: { expression: '17 * 3' } }], usage: { prompt: 40, completion: 7 } },
      { content: '17 × 3 is **51**.', usage: { prompt: 60, completion: 9 } },
    );
    const interaction = fake!.sendSlashCommand({ name: 'ask', options: { question: 'What is 17 times 3?' } });
    const answer = await fake!.waitForMessage((m) => m.content.startsWith('### Answer'), 30_000);
    expect(answer.content).toContain('17 × 3 is **51**.');
    expect(interaction.ackType).toBe(5);
    const log = fake!.messagesIn(answer.channelId).find((m) => m.content.includes('🔧'))!;
    expect(log.content).toMatch(/```\n51\n```/); // the compiled calculator worker ran it

    const metrics = await httpGet(`${health}/metrics`);
    expect(metrics.contentType).toContain('text/plain');
    const value = (series: string) => metricValue(metrics.body, series);
    expect(value('threadwise_runs_total{reason="answer"}')).toBe(1);
    expect(value('threadwise_run_steps_count')).toBe(1);
    expect(value('threadwise_run_steps_sum')).toBe(2);
    expect(value('threadwise_tool_calls_total{tool="calculate",outcome="ok"}')).toBe(1);
    expect(value('threadwise_tokens_total{kind="prompt"}')).toBe(100);
    expect(value('threadwise_tokens_total{kind="completion"}')).toBe(16);
    expect(value('threadwise_model_request_duration_seconds_count{outcome="ok"}')).toBe(2);
    expect(value('threadwise_interaction_ack_seconds_count{kind="command"}')).toBe(1);
    expect(value('threadwise_queue_waiting')).toBe(0);
    expect(value('threadwise_limit_refusals_total')).toBeUndefined(); // the hook exists, nothing refused yet
    expect(metrics.body).toContain('# TYPE threadwise_limit_refusals_total counter');
    expect(metrics.body).toMatch(/^process_cpu_user_seconds_total \d/m);

    // npm itself dies of the signal (it does not wait for its script); the bot's own log shows a clean stop.
    await bot!.stop('SIGTERM');
    expect(bot!.output()).toContain('"signal":"SIGTERM","msg":"shutting down');
    expect(bot!.output()).not.toMatch(/Unexpected failure|"level":50/);
  }, 120_000);

  it('says not ready (503) while its storage is unreachable, stays alive, and is ready again once storage is back', async (ctx) => {
    const redis = await serverTarget('production', 'redis', REDIS_URL);
    if (!redis.available) return ctx.skip();
    proxy = await startTcpProxy(Number(new URL(REDIS_URL).port || 6379));
    const { health } = await startProd({ KEYV_URL: `redis://127.0.0.1:${proxy.port}` }, 'node');
    expect((await httpGet(`${health}/readyz`)).status).toBe(200);

    proxy.cut();
    const down = await httpGet(`${health}/readyz`);
    expect(down.status).toBe(503);
    expect(down.body).toMatch(/^gateway: ok\nstorage: not ready: .*redis/m);
    expect((await httpGet(`${health}/healthz`)).status).toBe(200);

    proxy.restore();
    const deadline = Date.now() + 20_000;
    let status = 503;
    while (status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      status = (await httpGet(`${health}/readyz`)).status;
    }
    expect(status).toBe(200);
    expect(await bot!.stop('SIGTERM')).toBe(0);
  }, 120_000);
});
