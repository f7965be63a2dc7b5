/**
 * Scheduled questions running, end to end: the real discord.js client against the fake Discord, the
 * real openai SDK against the fake model server, production defaults, and a scheduler clock the test
 * moves by hand (no test waits for a schedule's time). Each run is a turn as the schedule's owner, with
 * their rights at run time; a run that cannot happen makes no model call and pauses its schedule.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isFinalAnswer } from './harness.js';
import { command, sub } from '../policy/discord-helpers.js';
import { tempSqliteUrl } from '../state/helpers/targets.js';
import { CLAIM_LEASE_MS } from '../../src/discord/schedules/scheduler.js';
import { TAKEN_OVER_NOTE } from '../../src/discord/text/schedule-text.js';
import { addSchedule, MIN, offered, schedule, startScheduled, T0, threads, tickAt, type ScheduledWorld } from './schedules/helpers.js';

let w: ScheduledWorld | undefined;
afterEach(async () => {
  await w?.h.close();
  w = undefined;
});

const timeStep = { content: 'Let me check the time.', toolCalls: [{ name: 'current_time', arguments: { timezone: 'UTC' } }] };

describe('scheduled runs', () => {
  it('a schedule every 15 minutes runs 4 times in a simulated hour, each in a new thread with its steps and answer', async () => {
    w = await startScheduled();
    const { fake, model } = w;
    const { reply } = await addSchedule(w, { question: 'What time is it?', when: 'every 15 minutes' }, w.modId);
    expect(reply.content).toMatch(/every 15 minutes \(UTC\), in <#\d+>, a new thread for each run/);
    expect(reply.content.match(/^• <t:\d+:F> · Mon 3 Mar 2025 08:(00|15|30) UTC$/gm)).toHaveLength(3);
    for (let i = 0; i < 4; i++) model.script(timeStep, { content: `Run ${i + 1}: it is quarter past something.` });
    let claimed = 0;
    // Every minute of the hour, as the scheduler would wake.
    for (let m = 0; m < 60; m++) claimed += (await tickAt(w, T0 + m * MIN + 250)).claimed.length;
    expect(claimed).toBe(4);
    expect(model.requests).toHaveLength(8);
    const runs = threads(fake, fake.defaults.channelId);
    expect(runs.map((t) => t.name)).toEqual(['08:00', '08:15', '08:30', '08:45'].map((t) => `2025-03-03 ${t} · What time is it?`));
    for (const [i, thread] of runs.entries()) {
      const posted = fake.messagesIn(thread.id);
      expect(posted.some((m) => m.content.includes('current_time') && m.content.includes('↳ result'))).toBe(true);
      expect(posted.find(isFinalAnswer)?.content).toContain(`Run ${i + 1}: it is quarter past something.`);
      // The thread opens on a message in the channel naming whose question it is.
      expect(fake.message(thread.id)?.content).toMatch(/^⏰ \*\*Mod Erator\*\*'s scheduled question `[a-z0-9]+` \(every 15 minutes; Mon 3 Mar 2025 08:\d\d UTC\): What time is it\?$/);
    }
    // The thread is the owner's conversation: its memory holds the question and the answer.
    const memory = await w.h.storage.conversations.load(runs[0]!.id);
    expect(memory.messages.map((m) => m.content)).toContain('What time is it?');
  });

  it('a daily 09:00 in Europe/Paris runs at 09:00 local on both sides of the spring daylight-saving change', async () => {
    const friday = Date.UTC(2025, 2, 28, 12, 0);
    w = await startScheduled({ startMs: friday });
    await addSchedule(w, { question: 'Good morning?', when: 'daily 09:00 Europe/Paris' }, w.modId);
    for (let i = 0; i < 3; i++) w.model.script({ content: `Morning ${i + 1}.` });
    for (let h = 1; h <= 3 * 24; h++) await tickAt(w, friday + h * 60 * MIN);
    const runs = threads(w.fake, w.fake.defaults.channelId);
    expect(runs.map((t) => t.name)).toEqual(['2025-03-29 09:00 · Good morning?', '2025-03-30 09:00 · Good morning?', '2025-03-31 09:00 · Good morning?']);
    // 08:00 UTC on Saturday (CET), 07:00 UTC from Sunday on (CEST): the thread says 09:00 local each time.
    expect(w.model.requests).toHaveLength(3);
    const starts = runs.map((t) => w!.fake.message(t.id)!.content);
    expect(starts.every((c) => / 09:00 Europe\/Paris\): Good morning\?$/.test(c))).toBe(true);
  });

  it('the owner loses the role that allowed a tool: the next run is not offered that tool', async () => {
    w = await startScheduled();
    const { fake, model, guildId } = w;
    const readers = fake.addRole({ name: 'Readers' });
    fake.setMemberRoles({ userId: w.modId, roleIds: [...fake.state.member(guildId, w.modId)!.roles, readers.id] });
    await command(fake, 'tools', sub('enable', { tool: 'read_url', role: readers.id }), { userId: w.modId });
    await addSchedule(w, { question: 'Read the status page and summarise it.', when: 'every 30 minutes' }, w.modId);
    model.script({ content: 'All green.' }, { content: 'Still green.' });
    await tickAt(w, T0 + 100);
    expect(offered(w, 0)).toContain('read_url');
    // A moderator takes the role away; the schedule is unchanged.
    fake.setMemberRoles({ userId: w.modId, roleIds: fake.state.member(guildId, w.modId)!.roles.filter((r) => r !== readers.id) });
    await tickAt(w, T0 + 30 * MIN + 100);
    expect(model.requests).toHaveLength(2);
    expect(offered(w, 1)).not.toContain('read_url');
    expect(offered(w, 1)).toContain('current_time');
    // Nothing a scheduled run is offered creates or changes schedules.
    expect([...offered(w, 0), ...offered(w, 1)].filter((name) => /schedul|cron|remind/i.test(name))).toEqual([]);
    expect(w.h.app.services.rules.tools.filter((t) => /schedul|cron|remind/i.test(t.name))).toEqual([]);
  });

  it('the owner leaves the server: the run makes no model call, the schedule pauses, and the channel and /schedule list say why', async () => {
    w = await startScheduled();
    const { fake, model } = w;
    await command(fake, 'settings', sub('schedules', { who: 'everyone' }), { userId: w.modId });
    const { saved } = await addSchedule(w, { question: 'Any new issues?', when: 'every weekday at 09:00 Europe/Paris' }, fake.defaults.userId);
    fake.removeMember({ userId: fake.defaults.userId });
    const since = fake.mark();
    const report = await tickAt(w, Date.UTC(2025, 2, 3, 8, 0, 5)); // 09:00 in Paris
    expect(report.claimed).toHaveLength(1);
    expect(model.requests).toHaveLength(0);
    expect(threads(fake, fake.defaults.channelId)).toEqual([]);
    const notice = await fake.waitForMessage((m) => m.content.startsWith('⏸️'), 5_000, { since });
    expect(notice.channelId).toBe(fake.defaults.channelId);
    expect(notice.content).toContain(`I paused your scheduled question \`${saved.id}\``);
    expect(notice.content).toContain('its owner is no longer a member of this server.');
    expect(notice.content).toContain('No model call was made.');
    // Only the owner is pinged, nobody else.
    expect(notice.pings.users).toEqual([fake.defaults.userId]);
    const paused = (await w.h.storage.schedules.list(w.guildId))[0]!;
    expect(paused.paused).toMatchObject({ auto: true, reason: 'its owner is no longer a member of this server.' });
    const list = await schedule(w, 'list', {}, w.modId);
    expect(list.content).toMatch(new RegExp(`\`${saved.id}\`[\\s\\S]*⏸️ Paused <t:\\d+:R> by me: its owner is no longer a member of this server\\.`));
    // It is audited, by the bot.
    const audit = (await w.h.storage.guildSettings.get(w.guildId)).auditLog.at(-1)!;
    expect(audit).toMatchObject({ action: 'schedule.pause', actorId: fake.botId });
    // A paused schedule does not run again.
    await tickAt(w, Date.UTC(2025, 2, 4, 8, 0, 5));
    expect(model.requests).toHaveLength(0);
  });

  it('the channel is deleted: no model call; the owner is told by DM and the schedule pauses', async () => {
    w = await startScheduled();
    const { fake, model } = w;
    const channel = fake.addChannel({ name: 'reports' });
    await addSchedule(w, { question: 'Weekly report?', when: 'mondays 9:00 UTC', channel: channel.id }, w.modId);
    fake.deleteChannel(channel.id);
    await tickAt(w, Date.UTC(2025, 2, 3, 9, 0, 5));
    expect(model.requests).toHaveLength(0);
    const dm = fake.dmChannelWith(w.modId);
    const notice = await fake.waitForMessage((m) => m.channelId === dm.id && m.content.startsWith('⏸️'), 5_000);
    expect(notice.content).toContain('in **Test Guild**');
    expect(notice.content).toContain(`the channel it posts in (<#${channel.id}>) no longer exists.`);
  });

  it('a tool that needs approval waits in a scheduled run until someone approves it', async () => {
    w = await startScheduled();
    const { fake, model } = w;
    await command(fake, 'tools', sub('approval', { tool: 'current_time', mode: 'ask' }), { userId: w.modId });
    await addSchedule(w, { question: 'What time is it?', when: 'every 30 minutes' }, w.modId);
    model.script(timeStep, { content: 'It is eight.' });
    w.clock.set(T0 + 100);
    await w.h.app.scheduler.tick();
    const request = await fake.waitForMessage((m) => m.content.startsWith('🔐 **Approval needed**'), 15_000);
    expect(model.requests).toHaveLength(1);
    const approve = (request.components as Array<{ components: Array<{ label?: string; custom_id?: string }> }>).flatMap((r) => r.components).find((b) => b.label === 'Approve')!;
    // The scheduled turn ended waiting (its slot given back); the decision resumes it in its thread.
    await w.h.app.scheduler.idle();
    fake.clickButton({ messageId: request.id, customId: approve.custom_id!, channelId: request.channelId, userId: w.modId });
    const answer = await fake.waitForMessage((m) => isFinalAnswer(m) && m.channelId === request.channelId, 15_000);
    expect(answer.content).toContain('It is eight.');
  });

  it('a run too slow to begin, whose occurrence another process took over, makes no model call and says so in its thread; its schedule stays active', async () => {
    // On a SQLite file (the default storage outside tests), which a second opening shares as another process would.
    w = await startScheduled({ keyvUrl: tempSqliteUrl('taken-over').url });
    const { fake, model } = w;
    const { saved } = await addSchedule(w, { question: 'Open incidents?', when: 'every 30 minutes' }, w.modId);
    // Held while it opens the run's thread, past the claim's lease.
    const channelId = fake.defaults.channelId;
    const hold = fake.holdRequests((method, path) => method === 'POST' && path === `/channels/${channelId}/messages`);
    w.clock.set(T0 + 100);
    const report = await w.h.app.scheduler.tick();
    expect(report.claimed).toEqual([expect.objectContaining({ atMs: T0, mode: 'run' })]);
    await hold.reached;
    // Another process, finding the lease ended, takes the occurrence over (through the shared storage).
    const other = await w.h.storage.openScheduleClaims();
    const after = T0 + 100 + CLAIM_LEASE_MS + 1;
    expect(await other.claim(`${w.guildId}:${saved.id}`, T0, 'run', { token: 'other-process', endsMs: after + CLAIM_LEASE_MS, nowMs: after })).toEqual({ won: true });
    await other.close();
    hold.release();
    await w.h.app.scheduler.idle();
    expect(model.requests).toHaveLength(0);
    const [thread] = threads(fake, channelId);
    expect(fake.messagesIn(thread!.id).map((m) => m.content)).toContain(TAKEN_OVER_NOTE);
    expect((await w.h.storage.schedules.list(w.guildId))[0]!.paused).toBeUndefined();
  });
});
