/**
 * Team turns held to their rules, production defaults on: a turn answering several members offers only
 * the tools all of them may use, takes exactly its cap of waiting messages and leaves the rest to the
 * next turn (none lost), charges each member their share of the tokens, gives its claims back when its
 * model call fails, and gives the asker's slot back before the answer shows. Each was written against a
 * planted bug (the union of tools, the cap off by one, the rest dropped, a claim kept, riders charged
 * nothing) and fails on it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { command, startModeration, sub, type ModerationWorld } from '../policy/discord-helpers.js';
import { isFinalAnswer, startHarness, type Harness } from './harness.js';
import { sleep, until } from './waiting.js';

const idle = (h: Harness) => until(() => h.app.services.turns.runs.size === 0 && h.app.services.turns.queue.activeThreads === 0, 'the bot to be idle', 30_000);
const notesIn = (body: { messages: Array<{ content?: string | null }> }) => body.messages.filter((m) => /note \d\d$/.test(String(m.content))).length;

async function threadOf(h: Harness, question = 'Team question?'): Promise<string> {
  h.model.script({ content: 'Started.' });
  const since = h.fake.mark();
  h.fake.sendSlashCommand({ name: 'ask', options: { question } });
  return (await h.fake.waitForMessage(isFinalAnswer, 10_000, { since })).channelId;
}

async function tokensToday(h: Harness, userId: string): Promise<number> {
  const limits = { ...h.config.governance.limits, exempt: false };
  return (await h.app.services.usage.limiter.memberUsage({ guildId: h.fake.defaults.guildId, userId }, limits)).today.totalTokens;
}

describe('team turns, on the shipped limits', () => {
  let w: ModerationWorld;
  let carol: string;
  beforeAll(async () => {
    w = await startModeration();
    carol = w.fake.addUser({ username: 'carol', globalName: 'Carol' }).id;
    w.fake.addMember({ userId: carol });
  });
  afterAll(async () => w?.h.close());
  afterEach(async () => idle(w.h));

  it('a tool denied to one member the turn answers is offered to nobody in that turn', async () => {
    const { fake, model, modId } = w;
    const noCalc = fake.addRole({ name: 'No calculator' });
    fake.addMember({ userId: fake.defaults.otherUserId, roleIds: [noCalc.id] });
    const denied = await command(fake, 'tools', sub('disable', { tool: 'calculate', role: noCalc.id }), { userId: modId });
    expect(denied.content).toMatch(/calculate/);
    const threadId = await threadOf(w.h, 'Who may compute?');
    expect(model.requests.at(-1)!.body.tools!.map((t) => t.function.name)).toContain('calculate');
    model.script({ content: 'Busy.', delayMs: 1_000 }, { content: 'Both.' });
    fake.sendMessage({ channelId: threadId, content: 'keep it busy' });
    await until(() => model.requests.length >= 2 && model.requests.at(-1)!.body.messages.some((m) => String(m.content).endsWith('keep it busy')), 'the busy turn');
    const before = model.requests.length;
    fake.sendMessage({ channelId: threadId, content: 'alice asks' });
    fake.sendMessage({ channelId: threadId, userId: fake.defaults.otherUserId, content: 'bob asks' });
    await until(() => model.requests.length === before + 1, 'the team turn');
    const offered = model.requests.at(-1)!.body.tools!.map((t) => t.function.name);
    expect(offered).not.toContain('calculate');
    expect(offered).toContain('wikipedia');
    await command(fake, 'tools', sub('enable', { tool: 'calculate', role: noCalc.id }), { userId: modId });
  });

  it('30 waiting messages with a cap of 20 a turn: exactly 20 in the first, the other 10 in the next, none lost', async () => {
    const { fake, model } = w;
    const threadId = await threadOf(w.h);
    const people = [fake.defaults.userId, fake.defaults.otherUserId, carol];
    model.script({ content: 'Slow.', delayMs: 1_500 }, { content: 'First twenty.' }, { content: 'The other ten.' });
    fake.sendMessage({ channelId: threadId, content: 'start the slow turn' });
    await until(() => model.requests.at(-1)!.body.messages.some((m) => String(m.content).endsWith('start the slow turn')), 'the slow turn');
    const before = model.requests.length;
    for (let i = 0; i < 30; i++) fake.sendMessage({ channelId: threadId, userId: people[i % 3]!, content: `note ${String(i + 1).padStart(2, '0')}` });
    await until(() => model.requests.length === before + 2, 'two turns for the thirty');
    await idle(w.h);
    expect(notesIn(model.requests[before]!.body)).toBe(20);
    expect(notesIn(model.requests[before + 1]!.body)).toBe(30);
    expect(fake.messagesIn(threadId).filter((m) => m.authorId === fake.botId && m.content.startsWith('⏳'))).toEqual([]);
  });

  it('a batched turn charges each member their own share: their messages\' share of the input, an equal share of the output', async () => {
    const { fake, model } = w;
    const threadId = await threadOf(w.h);
    await idle(w.h);
    const [alice = 0, bob = 0, c = 0] = await Promise.all([fake.defaults.userId, fake.defaults.otherUserId, carol].map((id) => tokensToday(w.h, id)));
    // alice's busy turn costs her 120 tokens; the team turn 3,300, shared.
    model.script({ content: 'Busy.', delayMs: 1_000, usage: { prompt: 100, completion: 20 } }, { content: 'For all three.', usage: { prompt: 3_000, completion: 300 } });
    fake.sendMessage({ channelId: threadId, content: 'keep it busy again' });
    await until(() => model.requests.at(-1)!.body.messages.some((m) => String(m.content).endsWith('keep it busy again')), 'the busy turn');
    const before = model.requests.length;
    fake.sendMessage({ channelId: threadId, content: 'a short one' });
    fake.sendMessage({ channelId: threadId, userId: fake.defaults.otherUserId, content: 'bob writes a much longer message than the others do, with many more words in it to weigh' });
    fake.sendMessage({ channelId: threadId, userId: carol, content: 'carol too' });
    await until(() => model.requests.length === before + 1, 'the team turn');
    await idle(w.h);
    const spent = await Promise.all([fake.defaults.userId, fake.defaults.otherUserId, carol].map((id) => tokensToday(w.h, id)));
    const [da, db, dc] = [spent[0]! - alice - 120, spent[1]! - bob, spent[2]! - c];
    expect(da + db + dc).toBe(3_300);
    for (const share of [da, db, dc]) expect(share).toBeGreaterThanOrEqual(100);
    expect(db).toBeGreaterThan(da);
    expect(db).toBeGreaterThan(dc);
  });
});

describe('claims given back, one slot a member', () => {
  let h: Harness;
  // One run at a time per member, so a claim kept (or given back late) shows as a refusal.
  beforeAll(async () => {
    h = await startHarness({ env: { USER_CONCURRENT_RUNS: '1' } });
  });
  afterAll(async () => h?.close());

  it('a follow-up turn whose model call fails gives its claim back: the member\'s next message is answered', async () => {
    const threadId = await threadOf(h);
    // A 400 is not retried: one error, one failed turn.
    h.model.script({ status: 400, error: 'the model refused this request' });
    h.fake.sendMessage({ channelId: threadId, content: 'this one fails' });
    await h.fake.waitForMessage((m) => m.channelId === threadId && m.content.startsWith('❌'), 15_000);
    await idle(h);
    await sleep(200);
    h.model.script({ content: 'Answered after the failure.' });
    const since = h.fake.mark();
    h.fake.sendMessage({ channelId: threadId, content: 'and this one?' });
    const answer = await h.fake.waitForMessage((m) => m.channelId === threadId && isFinalAnswer(m), 10_000, { since });
    expect(answer.content).toContain('Answered after the failure.');
  });

  it('the slot is free when the answer is visible: a follow-up sent the moment the /ask answer appears is taken, not refused', async () => {
    h.model.script({ content: 'Here it is.', delayMs: 200 }, { content: 'And the follow-up.' });
    const since = h.fake.mark();
    h.fake.sendSlashCommand({ name: 'ask', options: { question: 'One more?' } });
    const answer = await h.fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('Here it is.'), 10_000, { since });
    h.fake.sendMessage({ channelId: answer.channelId, content: 'sent as the answer appears' });
    await h.fake.waitForMessage((m) => m.channelId === answer.channelId && isFinalAnswer(m) && m.content.includes('And the follow-up.'), 10_000, { since });
    expect(h.fake.messagesIn(answer.channelId).filter((m) => m.authorId === h.fake.botId && m.content.startsWith('⏳'))).toEqual([]);
  });
});
