/**
 * One run that stops for approval twice, for real: the bot runs as a child process (as `npm start`
 * does) on a SQLite file with the production defaults. An /ask and a mention each stop at a call,
 * are approved, go on, and stop at a second call; the bot is killed with SIGKILL while both wait, and
 * after the restart the second decisions finish them. Each call runs once, and the /ask reply in the
 * channel points at the answer like any other (a resumed turn keeps the kind it began as).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../commands/index.js';
import { FakeDiscord, MessageFlag, type FakeMessage } from '../fake-discord/index.js';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { startBotProcess, type BotProcess } from '../ops/helpers/bot-process.js';
import { createStorage } from '../../src/state/index.js';
import { isFinalAnswer, productionDefaults } from './harness.js';
import { buttonsOf, sleep } from './waiting.js';

let fake: FakeDiscord;
let model: FakeOpenAIServer;
let dir: string;
const bots: BotProcess[] = [];
let mod: string;

beforeAll(async () => {
  fake = await FakeDiscord.start({ log: () => undefined, idBaseTime: Date.now() });
  fake.registerCommands(commands.map((c) => c.data.toJSON()));
  model = await FakeOpenAIServer.start();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'threadwise-approvals-twice-'));
  const role = fake.addRole({ name: 'Moderators', permissions: ['ManageGuild'] });
  mod = fake.addUser({ username: 'mod', globalName: 'Mod One' }).id;
  fake.addMember({ userId: mod, roleIds: [role.id] });
});
afterAll(async () => {
  for (const bot of bots.splice(0)) await bot.stop('SIGKILL');
  await fake?.close();
  await model?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

function start(): BotProcess {
  const bot = startBotProcess(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(process.cwd(), 'app/main.ts')], {
    cwd: dir,
    env: {
      ...productionDefaults(),
      DISCORD_TOKEN: fake.token, DISCORD_API_BASE_URL: fake.apiUrl, OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'k',
      OPENAI_MAX_RETRY_WAIT_MS: '20', LOG_LEVEL: 'info', WIKIPEDIA_API_URL: 'http://127.0.0.1:9/w/api.php', CALCULATOR_WORKERS: '1',
    },
  });
  bots.push(bot);
  return bot;
}

/** The model's next reply: a call to `calculate(expression)`, which waits for approval. */
const calls = (expression: string) => ({ content: `I will compute ${expression}.`, toolCalls: [{ name: 'calculate', arguments: { expression } }] });

/** The approval request for `expression`, once it is up with its two buttons. */
const requestFor = (expression: string, since: number) =>
  fake.waitForMessage((m) => m.content.startsWith('🔐 **Approval needed**') && m.content.includes(expression) && buttonsOf(m).length === 2, 20_000, { since });

function approve(message: FakeMessage) {
  const button = buttonsOf(message).find((b) => b.label === 'Approve')!;
  return fake.clickButton({ messageId: message.id, customId: button.custom_id, channelId: message.channelId, userId: mod });
}

/** A run that stops at `first`, is approved, and stops again at `second`: its second request. */
async function waitingTwice(ask: () => void, first: string, second: string): Promise<FakeMessage> {
  model.script(calls(first));
  const since = fake.mark();
  ask();
  const request = await requestFor(first, since);
  model.script(calls(second));
  approve(request);
  const again = await requestFor(second, since);
  expect(again.channelId).toBe(request.channelId);
  return again;
}

/**
 * Until the bot has written down the waits whose requests are `requests` (each with where its request
 * and its Stop button are) and crossed its runs off the journal: read from the same SQLite file, as a
 * second process would. A SIGKILL before that is another story (the journal tells the thread the run
 * was interrupted), not this test's.
 */
async function settled(requests: FakeMessage[]): Promise<void> {
  const storage = await createStorage({ keyvUrl: productionDefaults().KEYV_URL!, historyTokenBudget: 8_000 }, { baseDir: dir, logger: () => undefined });
  try {
    for (const end = Date.now() + 20_000; Date.now() < end; await sleep(50)) {
      const records = await Promise.all((await storage.waitingTurns.list()).map((e) => storage.waitingTurns.get(e.id)));
      const kept = requests.every((r) => records.some((w) => w?.status === 'waiting' && w.calls[0]?.messageId === r.id && (w.turn as { stopMessage?: unknown }).stopMessage));
      const { entries } = await storage.runJournal('main').read();
      const open = entries.filter((e) => e.entry.kind === 'start' && !entries.some((f) => f.entry.kind === 'end' && f.entry.runId === e.entry.runId));
      if (kept && open.length === 0) return;
    }
    throw new Error('timed out waiting for the waits to be written down');
  } finally {
    await storage.close();
  }
}

/** The tool results the model was sent in request `i`. */
const toolResults = (i: number) => model.requests[i]!.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));

describe('a run that waits for approval twice, across a restart', () => {
  it('in /ask and in a mention: SIGKILL between the two approvals, each call runs once, and the /ask reply links the answer', async () => {
    const first = start();
    await first.waitFor(/threadwise is running/, 60_000);
    const made = fake.sendSlashCommand({ name: 'tools', userId: mod, options: [{ name: 'approval', type: 1, options: [{ name: 'tool', type: 3, value: 'calculate' }, { name: 'mode', type: 3, value: 'ask' }] }] });
    await fake.waitForMessage((m) => m.interactionId === made.id && (m.flags & MessageFlag.Loading) === 0 && /wait for approval/.test(m.content), 20_000);

    let interactionId = '';
    const asked = await waitingTwice(() => void (interactionId = fake.sendSlashCommand({ name: 'ask', options: { question: 'What is 6 times 7, plus one?' } }).id), '6 * 7', '42 + 1');
    const mentioned = await waitingTwice(() => void fake.sendMessage({ content: 'what is 5 times 5, plus one?', mentionBot: true }), '5 * 5', '25 + 1');
    const reply = () => fake.message(fake.interaction(interactionId)!.originalMessageId!)!;
    expect(reply().content).toContain('Waiting for the person who asked');
    // Four model calls so far: each run's first, and its second after the first approval (one result each).
    expect(model.requests).toHaveLength(4);
    expect(toolResults(1)).toEqual([expect.stringMatching(/^42/)]);
    expect(toolResults(3)).toEqual([expect.stringMatching(/^25/)]);
    await settled([asked, mentioned]);
    expect(await first.stop('SIGKILL')).toBeNull();

    const second = start();
    await second.waitFor(/threadwise is running/, 60_000);

    model.script({ content: 'It is 43.' });
    approve(asked);
    const askAnswer = await fake.waitForMessage((m) => isFinalAnswer(m) && m.channelId === asked.channelId, 20_000);
    expect(askAnswer.content).toContain('It is 43.');
    // Both results once each: the first call did not run again, the second ran once.
    expect(toolResults(4)).toEqual([expect.stringMatching(/^42/), expect.stringMatching(/^43/)]);
    // The channel reply points at the answer, as for a run that never waited.
    await fake.waitFor(() => reply().content.includes('Full answer and steps'), 10_000);
    expect(reply().content).toContain('It is 43.');
    expect(reply().content).not.toContain('Waiting for');

    model.script({ content: 'It is 26.' });
    approve(mentioned);
    const mentionAnswer = await fake.waitForMessage((m) => isFinalAnswer(m) && m.channelId === mentioned.channelId, 20_000);
    expect(mentionAnswer.content).toContain('It is 26.');
    expect(toolResults(5)).toEqual([expect.stringMatching(/^25/), expect.stringMatching(/^26/)]);
    expect(model.requests).toHaveLength(6);
    expect(fake.botMessages(mentioned.channelId).filter(isFinalAnswer)).toHaveLength(1);
    expect(await second.stop('SIGTERM')).toBe(0);
  }, 240_000);
});
