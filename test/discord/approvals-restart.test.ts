/**
 * Approvals as interruptions, for real: the bot runs as a child process (as `npm start` does) on a
 * SQLite file with the production defaults, runs stop at calls that wait for a person, the bot is
 * killed with SIGKILL while they wait, and after a restart the decisions resume them: Approve runs the
 * tool once and the run finishes in its thread, Deny goes on without it, Stop ends it, and two
 * moderators pressing at once run the tool once. While a turn waits, its member's slot is free.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../commands/index.js';
import { FakeDiscord, MessageFlag, type FakeMessage } from '../fake-discord/index.js';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { startBotProcess, type BotProcess } from '../ops/helpers/bot-process.js';
import { isFinalAnswer, productionDefaults } from './harness.js';
import { buttonsOf } from './waiting.js';

let fake: FakeDiscord;
let model: FakeOpenAIServer;
let dir: string;
const bots: BotProcess[] = [];
let mods: [string, string];

beforeAll(async () => {
  fake = await FakeDiscord.start({ log: () => undefined, idBaseTime: Date.now() });
  fake.registerCommands(commands.map((c) => c.data.toJSON()));
  model = await FakeOpenAIServer.start();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'threadwise-approvals-'));
  const role = fake.addRole({ name: 'Moderators', permissions: ['ManageGuild'] });
  mods = [fake.addUser({ username: 'mod', globalName: 'Mod One' }).id, fake.addUser({ username: 'mod2', globalName: 'Mod Two' }).id];
  for (const id of mods) fake.addMember({ userId: id, roleIds: [role.id] });
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
      // One run at a time per member, so a free slot while a turn waits shows in a second answer.
      USER_CONCURRENT_RUNS: '1',
      OPENAI_MAX_RETRY_WAIT_MS: '20', LOG_LEVEL: 'info', WIKIPEDIA_API_URL: 'http://127.0.0.1:9/w/api.php', CALCULATOR_WORKERS: '1',
    },
  });
  bots.push(bot);
  return bot;
}

const finalReply = (interactionId: string) =>
  fake.waitForMessage((m) => m.interactionId === interactionId && (m.flags & MessageFlag.Loading) === 0 && m.content !== '', 20_000);

/** An /ask whose model wants `calculate(expression)`: resolves once its approval request is up in its thread. */
async function waitingAsk(question: string, expression: string): Promise<{ request: FakeMessage; threadId: string; interactionId: string }> {
  model.script({ content: 'I will compute it.', toolCalls: [{ name: 'calculate', arguments: { expression } }] });
  const since = fake.mark();
  const interaction = fake.sendSlashCommand({ name: 'ask', options: { question } });
  const request = await fake.waitForMessage((m) => m.content.startsWith('🔐 **Approval needed**') && m.content.includes(expression) && buttonsOf(m).length === 2, 20_000, { since });
  return { request, threadId: request.channelId, interactionId: interaction.id };
}

function press(message: FakeMessage, label: string, userId: string) {
  const button = buttonsOf(message).find((b) => b.label === label)!;
  return fake.clickButton({ messageId: message.id, customId: button.custom_id, channelId: message.channelId, userId });
}

/** The tool results the model was sent in a request. */
const toolResults = (i: number) => model.requests[i]!.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));

describe('approvals that wait across a restart', () => {
  it('wait holding no slot, survive SIGKILL, and are approved, denied, stopped or pressed twice at once after the restart', async () => {
    const first = start();
    await first.waitFor(/threadwise is running/, 60_000);
    const made = fake.sendSlashCommand({ name: 'tools', userId: mods[0], options: [{ name: 'approval', type: 1, options: [{ name: 'tool', type: 3, value: 'calculate' }, { name: 'mode', type: 3, value: 'ask' }] }] });
    expect((await finalReply(made.id)).content).toMatch(/made calls to `calculate` wait for approval/);

    const approve = await waitingAsk('What is 6 times 7?', '6 * 7');
    // The member's only slot is free while their turn waits: another question is answered meanwhile.
    model.script({ content: 'Meanwhile: it is sunny.' });
    const meanwhile = fake.mark();
    fake.sendSlashCommand({ name: 'ask', options: { question: 'And the weather?' } });
    expect((await fake.waitForMessage(isFinalAnswer, 20_000, { since: meanwhile })).content).toContain('Meanwhile: it is sunny.');
    const deny = await waitingAsk('What is 2 plus 2?', '2 + 2');
    const stop = await waitingAsk('What is 9 minus 1?', '9 - 1');
    const twice = await waitingAsk('What is 3 times 3?', '3 * 3');
    const before = model.requests.length;
    await new Promise((r) => setTimeout(r, 300)); // the records of where the requests are land
    expect(await first.stop('SIGKILL')).toBeNull();

    const second = start();
    await second.waitFor(/threadwise is running/, 60_000);

    // Approve after the restart: the tool runs once, the run finishes in the same thread, the reply links to it.
    model.script({ content: 'It is 42.' });
    press(approve.request, 'Approve', mods[0]);
    const answered = await fake.waitForMessage((m) => isFinalAnswer(m) && m.channelId === approve.threadId, 20_000);
    expect(answered.content).toContain('It is 42.');
    expect(toolResults(before)).toEqual([expect.stringMatching(/^42/)]);
    expect(fake.message(approve.request.id)!.content).toMatch(/✅ Approved by \*\*Mod One\*\*/);
    await fake.waitFor(() => fake.message(fake.interaction(approve.interactionId)!.originalMessageId!)!.content.includes('Full answer and steps'), 10_000);

    // Deny after the restart: the model hears the call was not approved and answers without it.
    model.script({ content: 'I could not compute it.' });
    press(deny.request, 'Deny', mods[0]);
    await fake.waitForMessage((m) => isFinalAnswer(m) && m.channelId === deny.threadId, 20_000);
    expect(toolResults(before + 1)).toEqual([expect.stringMatching(/was not run: a person denied it/)]);

    // Stop after the restart (the log keeps its Stop button while it waits): the turn ends, no model call.
    const log = fake.botMessages(stop.threadId).find((m) => buttonsOf(m).some((b) => b.label === 'Stop'))!;
    const calls = model.requests.length;
    press(log, 'Stop', fake.defaults.userId);
    await fake.waitForMessage((m) => m.channelId === stop.threadId && m.content.startsWith('⏹️ Stopped'), 20_000);
    expect(fake.message(stop.request.id)!.content).toContain('⏹️ Not run: the run was stopped.');
    expect(buttonsOf(fake.message(log.id)!)).toEqual([]);

    // Two moderators at once: one decision lands, the tool runs once.
    model.script({ content: 'It is 9.' });
    press(twice.request, 'Approve', mods[0]);
    press(twice.request, 'Approve', mods[1]);
    await fake.waitForMessage((m) => isFinalAnswer(m) && m.channelId === twice.threadId, 20_000);
    expect(model.requests).toHaveLength(calls + 1);
    expect(toolResults(calls)).toEqual([expect.stringMatching(/^9/)]);
    await new Promise((r) => setTimeout(r, 500));
    expect(model.requests).toHaveLength(calls + 1);
    expect(await second.stop('SIGTERM')).toBe(0);
  }, 240_000);
});
