import { Events, type Message, Routes, type TextChannel, type ThreadChannel } from 'discord.js';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { type Rig, rejection, startRig } from './helpers.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** A thread the bot started, with one bot message in it. */
async function botThread(r: Rig): Promise<{ thread: ThreadChannel; message: Message }> {
  const general = r.client.channels.cache.get(r.fake.defaults.channelId) as TextChannel;
  const thread = await general.threads.create({ name: 'work' });
  const message = await thread.send('step 1');
  return { thread, message };
}

/** A moderator changes the thread; resolves once discord.js has seen the THREAD_UPDATE. */
async function moderate(r: Rig, threadId: string, change: { locked?: boolean; archived?: boolean }): Promise<void> {
  const updated = once(r.client, Events.ThreadUpdate);
  r.fake.updateThread(threadId, change);
  await updated;
}

describe('threads changing under a running bot', () => {
  it('a locked thread refuses the bot\'s edits and sends with 160005, unless it has Manage Threads', async () => {
    rig = await startRig();
    const { fake } = rig;
    const { thread, message } = await botThread(rig);
    await moderate(rig, thread.id, { locked: true });
    expect(thread.locked).toBe(true);
    const edit = await rejection(message.edit('step 2'));
    expect([edit.status, edit.code]).toEqual([403, 160005]);
    expect((await rejection(thread.send('more'))).code).toBe(160005);
    expect(fake.message(message.id)!.content).toBe('step 1');
    fake.setRolePermissions(fake.defaults.botRoleId, ['ViewChannel', 'SendMessagesInThreads', 'ReadMessageHistory', 'ManageThreads']);
    await message.edit('step 2 by a moderator bot');
    expect(fake.message(message.id)!.content).toBe('step 2 by a moderator bot');
  });

  it('an archived thread refuses edits and reactions (50083); the bot\'s next message reopens it', async () => {
    rig = await startRig();
    const { fake } = rig;
    const { thread, message } = await botThread(rig);
    await moderate(rig, thread.id, { archived: true });
    expect((await rejection(message.edit('step 2'))).code).toBe(50083);
    expect((await rejection(message.react('👍'))).code).toBe(50083);
    const reopened = once(rig.client, Events.ThreadUpdate);
    await thread.send('step 2');
    const [, after] = (await reopened) as [ThreadChannel, ThreadChannel];
    expect(after.archived).toBe(false);
    await moderate(rig, thread.id, { locked: true });
    await message.react('👍');
    expect(fake.message(message.id)!.reactions).toEqual(['👍']);
  });

  it('an archived and locked thread stays closed: the bot\'s send is refused', async () => {
    rig = await startRig();
    const { thread } = await botThread(rig);
    await moderate(rig, thread.id, { locked: true, archived: true });
    expect((await rejection(thread.send('anyone there?'))).code).toBe(50083);
    expect(rig.fake.channel(thread.id)!.thread!.archived).toBe(true);
  });

  it('a deleted thread sends THREAD_DELETE and then answers 10003 Unknown Channel', async () => {
    rig = await startRig();
    const { fake, client } = rig;
    const { thread, message } = await botThread(rig);
    const deleted = once(client, Events.ThreadDelete);
    fake.deleteThread(thread.id);
    const [gone] = (await deleted) as [ThreadChannel];
    expect(gone.id).toBe(thread.id);
    expect(client.channels.cache.has(thread.id)).toBe(false);
    expect((await rejection(thread.send('late'))).code).toBe(10003);
    // discord.js drops the thread from its cache, so edit through REST as a bot holding the ids would.
    const edit = await rejection(client.rest.patch(Routes.channelMessage(thread.id, message.id), { body: { content: 'late edit' } }));
    expect([edit.status, edit.code]).toEqual([404, 10003]);
  });

  it('a moderator deleting the bot\'s message sends MESSAGE_DELETE; a later edit gets 10008 Unknown Message', async () => {
    rig = await startRig();
    const { fake, client } = rig;
    const { message } = await botThread(rig);
    const deleted = once(client, Events.MessageDelete);
    fake.deleteMessage(message.id);
    const [gone] = (await deleted) as [Message];
    expect(gone.id).toBe(message.id);
    expect((await rejection(message.edit('still streaming'))).code).toBe(10008);
  });
});
