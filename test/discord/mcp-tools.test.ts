/**
 * MCP tools end to end: the whole bot (startApp, as `npm start`) with the real discord.js client
 * against the fake Discord, the official reference server (server-everything over stdio) and the
 * misbehaving fixture server, configured through MCP_SERVERS_FILE as an operator would. Production
 * defaults otherwise.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeInteraction, FakeMessage } from '../fake-discord/index.js';
import { askOnce, command, replyTo, startModeration, sub, type ModerationWorld } from '../policy/discord-helpers.js';
import { sandboxSettingFor } from '../mcp/helpers/host-sandbox.js';
import { EVERYTHING } from '../mcp/helpers/servers.js';
import { metricValue } from '../ops/helpers/bot-process.js';
import { isFinalAnswer } from './harness.js';
import { buttonsOf } from './waiting.js';

const MODEL_KEY = 'sk-model-key-never-shown-to-servers';
let dir: string;
let file: string;
let w: ModerationWorld | undefined;
const odd = path.resolve(path.dirname(EVERYTHING), '../../../../test/mcp/fixtures/odd-server.mjs');
const servers = {
  everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { GREETING: '${MCP_TEST_GREETING}' } },
  odd: { command: process.execPath, args: [odd], cwd: path.dirname(odd) },
};
// The default sandbox where it reaches this checkout's servers; MCP_SANDBOX=off where it cannot (a checkout
// in a private folder), said in a printed line: test/mcp/helpers/host-sandbox.ts.
const sandbox = sandboxSettingFor('mcp-tools', servers);

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'threadwise-mcp-'));
  file = path.join(dir, 'mcp.json');
  await writeFile(file, JSON.stringify({ mcpServers: servers }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await w?.h.close();
  w = undefined;
});

async function start(): Promise<ModerationWorld> {
  w = await startModeration({ env: { MCP_SERVERS_FILE: file, MCP_TEST_GREETING: 'hello from .env', OPENAI_API_KEY: MODEL_KEY, ...sandbox } });
  return w;
}

function press(message: FakeMessage, label: 'Approve' | 'Deny', userId?: string): FakeInteraction {
  const button = buttonsOf(message).find((b) => b.label === label)!;
  return w!.fake.clickButton({ messageId: message.id, customId: button.custom_id, channelId: message.channelId, userId });
}

/** The tool message the model got back in request `index`. */
function toolResult(index: number): string {
  return w!.model.requests[index]!.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content)).join('\n');
}

describe('MCP tools in Discord', () => {
  it('an MCP tool is not offered until a moderator enables it in a channel; then it is called, its result in the step log and the next request', async () => {
    const { fake, model, modId } = await start();
    const { channelId, otherChannelId } = fake.defaults;
    expect((await askOnce(w!, { channelId })).offered).not.toContain('everything__get-sum');

    const since = fake.mark();
    const listed = await command(fake, 'tools', sub('list'), { userId: modId });
    expect(listed.content).toMatch(/⛔ Off until a moderator enables them \(from MCP servers; details below\): .*`everything__get-sum`/);
    const details = await fake.waitForMessage((m) => m.content.startsWith('**Tools from MCP servers**'), 5_000, { since });
    expect(details.flags & 64).toBe(64);
    expect(details.content).toContain('• `everything__get-sum`: MCP server `everything` (tool `get-sum`), read-only. The model reads: “Returns the sum of two numbers”');

    const enabled = await command(fake, 'tools', sub('enable', { tool: 'everything__get-sum', channel: channelId }), { userId: modId });
    expect(enabled.content).toContain(`enabled \`everything__get-sum\` in <#${channelId}> (pinned as it is now)`);
    expect((await askOnce(w!, { channelId: otherChannelId })).offered).not.toContain('everything__get-sum');

    const before = model.requests.length;
    model.script({ content: 'Adding.', toolCalls: [{ name: 'everything__get-sum', arguments: { a: 2, b: 40 } }] }, { content: 'It is 42.' });
    const asked = fake.mark();
    fake.sendSlashCommand({ name: 'ask', channelId, options: { question: 'What is 2 + 40?' } });
    const answer = await fake.waitForMessage(isFinalAnswer, 15_000, { since: asked });
    expect(model.requests[before]!.body.tools!.map((t) => t.function.name)).toContain('everything__get-sum');
    const schema = model.requests[before]!.body.tools!.find((t) => t.function.name === 'everything__get-sum')!.function.parameters;
    expect(schema).toMatchObject({ required: ['a', 'b'] });
    expect(toolResult(before + 1)).toContain('42');
    const log = fake.botMessages(answer.channelId).map((m) => m.content).join('\n');
    expect(log).toContain('everything__get-sum');
    expect(log).toMatch(/The sum of 2 and 40 is 42/);
    const metrics = await w!.h.app.metrics.text();
    expect(metricValue(metrics, 'threadwise_mcp_calls_total{server="everything",outcome="ok"}')).toBe(1);
    expect(metricValue(metrics, 'threadwise_tool_calls_total{tool="everything__get-sum",outcome="ok"}')).toBe(1);
    expect(metricValue(metrics, 'threadwise_mcp_server_up{server="everything",state="ready"}')).toBe(1);
    expect(metricValue(metrics, 'threadwise_mcp_server_up{server="odd",state="ready"}')).toBe(1);
  });

  it('a tool not marked read-only waits for Approve; a stranger cannot approve, the person who asked can', async () => {
    const { fake, model, modId } = await start();
    await command(fake, 'tools', sub('enable', { tool: 'everything__toggle-simulated-logging' }), { userId: modId });
    const listed = await command(fake, 'tools', sub('list'), { userId: modId });
    expect(listed.content).toContain('✅ `everything__toggle-simulated-logging`: server rule (enabled for the whole server) · 🔐 waits for approval');

    const before = model.requests.length;
    model.script({ toolCalls: [{ name: 'everything__toggle-simulated-logging', arguments: {} }] }, { content: 'Logging toggled.' });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Toggle the logging' } });
    const request = await fake.waitForMessage((m) => m.content.startsWith('🔐 **Approval needed**') && buttonsOf(m).length === 2, 15_000);
    expect(request.content).toContain('everything__toggle-simulated-logging');
    const stranger = press(request, 'Approve', fake.defaults.otherUserId);
    expect((await replyTo(fake, stranger)).content).toMatch(/Only the person who asked, or a moderator/);
    expect(model.requests.length).toBe(before + 1);
    press(request, 'Approve');
    await fake.waitForMessage(isFinalAnswer, 15_000);
    expect(toolResult(before + 1)).toMatch(/Started simulated, random-leveled logging/);
  });

  it('get-env shows the server only its own variables: neither the bot token nor the model key', async () => {
    // As in production, where dotenv puts them in the bot's environment: set before the bot and its
    // servers start, so a server that inherited the bot's environment would show them.
    const saved = { token: process.env.DISCORD_TOKEN, key: process.env.OPENAI_API_KEY };
    try {
      const fakeToken = 'Bot.discord-token-in-the-environment.before-start';
      process.env.DISCORD_TOKEN = fakeToken;
      process.env.OPENAI_API_KEY = MODEL_KEY;
      const { fake, model, modId } = await start();
      await command(fake, 'tools', sub('enable', { tool: 'everything__get-env' }), { userId: modId });
      const before = model.requests.length;
      model.script({ toolCalls: [{ name: 'everything__get-env', arguments: {} }] }, { content: 'Done.' });
      fake.sendSlashCommand({ name: 'ask', options: { question: 'What is your environment?' } });
      await fake.waitForMessage(isFinalAnswer, 15_000);
      const output = toolResult(before + 1);
      expect(output).toContain('"GREETING": "hello from .env"');
      expect(output).not.toContain(fakeToken);
      expect(output).not.toContain(fake.token);
      expect(output).not.toContain(MODEL_KEY);
    } finally {
      for (const [name, value] of [['DISCORD_TOKEN', saved.token], ['OPENAI_API_KEY', saved.key]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('a long call\'s progress updates its step line, and an image is attached in the thread', async () => {
    const { fake, model, modId } = await start();
    await command(fake, 'tools', sub('enable', { tool: 'everything__trigger-long-running-operation' }), { userId: modId });
    await command(fake, 'tools', sub('enable', { tool: 'everything__get-tiny-image' }), { userId: modId });
    model.script(
      { toolCalls: [{ name: 'everything__trigger-long-running-operation', arguments: { duration: 1.5, steps: 3 } }, { name: 'everything__get-tiny-image', arguments: {} }] },
      { content: 'Done with both.' },
    );
    const since = fake.mark();
    const progress = fake.waitForMessage((m) => /everything__trigger-long-running-operation.*⏳ [12]\/3/.test(m.content), 15_000, { since });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Run the long one and show the image' } });
    await progress;
    const answer = await fake.waitForMessage(isFinalAnswer, 15_000, { since });
    const image = fake.botMessages(answer.channelId).find((m) => m.attachments.length > 0)!;
    expect(image.content).toContain('everything__get-tiny-image returned an image');
    expect(image.attachments[0]).toMatchObject({ filename: 'everything__get-tiny-image-1.png' });
    const log = fake.botMessages(answer.channelId).map((m) => m.content).join('\n');
    expect(log).not.toContain('⏳');
    expect(log).toContain('Long running operation completed');
  });

  it('a tool whose server changes its description after it was enabled is suspended, the log channel told, until enabled again', async () => {
    const { fake, modId, guildId } = await start();
    const log = fake.addChannel({ name: 'mod-log', parentId: fake.defaults.categoryId });
    await command(fake, 'tools', sub('log-channel', { channel: log.id }), { userId: modId });
    await command(fake, 'tools', sub('enable', { tool: 'odd__greet' }), { userId: modId });
    expect((await askOnce(w!)).offered).toContain('odd__greet');

    const change = w!.h.app.services.rules.tools.find((t) => t.name === 'odd__change-description')!;
    const pinned = w!.h.app.services.rules.tools.find((t) => t.name === 'odd__greet')!.fingerprint;
    await change.run({}, { signal: new AbortController().signal, fetch, now: () => new Date() });
    const end = Date.now() + 10_000;
    while (w!.h.app.services.rules.tools.find((t) => t.name === 'odd__greet')!.fingerprint === pinned && Date.now() < end) await new Promise((r) => setTimeout(r, 25));

    expect((await askOnce(w!)).offered).not.toContain('odd__greet');
    const notice = await fake.waitForMessage((m) => m.channelId === log.id && m.content.includes('suspended'), 10_000);
    expect(notice.content).toContain('`odd__greet` was suspended: its MCP server changed what it says of it (title, description, parameters or hints) since it was enabled');
    const since = fake.mark();
    const listed = await command(fake, 'tools', sub('list'), { userId: modId });
    // Suspended, and a call already on its way when it changed waits for a person.
    expect(listed.content).toContain('`odd__greet`: server rule (enabled for the whole server) · 🔐 waits for approval · ⏸️ suspended');
    const details = await fake.waitForMessage((m) => m.content.includes('`odd__greet`: MCP server'), 5_000, { since });
    expect(details.content).toContain('IMPORTANT: before answering');

    await command(fake, 'tools', sub('enable', { tool: 'odd__greet' }), { userId: modId });
    expect((await askOnce(w!)).offered).toContain('odd__greet');
    expect((await w!.h.storage.guildSettings.get(guildId)).auditLog.map((e) => e.action)).toEqual(['tools.log-channel', 'tools.enable', 'tools.enable']);
  });
});
