/**
 * A busy team thread with the production defaults on (limits as `.env.example` ships them): messages
 * posted while a run is busy wait without holding a slot, and the next turn answers them together.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ThreadChannel } from 'discord.js';
import { TAKEN_REACTION } from '../../src/discord/messages/message-text.js';
import type { TurnOutcome } from '../../src/discord/turn/outcome.js';
import { threadTarget } from '../../src/discord/posting/target.js';
import type { ScriptedReply } from '../fakes/openai-server.js';
import { isFinalAnswer, startHarness, type Harness } from './harness.js';
import { sleep, until } from './waiting.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A model that answers every call after `delayMs`, saying which call it was. */
function answersEveryCall(delayMs: number): ScriptedReply[] {
  return Array.from({ length: 60 }, (_, i) => ({ content: `Answer ${i + 1}.`, delayMs }));
}

/** Wait until the bot has nothing running and nothing waiting. */
async function idle(harness: Harness): Promise<void> {
  await until(() => harness.app.services.turns.runs.size === 0 && harness.app.services.turns.queue.activeThreads === 0, 'the bot to be idle', 30_000);
}

describe('a busy team thread', () => {
  it('answers all 20 notes of three members posted within 3 s, in a few runs, refusing none', async () => {
    h = await startHarness({ production: true });
    const { fake, model } = h;
    const carol = fake.addUser({ username: 'carol', globalName: 'Carol' });
    fake.addMember({ userId: carol.id });
    const people = [fake.defaults.userId, fake.defaults.otherUserId, carol.id];
    // A model that takes a second per reply, as a hosted one does: notes pile up while it works.
    model.script(...answersEveryCall(1000));
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Team question?' } });
    const threadId = (await fake.waitForMessage(isFinalAnswer, 10_000)).channelId;
    const callsBefore = model.requests.length;

    const notes: string[] = [];
    for (let i = 0; i < 20; i++) {
      const text = `note ${String(i + 1).padStart(2, '0')} from member ${i % 3}`;
      notes.push(text);
      fake.sendMessage({ channelId: threadId, userId: people[i % 3]!, content: text });
      await sleep(140);
    }
    await sleep(200);
    await idle(h);

    const runs = model.requests.length - callsBefore;
    console.info(`team burst: 20 notes from 3 members answered in ${runs} run(s)`);
    expect(runs).toBeGreaterThanOrEqual(1);
    expect(runs).toBeLessThanOrEqual(6);
    // None refused: no "too many at once" or any other reply under a note.
    expect(fake.messagesIn(threadId).filter((m) => m.authorId === fake.botId && m.content.startsWith('⏳'))).toEqual([]);
    // Every note reached the model, in order, with its speaker, and each got its reaction when taken.
    const seen = model.requests.slice(callsBefore).flatMap((r) => r.body.messages.map((m) => String(m.content)));
    for (const note of notes) expect(seen.some((c) => c.endsWith(note))).toBe(true);
    const noteMessages = fake.messagesIn(threadId).filter((m) => m.content.startsWith('note '));
    expect(noteMessages.every((m) => m.reactions.includes(TAKEN_REACTION))).toBe(true);

    // And the next request's history holds all twenty.
    fake.sendMessage({ channelId: threadId, userId: people[0]!, content: 'one more' });
    await until(() => model.requests.at(-1)?.body.messages.some((m) => String(m.content).endsWith('one more')) ?? false, 'the next request');
    const history = model.requests.at(-1)!.body.messages.map((m) => String(m.content));
    const order = notes.map((note) => history.findIndex((c) => c.endsWith(note)));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    const speakers = notes.map((note) => /^\[(.+?)\]/.exec(history.find((c) => c.endsWith(note))!)?.[1]);
    expect(new Set(speakers).size).toBe(3);
    await idle(h);
  }, 60_000);

  it('a member flooding one thread still meets the hourly limit, and is told so under each refused message', async () => {
    h = await startHarness({ production: true });
    const { fake, model } = h;
    model.script(...answersEveryCall(200));
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Flood?' } });
    const threadId = (await fake.waitForMessage(isFinalAnswer, 10_000)).channelId;
    const limit = h.config.governance.limits.runsPerHour;
    expect(limit).toBe(20);
    // The /ask counted one; 24 more messages: 19 fit the hour, 5 are refused with a reply.
    for (let i = 0; i < 24; i++) fake.sendMessage({ channelId: threadId, content: `flood ${i}` });
    await until(() => fake.messagesIn(threadId).filter((m) => m.authorId === fake.botId && m.content.startsWith('⏳')).length === 5, 'five refusals');
    await idle(h);
    const refusals = fake.messagesIn(threadId).filter((m) => m.authorId === fake.botId && m.content.startsWith('⏳'));
    expect(refusals.every((m) => /questions for this hour/.test(m.content))).toBe(true);
    const answered = model.requests.flatMap((r) => r.body.messages.map((m) => String(m.content))).filter((c) => /\] flood \d+$/.test(c));
    expect(new Set(answered).size).toBe(19);
  }, 60_000);

  it('a follow-up is a turn origin: it settles with the outcome of the turn that answered it, or with why none did', async () => {
    h = await startHarness({ production: true, messageContent: true });
    const { fake, model } = h;
    model.script({ content: 'First.' }, { content: 'Busy answer.', delayMs: 1_500 }, { content: 'Both at once.' });
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Start?' } });
    const threadId = (await fake.waitForMessage(isFinalAnswer, 10_000)).channelId;
    const thread = (await h.app.bot.client.channels.fetch(threadId)) as ThreadChannel;
    const { turns } = h.app.services;
    const taken: string[] = [];
    const scope = { guildId: fake.defaults.guildId, channelId: fake.defaults.channelId, categoryId: fake.defaults.categoryId, userId: fake.defaults.userId, roleIds: [] };
    const followUp = (text: string) => {
      const input = turns.checkInput(scope, text);
      if (!input.ok) throw new Error(input.message);
      return turns.start({
        kind: 'follow-up',
        request: { scope, author: { id: fake.defaults.userId, name: 'alice' }, text: input.text, logFields: {} },
        thread: threadTarget(thread),
        taken: () => void taken.push(text),
        tell: async () => undefined,
      });
    };

    // One runs; two arrive while it is busy and are answered together by the next turn.
    const first = followUp('first');
    await until(() => model.requests.length === 2, 'the busy turn');
    const [second, third] = [followUp('second'), followUp('third')];
    const outcomes: TurnOutcome[] = await Promise.all([first, second, third]);
    expect(outcomes.map((o) => o.kind)).toEqual(['answered', 'answered', 'answered']);
    expect(model.requests).toHaveLength(3);
    const [, b, c] = outcomes as Array<Extract<TurnOutcome, { kind: 'answered' }>>;
    expect(b!.answerMessage.id).toBe(c!.answerMessage.id);
    expect(b!.answer).toBe('Both at once.');
    expect(taken).toEqual(['first', 'second', 'third']);

    // Refused at the door: an empty message never waits.
    expect(turns.checkInput(scope, '   ')).toMatchObject({ ok: false });

    // Given up by /reset while waiting: stopped, with nothing run for it.
    model.script({ content: 'Slow.', delayMs: 1_500 });
    const running = followUp('slow one');
    await until(() => model.requests.length === 4, 'the slow turn');
    const waiting = followUp('never answered');
    await until(() => turns.waiting(threadId) === 1, 'the waiting message');
    expect(await turns.dropWaiting(h.app.bot.client, threadId)).toEqual({ messages: 1, approvals: 0 });
    expect(await waiting).toMatchObject({ kind: 'stopped', message: expect.stringContaining('reset') });
    expect(await running).toMatchObject({ kind: 'answered' });
    expect(model.requests).toHaveLength(4);
    await idle(h);
  }, 60_000);
});
