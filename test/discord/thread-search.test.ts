/**
 * Past-thread search end to end, with the production defaults: conversations are indexed as they are
 * saved, `search_threads` finds a server's earlier threads (cited with their links) only in channels the
 * asking members may view now, and `/reset` takes a thread out of the index.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../fake-discord/index.js';
import { replyTo, startModeration, type ModerationWorld } from '../policy/discord-helpers.js';
import { isFinalAnswer } from './harness.js';
import { buttonsOf, until } from './waiting.js';

let w: ModerationWorld | undefined;
afterEach(async () => {
  await w?.h.close();
  w = undefined;
});

async function ask(w: ModerationWorld, question: string, by: { userId?: string; channelId?: string } = {}): Promise<{ answer: FakeMessage; request: number }> {
  const request = w.model.requests.length;
  const since = w.fake.mark();
  w.fake.sendSlashCommand({ name: 'ask', options: { question }, ...by });
  const answer = await w.fake.waitForMessage(isFinalAnswer, 15_000, { since });
  return { answer, request };
}

/** A question whose model searches past threads first; the search's result as the model read it, and the answer. */
async function searchAs(w: ModerationWorld, query: string, by: { userId?: string; channelId?: string } = {}) {
  w.model.script({ toolCalls: [{ name: 'search_threads', arguments: { query } }] }, { content: 'Here is what I found [1].' });
  const { answer, request } = await ask(w, `What did we say about ${query}?`, by);
  const result = String(w.model.requests[request + 1]!.body.messages.find((m) => m.role === 'tool')!.content);
  return { answer, result, offered: (w.model.requests[request]!.body.tools ?? []).map((t) => t.function.name) };
}

describe('past-thread search', () => {
  it('finds a #general thread for a member of #general, never a mods-only one, and not a thread after /reset', async () => {
    w = await startModeration({ production: true });
    const { fake, model, guildId, modId } = w;
    const alice = fake.defaults.userId;
    const mods = fake.addChannel({ name: 'mods' });
    fake.setPermissions({ channelId: mods.id, target: 'everyone', deny: ['ViewChannel'] });
    fake.setPermissions({ channelId: mods.id, target: modId, allow: ['ViewChannel'] });
    fake.setPermissions({ channelId: mods.id, allow: ['ViewChannel'] }); // the bot

    // Before any thread is saved, the tool is not offered: there is nothing to search.
    model.script({ content: 'Clear the build cache before deploying; the stale cache caused the bug.' });
    const general = await ask(w, 'What is causing the cache bug in our deploy pipeline?');
    expect((model.requests[general.request]!.body.tools ?? []).map((t) => t.function.name)).not.toContain('search_threads');
    model.script({ content: 'Noted: the vault cache password is heron.' });
    const secret = await ask(w, 'The cache vault password for moderators is heron', { userId: modId, channelId: mods.id });
    const generalThread = general.answer.channelId;

    // alice, in #general: her earlier thread is found and cited by its link; the mods' is not.
    const found = await searchAs(w, 'cache bug password');
    expect(found.offered).toContain('search_threads');
    const link = `https://discord.com/channels/${guildId}/${generalThread}`;
    expect(found.result).toContain(`Link: ${link}`);
    expect(found.result).toContain('stale cache');
    expect(found.result).not.toContain('heron');
    expect(found.result).not.toContain(secret.answer.channelId);
    expect(found.answer.content).toContain(`<${link}>`);
    // A moderator asking in #general does not find it either (an answer there is read by everyone); in #mods they do.
    expect((await searchAs(w, 'vault password', { userId: modId })).result).not.toContain('heron');
    expect((await searchAs(w, 'vault password', { userId: modId, channelId: mods.id })).result).toContain('heron');

    // /reset takes the thread out of the index with its memory.
    const asked = fake.sendSlashCommand({ name: 'reset', channelId: generalThread, userId: alice });
    const prompt = await replyTo(fake, asked);
    fake.clickButton({ messageId: prompt.id, customId: buttonsOf(prompt)[0]!.custom_id, channelId: generalThread, userId: alice });
    await fake.waitForMessage((m) => m.channelId === generalThread && m.content.includes('cleared my memory'), 10_000);
    await until(() => fake.message(prompt.id)?.content.startsWith('Done') ?? false, 'the reset to finish');
    const after = await searchAs(w, 'cache bug pipeline');
    expect(after.result).not.toContain(generalThread);
    expect(after.result).not.toContain('stale cache');
  });
});
