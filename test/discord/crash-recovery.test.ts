/**
 * A crash mid-run, for real: the bot runs as a child process (`node --import tsx app/main.ts`, as
 * `npm start` does) with a SQLite file, is killed with SIGKILL while a run waits on the model, and is
 * started again. The dead run's Stop button must end up disabled and its reply must say it was
 * interrupted; the dead runs' slots are free at once and what they had used is counted.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commands } from '../../commands/index.js';
import { FakeDiscord } from '../fake-discord/index.js';
import { FakeOpenAIServer, type RecordedRequest } from '../fakes/openai-server.js';
import { MessageFlag } from '../fake-discord/index.js';
import { startBotProcess, type BotProcess } from '../ops/helpers/bot-process.js';

let fake: FakeDiscord | undefined;
let model: FakeOpenAIServer | undefined;
const bots: BotProcess[] = [];
let dir: string | undefined;
afterEach(async () => {
  for (const bot of bots.splice(0)) await bot.stop('SIGKILL');
  await fake?.close();
  await model?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
  fake = model = dir = undefined;
});

type Button = { type: number; custom_id?: string; disabled?: boolean };
const buttonsOf = (m: { components: unknown[] }) => (m.components as Array<{ components: Button[] }>).flatMap((row) => row.components);

describe('after a crash', () => {
  it('SIGKILL mid-run, restart: the dead run\'s Stop button is disabled and its reply says it was interrupted', async () => {
    fake = await FakeDiscord.start({ log: () => undefined, idBaseTime: Date.now() });
    fake.registerCommands(commands.map((c) => c.data.toJSON()));
    model = await FakeOpenAIServer.start();
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'threadwise-crash-'));
    const start = () => {
      const bot = startBotProcess(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(process.cwd(), 'app/main.ts')], {
        cwd: dir!,
        env: {
          DISCORD_TOKEN: fake!.token, DISCORD_API_BASE_URL: fake!.apiUrl, OPENAI_BASE_URL: model!.baseURL, OPENAI_API_KEY: 'k',
          AGENT_PROTOCOL: 'native', OPENAI_MAX_RETRIES: '0', KEYV_URL: 'sqlite://data/bot.sqlite', LOG_LEVEL: 'info',
          WIKIPEDIA_API_URL: 'http://127.0.0.1:9/w/api.php', CALCULATOR_WORKERS: '1',
        },
      });
      bots.push(bot);
      return bot;
    };

    const first = start();
    await first.waitFor(/threadwise is running/, 60_000);
    model.script(
      { content: 'First, the time.', toolCalls: [{ name: 'current_time', arguments: { timezone: 'UTC' } }] },
      { content: 'Still thinking…', delayMs: 120_000 },
    );
    const interaction = fake.sendSlashCommand({ name: 'ask', options: { question: 'What time is it, slowly?' } });
    const thread = await fake.waitForThread(() => true, 20_000);
    const log = await fake.waitForMessage((m) => m.channelId === thread.id && m.content.includes('↳ result'), 20_000);
    await fake.waitFor(() => model!.requests.length === 2, 10_000);
    expect(buttonsOf(log)).toEqual([expect.objectContaining({ custom_id: expect.stringMatching(/^stop:/) })]);
    expect(buttonsOf(log)[0]!.disabled).not.toBe(true);
    await new Promise((r) => setTimeout(r, 500)); // the journal's writes land (they never wait on Discord)

    expect(await first.stop('SIGKILL')).toBeNull();
    const reply = fake.message(interaction.originalMessageId!)!;
    expect(reply.content).not.toContain('Interrupted');

    const second = start();
    await second.waitFor(/threadwise is running/, 60_000);
    await fake.waitFor(() => reply.content.includes('Interrupted'), 20_000);
    expect(reply.content).toMatch(/asked: What time is it, slowly\?\n-# ⏹️ Interrupted: the bot restarted before this run finished\. Ask again to get an answer\.$/);
    await fake.waitFor(() => buttonsOf(log)[0]?.disabled === true, 10_000);
    expect(buttonsOf(log)).toEqual([expect.objectContaining({ custom_id: buttonsOf(log)[0]!.custom_id, disabled: true })]);
    expect(log.content).toContain('↳ result'); // only the button changed
    await second.waitFor(/found 1 run\(s\) interrupted by the last stop/, 10_000);

    // Cleared: a clean restart finds nothing more to tidy up.
    expect(await second.stop('SIGTERM')).toBe(0);
    const third = start();
    await third.waitFor(/threadwise is running/, 60_000);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(third.output()).not.toMatch(/interrupted by the last stop/);
    expect(await third.stop('SIGTERM')).toBe(0);
  }, 240_000);
});

describe('after a crash with two runs of one member in flight', () => {
  it('SIGKILL, restart: the member may ask again at once, and what the killed runs used so far is counted', async () => {
    fake = await FakeDiscord.start({ log: () => undefined, idBaseTime: Date.now() });
    fake.registerCommands(commands.map((c) => c.data.toJSON()));
    model = await FakeOpenAIServer.start();
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'threadwise-crash-'));
    // Production limits (.env.example): two questions at once per member, 200,000 tokens a day.
    const start = () => {
      const bot = startBotProcess(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(process.cwd(), 'app/main.ts')], {
        cwd: dir!,
        env: {
          DISCORD_TOKEN: fake!.token, DISCORD_API_BASE_URL: fake!.apiUrl, OPENAI_BASE_URL: model!.baseURL, OPENAI_API_KEY: 'k',
          AGENT_PROTOCOL: 'native', OPENAI_MAX_RETRIES: '0', KEYV_URL: 'sqlite://data/bot.sqlite', LOG_LEVEL: 'info',
          WIKIPEDIA_API_URL: 'http://127.0.0.1:9/w/api.php', CALCULATOR_WORKERS: '1',
        },
      });
      bots.push(bot);
      return bot;
    };
    const finalReply = (interaction: { id: string }) =>
      fake!.waitForMessage((m) => m.interactionId === interaction.id && (m.flags & MessageFlag.Loading) === 0 && m.content !== '', 20_000);

    const first = start();
    await first.waitFor(/threadwise is running/, 60_000);
    // Each run's first call (1,000 tokens) returns; its second hangs until the process is killed. Read
    // from the request, not from arrival order: on a busy machine one run's second call can come before
    // the other's first.
    const step = { content: 'First, the time.', toolCalls: [{ name: 'current_time', arguments: { timezone: 'UTC' } }], usage: { prompt: 800, completion: 200 } };
    const firstOrHang = (r: RecordedRequest) => (r.body.messages.some((m) => m.role === 'tool') ? { content: 'Still thinking…', delayMs: 120_000 } : step);
    model.script(firstOrHang, firstOrHang, firstOrHang, firstOrHang);
    fake.sendSlashCommand({ name: 'ask', options: { question: 'What time is it, slowly?' } });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'And the date, slowly?' } });
    await fake.waitFor(() => model!.requests.length === 4, 30_000);
    await new Promise((r) => setTimeout(r, 500)); // the records of the first calls land
    expect(await first.stop('SIGKILL')).toBeNull();

    const second = start();
    await second.waitFor(/threadwise is running/, 60_000);
    const usage = await finalReply(fake.sendSlashCommand({ name: 'usage' }));
    expect(usage.content).toMatch(/• 2 questions, 2,000 tokens \(1,600 in, 400 out\)/);
    expect(usage.content).toMatch(/• 0 running now/);

    model.script({ content: 'It is noon.' });
    const again = fake.sendSlashCommand({ name: 'ask', options: { question: 'What time is it now?' } });
    const reply = await finalReply(again);
    expect(reply.content).not.toMatch(/running/);
    await fake.waitForMessage((m) => m.content.startsWith('### Answer') && m.content.includes('It is noon.'), 20_000);
    await second.waitFor(/released the usage claims of runs that died with the last process here/, 10_000);
    expect(await second.stop('SIGTERM')).toBe(0);
  }, 240_000);
});
