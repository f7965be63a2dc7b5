import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { askOnce, command, startModeration, sub, type ModerationWorld } from '../policy/discord-helpers.js';
import { isFinalAnswer } from './harness.js';

let w: ModerationWorld | undefined;
let dir: string | undefined;
afterEach(async () => {
  await w?.h.close();
  w = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('tool policy during runs', () => {
  it('rules and the audit log survive a restart with SQLite', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'threadwise-moderation-'));
    const keyvUrl = `sqlite://${path.join(dir, 'settings.sqlite')}`;
    w = await startModeration({ keyvUrl });
    const { fake, model, modId } = w;
    await command(fake, 'tools', sub('disable', { tool: 'calculate', channel: fake.defaults.channelId }), { userId: modId });
    await w.h.close({ keepFakes: true });

    w = await startModeration({ keyvUrl }, { fake, model });
    expect((await askOnce(w, { channelId: fake.defaults.channelId })).offered).toEqual(['wikipedia', 'current_time', 'plot', 'remember', 'forget']);
    expect((await askOnce(w, { channelId: fake.defaults.otherChannelId })).offered).toContain('calculate');
    const audit = await command(fake, 'tools', sub('audit'), { userId: modId });
    expect(audit.content).toContain(`disabled \`calculate\` in <#${fake.defaults.channelId}>`);
  });

  it('text protocol: a run that names a disabled tool gets "not available here" and no tool code runs', async () => {
    const calls: unknown[] = [];
    w = await startModeration({
      env: { AGENT_PROTOCOL: 'text' },
      toolRuns: {
        calculate: async (args) => {
          calls.push(args);
          return '4';
        },
      },
    });
    const { fake, model, modId } = w;
    await command(fake, 'tools', sub('disable', { tool: 'calculate', channel: fake.defaults.channelId }), { userId: modId });

    model.script({ content: 'Thought: I will compute it.\nAction: calculate: 2 + 2\nPAUSE' }, { content: 'Answer: 2 + 2 is 4.' });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'What is 2 + 2?' } });
    await fake.waitForMessage(isFinalAnswer, 10_000);

    const [first, second] = model.requests;
    expect(first!.body.tools).toBeUndefined();
    expect(first!.body.messages[0]!.content).not.toMatch(/^calculate:/m);
    expect(first!.body.messages[0]!.content).toMatch(/^wikipedia:/m);
    expect(second!.body.messages.at(-1)!.content).toContain('Observation: Error: the tool "calculate" is not available here. Tools you can use: wikipedia, current_time, plot, remember, forget.');
    expect(calls).toEqual([]);
  });

  it('a moderator\'s change applies on the next step of a run already going', async () => {
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => (started = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    w = await startModeration({
      toolRuns: {
        current_time: async () => {
          started();
          await gate;
          return '2025-01-01T00:00:00Z';
        },
      },
    });
    const { fake, model, modId } = w;
    model.script({ toolCalls: [{ name: 'current_time', arguments: {} }] }, { content: 'It is new year.' });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'What time is it?' } });

    await toolStarted;
    await command(fake, 'tools', sub('disable', { tool: 'calculate' }), { userId: modId });
    release();
    await fake.waitForMessage(isFinalAnswer, 10_000);
    expect(model.requests[0]!.body.tools!.map((t) => t.function.name)).toContain('calculate');
    expect(model.requests[1]!.body.tools!.map((t) => t.function.name)).toEqual(['wikipedia', 'current_time', 'plot', 'remember', 'forget']);
  });
});

describe('/settings end to end', () => {
  it('a member without Manage Server is refused and nothing changes', async () => {
    w = await startModeration();
    const { fake, guildId } = w;
    const asAlice = { name: 'settings', options: sub('step-limit', { limit: 2 }), userId: fake.defaults.userId };
    // Discord hides a Manage Server command from her, until an admin opens it to @everyone in Integrations.
    expect(() => fake.sendSlashCommand(asAlice)).toThrow(/lacks the default member permissions/);
    fake.setCommandPermissions({ command: 'settings', permissions: [{ id: guildId, type: 1, permission: true }] });
    const reply = await command(fake, 'settings', asAlice.options, { userId: asAlice.userId });
    expect(reply.content).toMatch(/Only members with the \*\*Manage Server\*\* permission can use `\/settings`\. Nothing was changed/);
    const settings = await w.h.storage.guildSettings.get(w.guildId);
    expect(settings.stepLimit).toBeUndefined();
    expect(settings.auditLog).toEqual([]);
  });

  it('display level answer hides the steps in that channel only, and the change is audited', async () => {
    w = await startModeration();
    const { fake, model, modId } = w;
    const { channelId, otherChannelId } = fake.defaults;
    const reply = await command(fake, 'settings', sub('display', { level: 'answer' }), { userId: modId, channelId });
    expect(reply.content).toContain(`set the display level in <#${channelId}> to \`answer\``);

    const run = async (inChannel: string) => {
      model.script({ content: 'I will compute it.', toolCalls: [{ name: 'calculate', arguments: { expression: '6 * 7' } }] }, { content: '6 × 7 is 42.' });
      const since = fake.mark();
      fake.sendSlashCommand({ name: 'ask', options: { question: 'What is 6 times 7?' }, channelId: inChannel });
      const answer = await fake.waitForMessage(isFinalAnswer, 10_000, { since });
      return fake.botMessages(answer.channelId).map((m) => m.content).join('\n');
    };
    const quiet = await run(channelId);
    expect(quiet).toContain('6 × 7 is 42.');
    expect(quiet).not.toContain('🔧');
    expect(quiet).not.toContain('💭');
    expect(await run(otherChannelId)).toContain('🔧 `calculate(6 * 7)`');

    const { auditLog, displayLevels } = await w.h.storage.guildSettings.get(w.guildId);
    expect(displayLevels).toEqual({ [channelId]: 'answer' });
    expect(auditLog.map((e) => [e.action, e.actorId])).toEqual([['settings.display', modId]]);
  });

  it('the step limit is stored for the server, shown, and reset to the default', async () => {
    w = await startModeration();
    const { fake, modId } = w;
    await command(fake, 'settings', sub('step-limit', { limit: 3 }), { userId: modId });
    expect((await w.h.storage.guildSettings.get(w.guildId)).stepLimit).toBe(3);
    const shown = await command(fake, 'settings', sub('show'), { userId: modId });
    expect(shown.content).toContain('Step limit: 3 per question (set for this server)');
    expect(shown.content).toContain('Display: `full`');
    const reset = await command(fake, 'settings', sub('step-limit'), { userId: modId });
    expect(reset.content).toContain("reset the step limit to the bot's default (8)");
    expect((await w.h.storage.guildSettings.get(w.guildId)).stepLimit).toBeUndefined();
  });
});
