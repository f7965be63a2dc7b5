/**
 * `/schedule` and `/settings schedules` end to end, with the production defaults (moderators only,
 * 20 schedules a server, 5 a member, 15 minutes apart): who may, the caps, listing, pausing with a
 * reason, resuming, removing, running now, autocomplete, and the audit trail of every change.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isFinalAnswer } from './harness.js';
import { command, sub } from '../policy/discord-helpers.js';
import { addSchedule, schedule, startScheduled, tickAt, type ScheduledWorld } from './schedules/helpers.js';
import type { FakeDiscord } from '../fake-discord/index.js';

let w: ScheduledWorld | undefined;
afterEach(async () => {
  await w?.h.close();
  w = undefined;
});

async function choices(fake: FakeDiscord, input: Parameters<FakeDiscord['sendAutocomplete']>[0]) {
  const typed = fake.sendAutocomplete(input);
  await fake.waitFor(() => typed.autocompleteChoices !== null, 5_000);
  return typed.autocompleteChoices as Array<{ name: string; value: string }>;
}

describe('/schedule: who may', () => {
  it('a member without the right gets a clear refusal and nothing is saved; the setting opens or closes it for everyone', async () => {
    w = await startScheduled();
    const { fake } = w;
    const alice = fake.defaults.userId;
    const refused = await schedule(w, 'add', { question: 'Open incidents?', when: 'every weekday at 09:00 Europe/Paris' }, alice);
    expect(refused.content).toBe('Only moderators (members with **Manage Server**) may schedule questions in this server; a moderator can open it to everyone with `/settings schedules everyone`. Nothing was saved.');
    expect(await w.h.storage.schedules.list(w.guildId)).toEqual([]);

    const opened = await command(fake, 'settings', sub('schedules', { who: 'everyone' }), { userId: w.modId });
    expect(opened.content).toMatch(/^✅ Done: set who may schedule questions to `everyone`: every member\./);
    await addSchedule(w, { question: 'Open incidents?', when: 'every weekday at 09:00 Europe/Paris' }, alice);
    const shown = await command(fake, 'settings', sub('show'), { userId: w.modId });
    expect(shown.content).toContain('• Scheduled questions: every member may have them');

    // /settings is a moderator's command: Discord does not even offer it to a member.
    expect(() => fake.sendSlashCommand({ name: 'settings', subcommand: 'schedules', options: { who: 'off' }, userId: alice })).toThrow(/lacks the default member permissions/);
    await command(fake, 'settings', sub('schedules', { who: 'off' }), { userId: w.modId });
    const off = await schedule(w, 'add', { question: 'Anything?', when: 'daily 18:00 UTC' }, w.modId);
    expect(off.content).toBe('Scheduled questions are turned off in this server (a moderator chose this with `/settings schedules`). Nothing was saved.');
    const audit = (await w.h.storage.guildSettings.get(w.guildId)).auditLog.map((e) => e.action);
    expect(audit).toEqual(['settings.schedules', 'schedule.add', 'settings.schedules']);
  });

  it('the caps hold: 5 per member, 20 per server, at least 15 minutes apart', async () => {
    w = await startScheduled();
    const { fake } = w;
    await command(fake, 'settings', sub('schedules', { who: 'everyone' }), { userId: w.modId });
    const members = [w.modId, fake.defaults.userId, fake.defaults.otherUserId];
    for (const name of ['carol', 'dave']) {
      const user = fake.addUser({ username: name });
      fake.addMember({ userId: user.id });
      members.push(user.id);
    }
    const tooOften = await schedule(w, 'add', { question: 'Ping?', when: 'every 5 minutes' }, w.modId);
    expect(tooOften.content).toMatch(/^That runs 5 minutes apart at its closest; schedules here run at least 15 minutes apart\. For example: .* Nothing was saved\.$/);
    for (let i = 0; i < 5; i++) await addSchedule(w, { question: `Question ${i}?`, when: 'every 2 hours' }, members[0]!);
    const sixth = await schedule(w, 'add', { question: 'One more?', when: 'every 2 hours' }, members[0]!);
    expect(sixth.content).toBe('You have 5 scheduled questions in this server, the most one member may have. Remove one with `/schedule remove` first. Nothing was saved.');
    for (const member of members.slice(1, 4)) for (let i = 0; i < 5; i++) await addSchedule(w, { question: `Question ${i}?`, when: 'every 4 hours' }, member);
    expect(await w.h.storage.schedules.list(w.guildId)).toHaveLength(20);
    const full = await schedule(w, 'add', { question: 'Room for one more?', when: 'every 4 hours' }, members[4]!);
    expect(full.content).toBe('This server has its 20 scheduled questions, the most it may have. Remove one with `/schedule remove` first. Nothing was saved.');
    expect(await w.h.storage.schedules.list(w.guildId)).toHaveLength(20);
  });
});

describe('/schedule: list, pause, resume, remove, run, autocomplete', () => {
  it('each change by its owner or a moderator, audited; another member is refused; run starts it now in a thread', async () => {
    w = await startScheduled();
    const { fake, model } = w;
    const [alice, bob] = [fake.defaults.userId, fake.defaults.otherUserId];
    await command(fake, 'settings', sub('schedules', { who: 'everyone' }), { userId: w.modId });

    // `when` is read as it is typed.
    const whenChoices = await choices(fake, { name: 'schedule', subcommand: 'add', options: { question: 'Open incidents?', when: 'weekdays 9am europe/paris' }, focused: 'when', userId: alice });
    expect(whenChoices[0]).toEqual({ name: '✅ every weekday at 09:00 (Europe/Paris) · next Mon 3 Mar 2025 09:00', value: 'weekdays 9am europe/paris' });
    const badChoices = await choices(fake, { name: 'schedule', subcommand: 'add', options: { question: 'x', when: 'every blue moon' }, focused: 'when', userId: alice });
    expect(badChoices[0]!.name).toMatch(/^⚠️ I do not know the word `blue`/);

    const { saved, reply } = await addSchedule(w, { question: 'Open incidents?', when: 'weekdays 9am europe/paris', thread: 'same' }, alice);
    expect(reply.content).toContain('every weekday at 09:00 (Europe/Paris), in <#');
    expect(reply.content).toContain('one thread for all runs');
    expect(reply.content).toMatch(/• <t:\d+:F> · Mon 3 Mar 2025 09:00 Europe\/Paris\n• <t:\d+:F> · Tue 4 Mar 2025 09:00 Europe\/Paris\n• <t:\d+:F> · Wed 5 Mar 2025 09:00 Europe\/Paris/);
    // Her next schedule without a zone takes hers.
    const second = await addSchedule(w, { question: 'Standup notes?', when: 'mondays at 10:00' }, alice);
    expect(second.saved.timeZone).toBe('Europe/Paris');
    expect(second.reply.content).toContain('Time zone Europe/Paris, as in your other schedules here');
    await addSchedule(w, { question: "Bob's question?", when: 'every 3 hours' }, bob);

    // Autocomplete offers a member their own schedules; a moderator every one.
    const hers = await choices(fake, { name: 'schedule', subcommand: 'pause', options: { schedule: '' }, focused: 'schedule', userId: alice });
    expect(hers.map((c) => c.value).sort()).toEqual([saved.id, second.saved.id].sort());
    const incidents = await choices(fake, { name: 'schedule', subcommand: 'pause', options: { schedule: 'incid' }, focused: 'schedule', userId: w.modId });
    expect(incidents).toEqual([{ name: `${saved.id} · Open incidents? · every weekday at 09:00`, value: saved.id }]);
    expect(await choices(fake, { name: 'schedule', subcommand: 'run', options: { schedule: '' }, focused: 'schedule', userId: w.modId })).toHaveLength(3);

    const notHers = await schedule(w, 'pause', { schedule: saved.id }, bob);
    expect(notHers.content).toBe(`Scheduled question \`${saved.id}\` is <@${alice}>'s: only its owner or a moderator (Manage Server) may change or run it. Nothing was changed.`);

    const paused = await schedule(w, 'pause', { schedule: saved.id, reason: 'On holiday until Monday.' }, alice);
    expect(paused.content).toMatch(/^⏸️ Paused `[a-z0-9]+`: no runs until someone resumes it/);
    const list = await schedule(w, 'list', {}, alice);
    expect(list.content).toMatch(/^\*\*Scheduled questions\*\* \(3 of 20, yours first\):/);
    expect(list.content).toMatch(new RegExp(`\`${saved.id}\`\\*\\* · every weekday at 09:00 \\(Europe/Paris\\) · <#\\d+> · by <@${alice}> · one thread\\n> Open incidents\\?\\n⏸️ Paused <t:\\d+:R> by <@${alice}>: On holiday until Monday\\.`));
    expect(list.content).toMatch(/> Standup notes\?\n▶️ Next <t:\d+:R>/);
    await tickAt(w, Date.UTC(2025, 2, 3, 8, 0, 5)); // 09:00 in Paris: paused, nothing runs
    expect(model.requests).toHaveLength(0);

    const resumed = await schedule(w, 'resume', { schedule: saved.id }, w.modId);
    expect(resumed.content).toMatch(/^▶️ Resumed `[a-z0-9]+` \(it had been paused: On holiday until Monday\.\)\. Next runs:\n• <t:\d+:F> · Tue 4 Mar 2025 09:00 Europe\/Paris/);

    model.script({ content: 'No open incidents.' }, { content: 'Still none.' });
    const ran = await schedule(w, 'run', { schedule: saved.id }, alice);
    const threadId = /<#(\d+)>/.exec(ran.content)?.[1];
    expect(ran.content).toMatch(new RegExp(`^▶️ Running \`${saved.id}\` now, as <@${alice}>: <#\\d+>\\. Its schedule is unchanged\\.$`));
    await fake.waitFor(() => fake.messagesIn(threadId!).some(isFinalAnswer), 10_000);
    expect(fake.messagesIn(threadId!).find(isFinalAnswer)!.content).toContain('No open incidents.');
    expect((await w.h.storage.schedules.list(w.guildId)).find((s) => s.id === saved.id)!.threadId).toBe(threadId);
    // One thread for all runs: the next scheduled run posts in the same one.
    await tickAt(w, Date.UTC(2025, 2, 4, 8, 0, 5));
    expect(model.requests).toHaveLength(2);
    expect(fake.messagesIn(threadId!).filter(isFinalAnswer).map((m) => m.content)).toEqual([expect.stringContaining('No open incidents.'), expect.stringContaining('Still none.')]);
    expect(fake.messagesIn(threadId!).some((m) => m.content.startsWith(`⏰ **Alice**'s scheduled question \`${saved.id}\` (every weekday at 09:00; Tue 4 Mar 2025 09:00 Europe/Paris)`))).toBe(true);

    const removed = await schedule(w, 'remove', { schedule: saved.id }, alice);
    expect(removed.content).toBe(`🗑️ Removed \`${saved.id}\` (“Open incidents?”). Its past threads stay.`);
    expect((await w.h.storage.schedules.list(w.guildId)).map((s) => s.id)).not.toContain(saved.id);
    const audit = (await w.h.storage.guildSettings.get(w.guildId)).auditLog.map((e) => `${e.action} ${e.actorId === alice ? 'alice' : e.actorId === w!.modId ? 'mod' : 'bob'}`);
    expect(audit).toEqual(['settings.schedules mod', 'schedule.add alice', 'schedule.add alice', 'schedule.add bob', 'schedule.pause alice', 'schedule.resume mod', 'schedule.remove alice']);
  });
});
