/**
 * 👍 and 👎 under answers, and `/feedback`, end to end with the production defaults: the real discord.js
 * client against the fake Discord, the real openai SDK against the fake model server, the storage a
 * SQLite file (the shipped default) so that a second app on it can show that the buttons outlive a
 * restart. The cases share one bot start and build on each other, in order: votes, the reason's limit,
 * Continue beside the votes, a deleted question, `/feedback summary`, `/feedback export` run through the
 * real `npm run eval`, `/memory export`, `/reset`, and the restart last.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSuite } from '../../src/eval/suite.js';
import type { FeedbackRecord } from '../../src/state/index.js';
import type { FakeMessage } from '../fake-discord/index.js';
import type { FakeOpenAIServer } from '../fakes/openai-server.js';
import { command, replyTo, startModeration, sub, type ModerationWorld } from '../policy/discord-helpers.js';
import { tempDir } from '../state/helpers/targets.js';
import { buttons, evalExport, eventually, members, rows, turnOf, type Button } from './feedback-helpers.js';
import { isFinalAnswer } from './harness.js';
import { until } from './waiting.js';

let w: ModerationWorld;
let keyvUrl: string;
let evalServer: FakeOpenAIServer | undefined;
let alice: string;
let bob: string;
let carol: string;
beforeAll(async () => {
  keyvUrl = `sqlite://${path.join(tempDir('feedback'), 'threadwise.sqlite')}`;
  w = await startModeration({ production: true, keyvUrl });
  [alice, bob] = [w.fake.defaults.userId, w.fake.defaults.otherUserId];
  carol = w.fake.addUser({ username: 'carol', globalName: 'Carol' }).id;
  w.fake.addMember({ userId: carol });
});
afterAll(async () => {
  await w?.h.close();
  await evalServer?.close();
});

const { press, record, ask, thumbsDown } = members(() => w);

let sum: FakeMessage;
let pirate: FakeMessage;

describe('👍 and 👎 under answers', () => {
  it('both buttons under an answer; alice votes 👎 with a reason, changes to 👍; bob votes; one record with two votes, and nobody else learns who', async () => {
    w.model.script({ content: 'I will compute it.', toolCalls: [{ name: 'calculate', arguments: { expression: '17 * 3' } }] }, { content: '17 × 3 is **51**.' });
    sum = await ask('What is 17 times 3?');
    // One row of two buttons (Discord: at most five a row), custom ids well under 100 characters.
    expect(rows(sum)).toHaveLength(1);
    expect(buttons(sum).map((b) => b.emoji?.name)).toEqual(['👍', '👎']);
    for (const b of buttons(sum)) expect(b.custom_id.length).toBeLessThanOrEqual(100);
    const id = turnOf(sum);
    await eventually(async () => (await record(id)) !== undefined, 'the answer kept for rating');
    expect(await record(id)).toMatchObject({
      guildId: w.guildId, channelId: w.fake.defaults.channelId, threadId: sum.channelId,
      question: 'What is 17 times 3?', answer: '17 × 3 is **51**.', model: 'gpt-4o-mini', tools: ['calculate'], steps: 2, votes: {},
    });
    expect((await record(id))!.offered).toContain('calculate');
    const shown = { content: sum.content, components: JSON.stringify(sum.components) };
    // What everyone in the thread sees (the replies to presses are ephemeral: only the presser sees each).
    const publicMessages = () => w.fake.botMessages(sum.channelId).filter((m) => (m.flags & 64) === 0);
    const before = publicMessages().length;

    // 👎 opens a form: one optional text input, at most 300 characters. The 👎 counts at once.
    const pressed = press(sum, '👎', alice);
    await w.fake.waitForCallback(pressed.id);
    const modal = pressed.modal as { custom_id: string; title: string; components: Array<{ type: number; component: { type: number; custom_id: string; max_length: number; required: boolean } }> };
    expect(modal.custom_id).toBe(`rate-why:${id}`);
    expect(modal.components[0]!.component).toMatchObject({ type: 4, custom_id: 'reason', max_length: 300, required: false });
    await eventually(async () => (await record(id))?.votes[alice]?.vote === 'down', "alice's 👎");
    // The message pressed on is the answer's link from now on.
    expect((await record(id))!.messageId).toBe(sum.id);
    const reasoned = await replyTo(w.fake, w.fake.submitModal({ interactionId: pressed.id, values: { reason: 'It should show the working.' } }));
    expect(reasoned.flags & 64).toBe(64);
    expect(reasoned.content).toMatch(/^👎 Recorded, with your reason\. .*never who voted/);
    expect((await record(id))!.votes[alice]).toMatchObject({ vote: 'down', reason: 'It should show the working.' });

    // She changes her mind: one vote each, and the reason went with the 👎.
    const up = press(sum, '👍', alice);
    const changed = await replyTo(w.fake, up);
    expect(up.ephemeral).toBe(true);
    expect(changed.content).toMatch(/^👍 Recorded \(it was 👎\)/);
    const byBob = press(sum, '👍', bob);
    expect((await replyTo(w.fake, byBob)).content).toMatch(/^👍 Recorded\. /);
    expect(byBob.ephemeral).toBe(true);
    const votes = (await record(id))!.votes;
    expect(Object.keys(votes).sort()).toEqual([alice, bob].sort());
    expect(votes[alice]).toEqual({ vote: 'up', at: expect.any(Number) });

    // Nothing public changed: the answer reads the same, and no message in the thread says who voted.
    const now = w.fake.message(sum.id)!;
    expect({ content: now.content, components: JSON.stringify(now.components) }).toEqual(shown);
    expect(publicMessages()).toHaveLength(before);
  });

  it('a press on an answer with no record (expired with the conversation TTL, say) is told so privately, and nothing is stored', async () => {
    const pressed = w.fake.clickButton({ messageId: sum.id, customId: 'rate:0000dead:up', channelId: sum.channelId, userId: alice });
    const reply = await replyTo(w.fake, pressed);
    expect(pressed.ephemeral).toBe(true);
    expect(reply.content).toMatch(/^I have no record of this answer/);
    expect(await record('0000dead')).toBeUndefined();
  });

  it('a reason longer than 300 characters, sent by a client that skips the limit, is refused with its length and given back; the 👎 counts, no reason is kept', async () => {
    const id = turnOf(sum);
    const long = `${'This is far too long. '.repeat(14)}END`;
    const refused = await thumbsDown(sum, carol, long, true);
    expect(refused.flags & 64).toBe(64);
    expect(refused.content).toContain(`Your reason is ${[...long].length} characters; I keep at most 300.`);
    expect(refused.content).toContain('END');
    await eventually(async () => (await record(id))?.votes[carol]?.vote === 'down', "carol's 👎");
    expect((await record(id))!.votes[carol]!.reason).toBeUndefined();
    // She takes it back to 👍 so the later cases count this answer as liked.
    await replyTo(w.fake, press(sum, '👍', carol));
  });

  it('Continue and the votes share the row of a step-limited answer; pressing Continue takes only Continue away', async () => {
    await command(w.fake, 'settings', sub('step-limit', { limit: 1 }), { userId: w.modId });
    w.model.script({ content: 'Step one.', toolCalls: [{ name: 'calculate', arguments: { expression: '6 * 7' } }] }, { content: 'So far: 42, more to do.' }, { content: 'Finished: 42.' });
    const first = await ask('A long task?');
    expect(buttons(first).map((b) => b.label ?? b.emoji?.name)).toEqual(['Continue', '👍', '👎']);
    expect(rows(first)).toHaveLength(1);
    const cont = buttons(first).find((b) => b.label === 'Continue')!;
    const since = w.fake.mark();
    w.fake.clickButton({ messageId: first.id, customId: cont.custom_id, channelId: first.channelId });
    await w.fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('Finished: 42.'), 15_000, { since });
    expect(buttons(w.fake.message(first.id)!).map((b) => b.emoji?.name)).toEqual(['👍', '👎']);
    await command(w.fake, 'settings', sub('step-limit'), { userId: w.modId });
  });

  it("a deleted question takes its answer's text out of the record; its votes stay counted", async () => {
    w.model.script({ content: 'Started.' }, { content: 'Paris.' });
    const start = await ask('Where shall we meet?');
    const since = w.fake.mark();
    const question = w.fake.sendMessage({ channelId: start.channelId, content: 'my home address is 12 Secret Lane, which city is it in?' });
    const answer = await w.fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('Paris.'), 15_000, { since });
    const id = turnOf(answer);
    await replyTo(w.fake, press(answer, '👍', alice));
    expect(await record(id)).toMatchObject({ questionIds: [question.id], question: expect.stringContaining('Secret Lane') });
    w.fake.deleteMessage(question.id);
    await eventually(async () => (await record(id))?.removed === 'deleted', 'the text removed');
    const gone = (await record(id))!;
    expect(JSON.stringify(gone)).not.toMatch(/Secret Lane|Paris/);
    expect(gone.votes[alice]).toMatchObject({ vote: 'up' });
  });
});

describe('/feedback', () => {
  it('summary is for moderators only; it counts answers and votes, rates per model, persona, channel and tool, and lists the worst-rated questions with links', async () => {
    // Registered for Manage Server, so Discord hides it from members; an admin may show it to everyone anyway.
    w.fake.setCommandPermissions({ command: 'feedback', permissions: [{ id: w.guildId, type: 1, permission: true }] });
    const refused = await command(w.fake, 'feedback', sub('summary'), { userId: alice });
    expect(refused.content).toMatch(/^Only members with the \*\*Manage Server\*\* permission can use `\/feedback`/);
    expect(refused.flags & 64).toBe(64);

    const random = w.fake.defaults.otherChannelId;
    await command(w.fake, 'settings', sub('persona', { text: 'Answer like a pirate.', channel: random }), { userId: w.modId });
    w.model.script({ content: 'Arr, the ship sails at dawn.' });
    pirate = await ask('When does the ferry leave?', { userId: bob, channelId: random });
    await thumbsDown(pirate, bob, 'The ferry times changed last week.');
    await thumbsDown(pirate, carol, '');
    await eventually(async () => Object.keys((await record(turnOf(pirate)))?.votes ?? {}).length === 2, 'both 👎');

    const summary = await command(w.fake, 'feedback', sub('summary'), { userId: w.modId });
    expect(summary.flags & 64).toBe(64);
    const text = summary.content;
    expect(text).toContain('**Feedback, the last 7 days**');
    // 17×3 (3 👍), the long task and its continuation (no votes), Where-shall-we-meet and its answer (1 👍), the ferry (2 👎).
    expect(text).toContain('6 answers, 3 rated: 6 votes (👍 4, 👎 2): 👍 67%');
    expect(text).toContain('- `gpt-4o-mini`: 6 answers, 6 votes (👍 4, 👎 2): 👍 67%');
    expect(text).toContain('- "Answer like a pirate.": 1 answer, 2 votes (👍 0, 👎 2): 👍 0%');
    expect(text).toContain('- no persona: 5 answers, 4 votes (👍 4, 👎 0): 👍 100%');
    expect(text).toContain(`- <#${random}>: 1 answer, 2 votes (👍 0, 👎 2): 👍 0%`);
    expect(text).toContain('- `calculate`: 2 answers, 3 votes (👍 3, 👎 0): 👍 100%');
    expect(text).toContain(`1. 👎 2 · 👍 0: When does the ferry leave? · <https://discord.com/channels/${w.guildId}/${pirate.channelId}/${pirate.id}>`);
    expect(text).not.toMatch(new RegExp(`${alice}|${bob}|${carol}|Alice|Bob|Carol`));

    const here = await command(w.fake, 'feedback', sub('summary', { channel: random }), { userId: w.modId });
    expect(here.content).toContain(`**Feedback, the last 7 days** in <#${random}>`);
    expect(here.content).toContain('1 answer, 1 rated: 2 votes (👍 0, 👎 2): 👍 0%');
  });

  it('export gives the rated answers as a private JSONL suite, without member ids, that the real npm run eval runs', async () => {
    // A follow-up in the 17×3 thread, rated: its case carries the thread before it.
    w.model.script({ content: '17 × 4 is 68.' });
    const since = w.fake.mark();
    w.fake.sendMessage({ channelId: sum.channelId, content: 'And times 4?' });
    const more = await w.fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('68'), 15_000, { since });
    await replyTo(w.fake, press(more, '👍', bob));

    const exported = await command(w.fake, 'feedback', sub('export'), { userId: w.modId });
    expect(exported.flags & 64).toBe(64);
    expect(exported.content).toMatch(/^3 rated answers of the last 30 days, as an evaluation suite only you see/);
    const file = exported.attachments[0]!;
    expect(file.filename).toMatch(new RegExp(`^threadwise-feedback-${w.guildId}-\\d{4}-\\d\\d-\\d\\d\\.jsonl$`));
    const body = file.data.toString('utf8');
    for (const id of [alice, bob, carol, w.modId]) expect(body).not.toContain(id);
    const cases = parseSuite(body, file.filename);
    const byQuestion = new Map(cases.map((c) => [c.question, c]));
    expect(byQuestion.get('What is 17 times 3?')).toMatchObject({ expect: { contains: ['51'] }, tags: ['general', 'gpt-4o-mini'], tools: expect.arrayContaining(['calculate']) });
    expect(byQuestion.get('What is 17 times 3?')!.tools).not.toContain('remember');
    expect(byQuestion.get('And times 4?')).toMatchObject({
      expect: { contains: ['68'] },
      history: [{ role: 'user', content: 'What is 17 times 3?' }, { role: 'assistant', content: '17 × 3 is **51**.' }],
    });
    const ferry = byQuestion.get('When does the ferry leave?')!;
    expect(ferry).toMatchObject({ persona: 'Answer like a pirate.', tags: ['random', 'gpt-4o-mini'], meta: { answer: 'Arr, the ship sails at dawn.', rating: { up: 0, down: 2 }, reasons: ['The ferry times changed last week.'] } });
    expect(ferry.expect.judge).toContain('"The ferry times changed last week."');
    // The deleted question's answer has no text left: not exported.
    expect(body).not.toContain('Secret Lane');

    // The real CLI on the file, against a model server answering the questions and a judge that passes.
    const run = await evalExport(file.filename, body, 'gpt-4o-mini', (question, system) => {
      if (system.startsWith('You grade')) return { content: JSON.stringify({ pass: /ferry times changed/.test(question), reason: 'checked' }) };
      return { content: question.includes('17 times 3') ? 'It is 51.' : question.includes('times 4') ? 'It is 68.' : 'The ferry leaves at 9:40.' };
    });
    evalServer = run.server;
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const { report } = run;
    expect(report.models['gpt-4o-mini']).toMatchObject({ passed: 3, failed: 0, errors: 0, total: 3 });
    expect(report.models['gpt-4o-mini'].tags.random).toMatchObject({ passed: 1, total: 1 });
    // The judge was given the member's reason as part of its rubric.
    expect(run.server.requests.some((r) => String(r.body.messages.at(-1)?.content).includes('The ferry times changed last week.'))).toBe(true);
  }, 60_000);

  it("/memory export includes the member's own votes, and only theirs", async () => {
    const reply = await replyTo(w.fake, w.fake.sendSlashCommand({ name: 'memory', subcommand: 'export', userId: carol }));
    expect(reply.content).toMatch(/and your 2 votes on answers/);
    const data = JSON.parse(reply.attachments[0]!.data.toString('utf8')) as { votes: Array<{ answer: string; vote: string; question?: string }> };
    expect(data.votes).toEqual([
      expect.objectContaining({ answer: turnOf(sum), vote: 'up', question: 'What is 17 times 3?' }),
      expect.objectContaining({ answer: turnOf(pirate), vote: 'down', question: 'When does the ferry leave?' }),
    ]);
    expect(JSON.stringify(data)).not.toContain(alice);
  });

  it("/reset removes the thread's questions, answers and reasons from the records; the counts stay, and the export leaves them out", async () => {
    const asked = w.fake.sendSlashCommand({ name: 'reset', channelId: pirate.channelId, userId: bob });
    const prompt = await replyTo(w.fake, asked);
    const confirm = (prompt.components[0] as { components: Button[] }).components[0]!;
    w.fake.clickButton({ messageId: prompt.id, customId: confirm.custom_id, channelId: pirate.channelId, userId: bob });
    await w.fake.waitFor(() => w.fake.message(prompt.id)!.content.startsWith('Done'), 10_000);
    const reset = (await record(turnOf(pirate)))!;
    expect(reset).toMatchObject({ question: '', answer: '', removed: 'reset' });
    expect(JSON.stringify(reset)).not.toMatch(/ferry|Arr/);
    expect(Object.values(reset.votes).map((v) => v.vote)).toEqual(['down', 'down']);
    const summary = await command(w.fake, 'feedback', sub('summary'), { userId: w.modId });
    expect(summary.content).toContain('1. 👎 2 · 👍 0: *(text removed: the thread was reset)*');
    const exported = await command(w.fake, 'feedback', sub('export'), { userId: w.modId });
    expect(exported.content).toMatch(/^2 rated answers/);
    expect(exported.attachments[0]!.data.toString('utf8')).not.toContain('ferry');
  });
});

describe('after a restart', () => {
  it('the buttons still work: a second app on the same storage records a 👍 and a 👎 with its reason on answers the first one posted', async () => {
    const { fake, model } = w;
    await w.h.close({ keepFakes: true });
    w = await startModeration({ production: true, keyvUrl }, { fake, model });
    const id = turnOf(sum);
    expect(await record(id)).toMatchObject({ question: 'What is 17 times 3?' });
    const down = await thumbsDown(sum, w.modId, 'Too terse.');
    expect(down.content).toMatch(/^👎 Recorded, with your reason/);
    const after: FeedbackRecord = (await record(id))!;
    expect(after.votes[w.modId]).toMatchObject({ vote: 'down', reason: 'Too terse.' });
    expect(Object.keys(after.votes)).toHaveLength(4);
    expect((await replyTo(w.fake, press(sum, '👍', w.modId))).content).toMatch(/^👍 Recorded \(it was 👎\)/);
    expect((await record(id))!.votes[w.modId]).toMatchObject({ vote: 'up' });
    await until(() => w.h.app.services.turns.runs.size === 0, 'the bot to be idle');
  });
});
