/**
 * A schedule posts for its owner, so it needs its owner's right to post, at `/schedule add` and again
 * before every run, against Discord as it is then: View Channel and Send Messages in the channel, Create
 * Public Threads where a run opens a thread, Send Messages in Threads for one thread for all runs. And the
 * right to own schedules at all (`/settings schedules`), which a moderator can lose. End to end (the real
 * discord.js client against the fake Discord, production defaults: schedules for moderators only), one
 * bot for the file, the scheduler clock moved by hand; each case has its own owner and channel, and starts
 * with no schedules.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MIN, addSchedule, schedule, startScheduled, T0, threads, tickAt, type ScheduledWorld } from './schedules/helpers.js';

let w: ScheduledWorld;
beforeAll(async () => {
  w = await startScheduled();
});
afterAll(async () => {
  await w?.h.close();
});
// Each case starts with no schedules, so one case's schedule never runs in another's tick.
afterEach(async () => {
  for (const s of await w.h.storage.schedules.list(w.guildId)) await w.h.storage.schedules.remove(w.guildId, s.id);
});

/** A new member with the moderators' role (Manage Server, not Administrator: channel overwrites apply to them). */
function newModerator(username: string): string {
  const modRoles = w.fake.state.member(w.guildId, w.modId)!.roles;
  const id = w.fake.addUser({ username }).id;
  w.fake.addMember({ userId: id, roleIds: [...modRoles] });
  return id;
}

/** The DM the owner got about a paused schedule, or the notice in the channel, after `since`. */
async function pauseNotice(since: number) {
  return w.fake.waitForMessage((m) => m.content.startsWith('⏸️'), 5_000, { since });
}

async function pausedReason(id: string): Promise<string | undefined> {
  return (await w.h.storage.schedules.list(w.guildId)).find((s) => s.id === id)?.paused?.reason;
}

describe('a schedule needs its owner’s right to post where it posts', () => {
  it('refused at add, naming the channel and the permission, when the owner may not post there (nothing saved)', async () => {
    const owner = newModerator('announcer');
    // An announcement channel as servers set them up: @everyone may read it, not send; the bot may post.
    const announcements = w.fake.addChannel({ name: 'announcements', type: 5 });
    w.fake.setPermissions({ channelId: announcements.id, target: 'everyone', deny: ['SendMessages'] });
    w.fake.setPermissions({ channelId: announcements.id, target: 'bot', allow: ['SendMessages'] });
    const refused = await schedule(w, 'add', { question: 'Post the news.', when: 'every 30 minutes', channel: announcements.id }, owner);
    expect(refused.content).toBe(`You cannot post in <#${announcements.id}>: you are missing the Send Messages permission there, and its runs would post there for you. Pick a channel where you may post, or ask a moderator for it. Nothing was saved.`);
    // One thread for all runs needs Send Messages in Threads too.
    const quiet = w.fake.addChannel({ name: 'quiet' });
    w.fake.setPermissions({ channelId: quiet.id, target: owner, deny: ['SendMessagesInThreads', 'CreatePublicThreads'] });
    const same = await schedule(w, 'add', { question: 'Post the news.', when: 'every 30 minutes', channel: quiet.id, thread: 'same' }, owner);
    expect(same.content).toContain(`You cannot post in <#${quiet.id}>: you are missing the Create Public Threads and Send Messages in Threads permissions there`);
    expect(await w.h.storage.schedules.list(w.guildId)).toEqual([]);
    // Where they may post, the same member's schedule is saved.
    await addSchedule(w, { question: 'Post the news.', when: 'every 30 minutes', channel: w.fake.defaults.channelId }, owner);
  });

  it('Send Messages denied after adding: the next run makes no model call, the schedule pauses with the reason and the owner is told', async () => {
    const owner = newModerator('poster');
    const channel = w.fake.addChannel({ name: 'reports' });
    const { saved } = await addSchedule(w, { question: 'Weekly report?', when: 'every 30 minutes', channel: channel.id }, owner);
    w.fake.setPermissions({ channelId: channel.id, target: owner, deny: ['SendMessages'] });
    const since = w.fake.mark();
    const requests = w.model.requests.length;
    const report = await tickAt(w, T0 + 100);
    expect(report.claimed).toHaveLength(1);
    expect(w.model.requests).toHaveLength(requests);
    expect(threads(w.fake, channel.id)).toEqual([]);
    const reason = `its owner may no longer post in <#${channel.id}>: they are missing the Send Messages permission there.`;
    expect(await pausedReason(saved.id)).toBe(reason);
    const notice = await pauseNotice(since);
    expect(notice.content).toContain(`I paused your scheduled question \`${saved.id}\``);
    expect(notice.content).toContain(reason);
    expect(notice.content).toContain('No model call was made.');
    expect(notice.pings.users).toEqual([owner]);
  });

  it('one thread for all runs, and Send Messages in Threads denied after its first run: the next run pauses, no model call', async () => {
    const owner = newModerator('threader');
    const channel = w.fake.addChannel({ name: 'standups' });
    const { saved } = await addSchedule(w, { question: 'Standup notes?', when: 'every 30 minutes', channel: channel.id, thread: 'same' }, owner);
    w.model.script({ content: 'Notes: all quiet.' });
    await tickAt(w, T0 + 30 * MIN + 100);
    expect(threads(w.fake, channel.id)).toHaveLength(1);
    w.fake.setPermissions({ channelId: channel.id, target: owner, deny: ['SendMessagesInThreads'] });
    const requests = w.model.requests.length;
    await tickAt(w, T0 + 60 * MIN + 100);
    expect(w.model.requests).toHaveLength(requests);
    expect(await pausedReason(saved.id)).toBe(`its owner may no longer post in <#${channel.id}>: they are missing the Send Messages in Threads permission there.`);
  });

  it('moderators only, and the owner loses Manage Server: the next run makes no model call and pauses with the reason', async () => {
    const owner = newModerator('former-mod');
    const { saved } = await addSchedule(w, { question: 'Open incidents?', when: 'every 30 minutes' }, owner);
    // A moderator takes the role away; the server's setting is still the default (moderators only).
    w.fake.setMemberRoles({ userId: owner, roleIds: [] });
    const since = w.fake.mark();
    const requests = w.model.requests.length;
    const report = await tickAt(w, T0 + 90 * MIN + 100);
    expect(report.claimed).toHaveLength(1);
    expect(w.model.requests).toHaveLength(requests);
    const reason = 'only moderators may have scheduled questions in this server now, and its owner is not one.';
    expect(await pausedReason(saved.id)).toBe(reason);
    const notice = await pauseNotice(since);
    expect(notice.content).toContain(reason);
    expect(notice.content).toContain('No model call was made.');
  });

  it('View Channel lost after adding: the next run makes no model call, pauses with the reason, and the owner is told by DM', async () => {
    const owner = newModerator('watcher');
    const channel = w.fake.addChannel({ name: 'private-ops' });
    const { saved } = await addSchedule(w, { question: 'Any alerts?', when: 'every 30 minutes', channel: channel.id }, owner);
    w.fake.setPermissions({ channelId: channel.id, target: owner, deny: ['ViewChannel'] });
    const since = w.fake.mark();
    const requests = w.model.requests.length;
    await tickAt(w, T0 + 120 * MIN + 100);
    expect(w.model.requests).toHaveLength(requests);
    expect(threads(w.fake, channel.id)).toEqual([]);
    const reason = `its owner can no longer see <#${channel.id}>.`;
    expect(await pausedReason(saved.id)).toBe(reason);
    const notice = await pauseNotice(since);
    expect(notice.channelId).toBe(w.fake.dmChannelWith(owner).id);
    expect(notice.content).toContain(reason);
  });
});
