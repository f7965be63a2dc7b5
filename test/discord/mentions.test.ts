/**
 * Asking without /ask, end to end with the real discord.js client against the fake Discord and the
 * production defaults: a mention in a channel opens a thread on the message; a reply takes the messages
 * it replies to along (never one from a channel the asker cannot view); a mention in a member's thread
 * is answered there; a forum answering `always` answers new posts and their follow-ups; `off` answers
 * nothing; bots, @everyone, role mentions and edits start nothing; mentions count like /ask; a missing
 * permission is named before any model call. One bot start for the cases that share its settings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { command, startModeration, sub, type ModerationWorld } from '../policy/discord-helpers.js';
import { isFinalAnswer, startHarness, type Harness } from './harness.js';
import { sleep, until } from './waiting.js';

const idle = (h: Harness) => until(() => h.app.services.turns.runs.size === 0 && h.app.services.turns.queue.activeThreads === 0, 'the bot to be idle', 20_000);
const texts = (h: Harness, i: number) => h.model.requests[i]!.body.messages.map((m) => String(m.content));

describe('asking by mention, on the shipped settings', () => {
  let w: ModerationWorld;
  let carol: string;
  let modsOnly: string;
  beforeAll(async () => {
    w = await startModeration();
    carol = w.fake.addUser({ username: 'carol', globalName: 'Carol' }).id;
    w.fake.addMember({ userId: carol });
    modsOnly = w.fake.addChannel({ name: 'mods-only' }).id;
    w.fake.setPermissions({ channelId: modsOnly, target: w.fake.defaults.guildId, deny: ['ViewChannel'] });
    w.fake.setPermissions({ channelId: modsOnly, target: w.modId, allow: ['ViewChannel', 'SendMessages', 'ReadMessageHistory'] });
  });
  afterAll(async () => w?.h.close());

  it('a mention in #general opens a thread on that message, shows the steps and the answer; a follow-up there has the first exchange in its history', async () => {
    const { fake, model } = w;
    model.script(
      { content: 'Let me compute.', toolCalls: [{ name: 'calculate', arguments: { expression: '0.17 * 2340' } }] },
      { content: '17% of 2,340 is **397.8**.' },
      { content: 'Twice that is 795.6.' },
    );
    const since = fake.mark();
    const question = fake.sendMessage({ content: 'what is 17% of 2,340?', mentionBot: true });
    const answer = await fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('397.8'), 10_000, { since });
    const thread = fake.channel(answer.channelId)!;
    expect(thread.id).toBe(question.id); // a thread on that message
    expect(thread.name).toBe('what is 17% of 2,340?');
    expect(fake.botMessages(thread.id).some((m) => m.content.includes('🔧 `calculate(0.17 * 2340)`'))).toBe(true);
    const first = model.requests.length - 2;
    expect(texts(w.h, first).at(-1)).toContain('what is 17% of 2,340?');
    expect(texts(w.h, first).join('\n')).not.toContain('<@');
    await idle(w.h);
    fake.sendMessage({ channelId: thread.id, content: 'and twice that?' });
    await fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('795.6'), 10_000, { since });
    const history = texts(w.h, model.requests.length - 1).join('\n');
    expect(history).toContain('what is 17% of 2,340?');
    expect(history).toContain('397.8');
    await idle(w.h);
  });

  it('a reply takes the messages it replies to along, with their authors; one from a channel the asker cannot view is left out, and the thread says so', async () => {
    const { fake, model } = w;
    const root = fake.sendMessage({ userId: carol, content: 'The deploy failed with exit code 137.' });
    const middle = fake.sendMessage({ userId: fake.defaults.otherUserId, content: 'That is usually the OOM killer.', replyTo: root.id });
    model.script({ content: 'Yes: 137 is SIGKILL, most likely out of memory.' });
    const since = fake.mark();
    fake.sendMessage({ content: 'is that right?', mentionBot: true, replyTo: middle.id, pingReply: false });
    await fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('SIGKILL'), 10_000, { since });
    const asked = texts(w.h, model.requests.length - 1).at(-1)!;
    expect(asked).toContain('is that right?');
    expect(asked).toMatch(/\[Carol wrote:\]\n> The deploy failed with exit code 137\./);
    expect(asked).toMatch(/\[Bob wrote:\]\n> That is usually the OOM killer\./);
    expect(asked.indexOf('Carol wrote')).toBeLessThan(asked.indexOf('Bob wrote'));
    await idle(w.h);

    // A moderator forwards a mods-only message into #general; alice replies to the forward.
    const secret = fake.sendMessage({ channelId: modsOnly, userId: w.modId, content: 'the admin password is swordfish' });
    const forward = fake.forwardMessage({ messageId: secret.id, channelId: fake.defaults.channelId, userId: w.modId });
    model.script({ content: 'I cannot see what was forwarded.' });
    const since2 = fake.mark();
    fake.sendMessage({ content: 'what does this say?', mentionBot: true, replyTo: forward.id, pingReply: false });
    const answer = await fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('cannot see'), 10_000, { since: since2 });
    expect(JSON.stringify(model.requests.at(-1)!.body.messages)).not.toContain('swordfish');
    expect(fake.botMessages(answer.channelId).some((m) => m.content.includes('a message you replied to is in a channel you cannot view'))).toBe(true);
    await idle(w.h);
  });

  it('a mention in a member\'s own thread is answered in that thread, and the bot then remembers it', async () => {
    const { fake, model } = w;
    const thread = fake.addThread({ name: 'bob\'s planning', ownerId: fake.defaults.otherUserId });
    model.script({ content: 'Planning answer.' }, { content: 'Second answer.' });
    const since = fake.mark();
    fake.sendMessage({ channelId: thread.id, userId: fake.defaults.otherUserId, content: 'how long is a sprint usually?', mentionBot: true });
    const answer = await fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('Planning answer.'), 10_000, { since });
    expect(answer.channelId).toBe(thread.id);
    await idle(w.h);
    // Without a mention in mention mode: not a question.
    const calls = model.requests.length;
    fake.sendMessage({ channelId: thread.id, userId: fake.defaults.otherUserId, content: 'just chatting here' });
    await sleep(300);
    expect(model.requests).toHaveLength(calls);
    fake.sendMessage({ channelId: thread.id, userId: fake.defaults.otherUserId, content: 'and a long one?', mentionBot: true });
    await fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('Second answer.'), 10_000, { since });
    expect(texts(w.h, model.requests.length - 1).join('\n')).toContain('how long is a sprint usually?');
    await idle(w.h);
  });

  it('no turn for a bot\'s message that mentions the bot, @everyone, a role mention, or an edit of an answered message', async () => {
    const { fake, model } = w;
    const other = fake.addBotUser({ username: 'otherbot' });
    const role = fake.addRole({ name: 'Helpers', mentionable: true });
    const calls = model.requests.length;
    fake.sendMessage({ userId: other.id, content: 'hey bot, answer me', mentionBot: true });
    fake.sendMessage({ content: '@everyone what is new?' });
    fake.sendMessage({ content: `<@&${role.id}> anyone around?` });
    model.script({ content: 'Answered once.' });
    const since = fake.mark();
    const asked = fake.sendMessage({ content: 'a question answered once', mentionBot: true });
    await fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('Answered once.'), 10_000, { since });
    await idle(w.h);
    fake.editUserMessage(asked.id, `<@${fake.botId}> a question answered once, edited`);
    await sleep(500);
    expect(model.requests).toHaveLength(calls + 1);
  });

  it('a bare mention gets a hint on how to ask, once an hour, and no model call', async () => {
    const { fake, model } = w;
    const calls = model.requests.length;
    const since = fake.mark();
    fake.sendMessage({ userId: carol, content: '', mentionBot: true });
    await fake.waitForMessage((m) => m.content.startsWith('👋 Ask me by writing your question after the mention'), 5_000, { since });
    fake.sendMessage({ userId: carol, content: '', mentionBot: true });
    await sleep(400);
    expect(fake.botMessages().filter((m) => m.content.startsWith('👋 Ask me')).length).toBe(1);
    expect(model.requests).toHaveLength(calls);
  });

  it('a forum answering always answers a new post in the post and continues it with its follow-ups; in off, a mention is ignored', async () => {
    const { fake, model, modId } = w;
    const forum = fake.addChannel({ name: 'help', type: 15 });
    const set = await command(fake, 'settings', sub('answers', { mode: 'always', channel: forum.id }), { userId: modId });
    expect(set.content).toMatch(/set where I answer in <#\d+> to `always`/);
    model.script({ content: 'Restart the router.' }, { content: 'Then call your ISP.' });
    const since = fake.mark();
    const post = fake.createForumPost({ forumId: forum.id, title: 'Wifi keeps dropping', content: 'My wifi drops every hour, why?' });
    await post.posted;
    const first = await fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('Restart the router.'), 10_000, { since });
    expect(first.channelId).toBe(post.thread.id);
    await idle(w.h);
    fake.sendMessage({ channelId: post.thread.id, content: 'I did, still drops.' });
    const second = await fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('Then call your ISP.'), 10_000, { since });
    expect(second.channelId).toBe(post.thread.id);
    expect(texts(w.h, model.requests.length - 1).join('\n')).toContain('My wifi drops every hour');
    await idle(w.h);

    await command(fake, 'settings', sub('answers', { mode: 'off', channel: fake.defaults.otherChannelId }), { userId: modId });
    const calls = model.requests.length;
    fake.sendMessage({ channelId: fake.defaults.otherChannelId, content: 'are you there?', mentionBot: true });
    await sleep(500);
    expect(model.requests).toHaveLength(calls);
    const show = await command(fake, 'settings', sub('show'), { userId: modId, channelId: fake.defaults.otherChannelId });
    expect(show.content).toContain('Answers without /ask: nothing but slash commands (`off`, set for this channel).');
    const audit = (await w.h.storage.guildSettings.get(w.guildId)).auditLog.map((e) => e.action);
    expect(audit.filter((a) => a === 'settings.answers')).toHaveLength(2);
  });

  it('without Create Public Threads, a mention gets a reply naming the permission, and no model call', async () => {
    const { fake, model } = w;
    fake.setPermissions({ channelId: fake.defaults.otherChannelId, deny: ['CreatePublicThreads'] });
    await command(w.fake, 'settings', sub('answers', { mode: 'default', channel: fake.defaults.otherChannelId }), { userId: w.modId });
    const calls = model.requests.length;
    const since = fake.mark();
    fake.sendMessage({ channelId: fake.defaults.otherChannelId, content: 'open a thread please', mentionBot: true });
    const reply = await fake.waitForMessage((m) => m.channelId === fake.defaults.otherChannelId && m.content.includes('Create Public Threads'), 5_000, { since });
    expect(reply.content).toMatch(/I cannot open a thread to answer you here: I am missing .*Create Public Threads/);
    expect(model.requests).toHaveLength(calls);
  });
});

describe('mentions and the limits', () => {
  let h: Harness;
  // Two questions an hour, so the third shows the limit at once.
  beforeAll(async () => {
    h = await startHarness({ env: { USER_RUNS_PER_HOUR: '2' } });
  });
  afterAll(async () => h?.close());

  it('mentions count against the member\'s hourly limit like /ask', async () => {
    h.model.script({ content: 'One.' }, { content: 'Two.' });
    const since = h.fake.mark();
    h.fake.sendSlashCommand({ name: 'ask', options: { question: 'First, by /ask?' } });
    await h.fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('One.'), 10_000, { since });
    h.fake.sendMessage({ content: 'second, by mention?', mentionBot: true });
    await h.fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('Two.'), 10_000, { since });
    await idle(h);
    const calls = h.model.requests.length;
    h.fake.sendMessage({ content: 'third, by mention?', mentionBot: true });
    const refusal = await h.fake.waitForMessage((m) => m.authorId === h.fake.botId && /questions for this hour/.test(m.content), 5_000, { since });
    expect(refusal.channelId).toBe(h.fake.defaults.channelId);
    expect(h.model.requests).toHaveLength(calls);
  });
});

describe('without the Message Content intent', () => {
  let w: ModerationWorld;
  beforeAll(async () => {
    w = await startModeration({ messageContent: false });
  });
  afterAll(async () => w?.h.close());

  it('a mention still works, and /settings answers always refuses, saying why', async () => {
    w.model.script({ content: 'Heard you.' });
    const since = w.fake.mark();
    w.fake.sendMessage({ content: 'can you hear me?', mentionBot: true });
    await w.fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('Heard you.'), 10_000, { since });
    const refused = await command(w.fake, 'settings', sub('answers', { mode: 'always' }), { userId: w.modId });
    expect(refused.content).toMatch(/I run without the Message Content intent.*Nothing was changed\./);
    expect((await w.h.storage.guildSettings.get(w.guildId)).answers).toBeUndefined();
  });
});

describe('direct messages', () => {
  let h: Harness;
  // DMs are off by default; this suite turns them on to show they are one conversation each.
  beforeAll(async () => {
    h = await startHarness({ env: { ALLOW_DMS: 'true' } });
  });
  afterAll(async () => h?.close());

  it('with ALLOW_DMS, every message a member sends the bot is a turn of one DM conversation', async () => {
    h.model.script({ content: 'Hello in private.' }, { content: 'You said hello.' });
    const since = h.fake.mark();
    const first = h.fake.sendMessage({ dm: true, content: 'hello bot' });
    const answer = await h.fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('Hello in private.'), 10_000, { since });
    expect(answer.channelId).toBe(first.channelId);
    await idle(h);
    h.fake.sendMessage({ dm: true, content: 'what did I say?' });
    await h.fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('You said hello.'), 10_000, { since });
    expect(texts(h, h.model.requests.length - 1).join('\n')).toContain('hello bot');
  });
});
