/**
 * The knowledge base in runs, end to end: "Add to knowledge base" on a message, `search_knowledge`
 * offered only where the server has documents (and a tool rule still deciding), a `/ask` whose model
 * searches and whose answer cites the message's link, and the knowledge base switched off with Redis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createStorage } from '../../src/state/index.js';
import { askOnce, command, replyTo, startModeration, sub, type ModerationWorld } from '../policy/discord-helpers.js';
import { isFinalAnswer } from './harness.js';
import { addFile, addMessage, auditActions, EPHEMERAL, FAQ, kbCommand, storedDocuments } from './kb-helpers.js';

let w: ModerationWorld | undefined;
afterEach(async () => {
  await w?.h.close();
  w = undefined;
});

const RAID = '**Raid night** is every Friday at 20:00 UTC.\nSign up in #raids before Thursday; bring potions.';

describe('the knowledge base in runs', () => {
  it('"Add to knowledge base" adds a message cited by its link; a member without Manage Server and a message without text are refused', async () => {
    w = await startModeration();
    const { fake, guildId, modId } = w;
    const bob = fake.defaults.otherUserId;
    const message = fake.sendMessage({ userId: bob, content: RAID });
    const link = `https://discord.com/channels/${guildId}/${fake.defaults.channelId}/${message.id}`;

    // Registered for Manage Server: Discord hides it from alice until an admin opens it up.
    expect(() => fake.sendMessageCommand({ name: 'Add to knowledge base', messageId: message.id })).toThrow(/lacks the default member permissions/);
    fake.setCommandPermissions({ command: 'Add to knowledge base', type: 3, permissions: [{ id: guildId, type: 1, permission: true }] });
    const refused = await addMessage(w, message.id, fake.defaults.userId);
    expect(refused.content).toBe('Only members with the **Manage Server** permission can use **Add to knowledge base**. Nothing was changed; ask a moderator to add the message.');
    expect(refused.flags & EPHEMERAL).toBe(EPHEMERAL);

    const added = await addMessage(w, message.id);
    expect(added.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect(added.content).toMatch(new RegExp(`^✅ Added \\*\\*Bob: Raid night is every Friday at 20:00 UTC\\.\\*\\* \\(#1\\): 1 passage, ${Buffer.byteLength(RAID)} bytes, from <${link}>\\.`));
    expect(await storedDocuments(w)).toMatchObject([{ source: link, link, title: 'Bob: Raid night is every Friday at 20:00 UTC.' }]);
    expect((await addMessage(w, message.id)).content).toMatch(/is already in the knowledge base with the same content/);

    const fileOnly = fake.sendMessage({ userId: bob, content: '', files: [{ filename: 'map.png', data: Buffer.from([1, 2, 3]), contentType: 'image/png' }] });
    const empty = await addMessage(w, fileOnly.id);
    expect(empty.content).toBe('❌ That message has no text to add (files attached to it can be added with /kb add). Nothing was added.');
    expect(await auditActions(w)).toEqual(['kb.add', 'kb.add']);
    expect((await w.h.storage.guildSettings.get(guildId)).auditLog[0]).toMatchObject({
      actorId: modId, detail: `added "Bob: Raid night is every Friday at 20:00 UTC." (#1, 1 passage, ${Buffer.byteLength(RAID)} bytes) from <${link}> in the knowledge base`,
    });
  });

  it('search_knowledge is offered only once the server has documents, and the answer lists the message link as a source', async () => {
    w = await startModeration();
    const { fake, model, guildId } = w;
    expect((await askOnce(w)).offered).toEqual(['calculate', 'wikipedia', 'current_time', 'plot', 'remember', 'forget']);

    const message = fake.sendMessage({ userId: fake.defaults.otherUserId, content: RAID });
    const link = `https://discord.com/channels/${guildId}/${fake.defaults.channelId}/${message.id}`;
    await addMessage(w, message.id);

    const first = model.requests.length;
    model.script(
      { content: 'Checking the server documents.', toolCalls: [{ name: 'search_knowledge', arguments: { query: 'raid night' } }] },
      { content: 'Raid night is every **Friday at 20:00 UTC**; sign up in #raids before Thursday.' },
    );
    const since = fake.mark();
    fake.sendSlashCommand({ name: 'ask', options: { question: 'When is raid night?' } });
    const answer = await fake.waitForMessage(isFinalAnswer, 10_000, { since });

    expect(model.requests[first]!.body.tools!.map((t) => t.function.name)).toEqual(['calculate', 'wikipedia', 'current_time', 'search_knowledge', 'search_threads', 'plot', 'remember', 'forget']);
    const observation = model.requests[first + 1]!.body.messages.find((m) => m.role === 'tool')!;
    expect(observation.content).toContain('1 passage from this server\'s documents, best first:');
    expect(observation.content).toContain(`Link: ${link}`);
    expect(observation.content).toContain('Raid night');
    expect(answer.content).toContain(`**Sources:** [1] Bob: Raid night is every Friday at 20:00 UTC. ([discord.com](<${link}>))`);
    const log = fake.messagesIn(answer.channelId).find((m) => m.authorId === fake.botId && m.content.includes('🔧'))!;
    expect(log.content).toMatch(/🔧 `search_knowledge\(.*raid night.*\)`/);
  });

  it('a tool rule disabling search_knowledge wins over documents, and removing the last document stops offering it at once', async () => {
    w = await startModeration();
    const { fake, modId } = w;
    const before = await command(fake, 'tools', sub('list'), { userId: modId });
    expect(before.content).toContain('✅ `search_knowledge`: built-in default (on: it stays inside the bot or asks one fixed service)\n');
    expect(before.content).toContain('\n-# `search_knowledge` is offered only where the server has documents, and this one has none yet (`/kb add`).');
    await addFile(w, 'faq.md', FAQ);
    expect((await askOnce(w)).offered).toContain('search_knowledge');
    expect((await command(fake, 'tools', sub('list'), { userId: modId })).content).not.toContain('has none yet');

    await command(fake, 'tools', sub('disable', { tool: 'search_knowledge' }), { userId: modId });
    expect((await askOnce(w)).offered).not.toContain('search_knowledge');
    const explained = await command(fake, 'tools', sub('list'), { userId: modId });
    expect(explained.content).toContain('⛔ `search_knowledge`: server rule');

    await command(fake, 'tools', sub('reset', { tool: 'search_knowledge' }), { userId: modId });
    expect((await askOnce(w)).offered).toContain('search_knowledge');
    // Cached for 30 s, but a removal through /kb is seen on the next run.
    await kbCommand(fake, 'remove', { document: '1' }, modId);
    expect((await askOnce(w)).offered).not.toContain('search_knowledge');
  });

  it('documents of one server are not offered in another', async () => {
    w = await startModeration();
    const { fake } = w;
    await addFile(w, 'faq.md', FAQ);
    const other = fake.addGuild({ name: 'Elsewhere' });
    const channel = fake.addChannel({ guildId: other.id, name: 'general' });
    fake.addMember({ guildId: other.id, userId: fake.defaults.userId });
    expect((await askOnce(w, { channelId: channel.id })).offered).not.toContain('search_knowledge');
    expect((await askOnce(w)).offered).toContain('search_knowledge');
  });

  it('with a Redis KEYV_URL and no KNOWLEDGE_URL the knowledge base is off: /kb says why, and there is no search_knowledge (nor search_threads)', async () => {
    // The bot's own storage is in memory (no Redis needed); the configuration is what turns the knowledge base off.
    const storage = await createStorage(loadConfig({ needDiscord: false, dotenvDir: false }, { OPENAI_API_KEY: 'k', KEYV_URL: 'memory:' }).storage);
    w = await startModeration({ env: { KEYV_URL: 'redis://127.0.0.1:6379' }, storage });
    const { fake, modId } = w;
    expect(w.h.config.knowledge.url).toBeUndefined();
    expect(w.h.app.knowledge).toBeUndefined();
    const off = /^The knowledge base is switched off on this bot: its storage \(`KEYV_URL`\) is Redis, which has no full-text search\. Whoever runs the bot can turn it on by setting `KNOWLEDGE_URL`/;
    const search = await kbCommand(fake, 'search', { query: 'raids' }, fake.defaults.userId);
    expect(search.content).toMatch(off);
    expect(search.flags & EPHEMERAL).toBe(EPHEMERAL);
    expect((await addFile(w, 'faq.md', FAQ)).content).toMatch(off);
    const message = fake.sendMessage({ userId: fake.defaults.otherUserId, content: RAID });
    expect((await addMessage(w, message.id)).content).toMatch(off);
    expect(w.h.app.services.rules.tools.map((t) => t.name)).toEqual(['calculate', 'wikipedia', 'current_time', 'read_url', 'plot', 'remember', 'forget']);
    expect((await askOnce(w)).offered).toEqual(['calculate', 'wikipedia', 'current_time', 'plot', 'remember', 'forget']);
  });

  it('a message from a mods-only channel is found by moderators only, in /kb search and in search_knowledge; the moderator is told', async () => {
    w = await startModeration();
    const { fake, model, modId } = w;
    const alice = fake.defaults.userId;
    const mods = fake.addChannel({ name: 'mods' });
    fake.setPermissions({ channelId: mods.id, target: 'everyone', deny: ['ViewChannel'] });
    fake.setPermissions({ channelId: mods.id, target: modId, allow: ['ViewChannel'] });
    fake.setPermissions({ channelId: mods.id, allow: ['ViewChannel'] }); // the bot
    await addFile(w, 'faq.md', FAQ); // server-wide: everyone finds it
    const secret = fake.sendMessage({ channelId: mods.id, userId: modId, content: 'Ban appeals: the review password is heron, shared with moderators only.' });
    const added = await replyTo(fake, fake.sendMessageCommand({ name: 'Add to knowledge base', messageId: secret.id, channelId: mods.id, userId: modId }));
    expect(added.content).toMatch(/^✅ Added /);
    expect(added.content).toContain('🔒 This message is from #mods that not everyone can see: `/kb search` and `search_knowledge` will show it only to members who can see that channel.');
    expect((await storedDocuments(w)).find((d) => d.link?.endsWith(secret.id))?.channelId).toBe(mods.id);
    const list = (await kbCommand(fake, 'list', {}, modId)).content.split('\n');
    expect(list.find((line) => line.includes('Ban appeals'))).toMatch(new RegExp(` · 🔒 <#${mods.id}>$`));
    expect(list.find((line) => line.includes('FAQ'))).not.toContain('🔒');

    // /kb search: alice, in #general, does not find it; the moderator does; both find the FAQ.
    const aliceSearch = await kbCommand(fake, 'search', { query: 'review password heron' }, alice);
    expect(aliceSearch.content).not.toContain('heron');
    expect((await kbCommand(fake, 'search', { query: 'raid night' }, alice)).content).toContain('Raid night');
    expect((await kbCommand(fake, 'search', { query: 'review password heron' }, modId)).content).toContain('heron');

    // search_knowledge in a run: the asker's view decides, and a mods-only passage is quoted only in #mods' own
    // threads (a moderator's question in #general would put it where everyone reads the answer).
    const searchAs = async (userId: string, channelId = fake.defaults.channelId) => {
      const first = model.requests.length;
      model.script({ toolCalls: [{ name: 'search_knowledge', arguments: { query: 'review password' } }] }, { content: 'Done.' });
      const since = fake.mark();
      fake.sendSlashCommand({ name: 'ask', options: { question: 'What is the review password?' }, userId, channelId });
      await fake.waitForMessage(isFinalAnswer, 10_000, { since });
      return model.requests[first + 1]!.body.messages.find((m) => m.role === 'tool')!.content as string;
    };
    expect(await searchAs(alice)).not.toContain('heron');
    expect(await searchAs(modId)).not.toContain('heron');
    expect(await searchAs(modId, mods.id)).toContain('heron');
  });

  it('a message from a channel everyone can see gets no note, and stays visible to all', async () => {
    w = await startModeration();
    const { fake } = w;
    const message = fake.sendMessage({ userId: fake.defaults.otherUserId, content: RAID });
    const added = await addMessage(w, message.id);
    expect(added.content).not.toContain('🔒');
    expect((await kbCommand(fake, 'search', { query: 'raid night potions' }, fake.defaults.userId)).content).toContain('Raid night');
  });
});
