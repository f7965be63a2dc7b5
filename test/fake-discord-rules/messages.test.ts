import { type ChatInputCommandInteraction, type TextChannel } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { api, type Rig, rejection, slash, startRig } from './helpers.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const general = (r: Rig) => r.client.channels.cache.get(r.fake.defaults.channelId) as TextChannel;

describe('allowed_mentions', () => {
  it('an edit without allowed_mentions parses with the defaults again, not the original message\'s', async () => {
    rig = await startRig();
    const { fake } = rig;
    const sent = await general(rig).send({ content: 'quiet', allowedMentions: { parse: [] } });
    await sent.edit({ content: `now @everyone and <@${fake.defaults.userId}>`, allowedMentions: undefined });
    const m = fake.message(sent.id)!;
    expect(m.allowedMentions).toBeUndefined();
    expect(m.pings).toEqual({ everyone: true, users: [fake.defaults.userId], roles: [] });
    await sent.edit({ content: 'again @everyone', allowedMentions: { parse: [] } });
    expect(fake.message(sent.id)!.pings).toEqual({ everyone: false, users: [], roles: [] });
  });

  it('interaction replies, follow-ups and their edits parse only users by default', async () => {
    rig = await startRig({ commands: [slash('say')] });
    const { fake, handlers } = rig;
    const role = fake.addRole({ name: 'Pingable', mentionable: true });
    const text = `@everyone <@&${role.id}> <@${fake.defaults.otherUserId}>`;
    handlers.set('say', async (i) => {
      const c = i as ChatInputCommandInteraction;
      await c.reply({ content: text, allowedMentions: undefined });
      await c.followUp({ content: text, allowedMentions: undefined });
      await c.editReply({ content: `${text} edited`, allowedMentions: undefined });
    });
    const interaction = fake.sendSlashCommand({ name: 'say' });
    const edited = await fake.waitForMessage((m) => m.id === interaction.originalMessageId && m.content.endsWith('edited'));
    const only = { everyone: false, users: [fake.defaults.otherUserId], roles: [] };
    expect(edited.pings).toEqual(only);
    expect(fake.message(interaction.followupIds[0]!)!.pings).toEqual(only);
    const channelMessage = await general(rig).send({ content: text, allowedMentions: undefined });
    expect(fake.message(channelMessage.id)!.pings).toEqual({ everyone: true, users: [fake.defaults.otherUserId], roles: [role.id] });
  });
});

describe('replies and reading history', () => {
  it('refuses a reply to an unknown or deleted message unless fail_if_not_exists is false', async () => {
    rig = await startRig();
    const { fake } = rig;
    const gone = await general(rig).send('soon gone');
    await gone.delete();
    for (const id of ['1191168914244112999', gone.id]) {
      const error = await rejection(general(rig).send({ content: 'reply', reply: { messageReference: id } }));
      expect([error.status, error.code]).toEqual([400, 50035]);
      expect(error.message).toContain('message_reference[MESSAGE_REFERENCE_UNKNOWN_MESSAGE]');
    }
    const plain = await general(rig).send({ content: 'reply anyway', reply: { messageReference: gone.id, failIfNotExists: false } });
    expect(fake.message(plain.id)).toMatchObject({ type: 0, reference: null });
    const target = fake.sendMessage({ content: 'ask me' });
    const reply = await general(rig).send({ content: 'answer', reply: { messageReference: target.id } });
    expect(fake.message(reply.id)).toMatchObject({ type: 19, reference: { messageId: target.id } });
  });

  it('needs Read Message History to reply; without it a history read is an empty list and a single read is refused', async () => {
    rig = await startRig();
    const { fake } = rig;
    const target = fake.sendMessage({ content: 'earlier' });
    fake.setPermissions({ channelId: fake.defaults.channelId, deny: ['ReadMessageHistory'] });
    const reply = await rejection(general(rig).send({ content: 'answer', reply: { messageReference: target.id } }));
    expect([reply.status, reply.code]).toEqual([403, 50013]);
    const history = await api(fake, 'GET', `/channels/${fake.defaults.channelId}/messages?limit=10`);
    expect([history.status, await history.json()]).toEqual([200, []]);
    const one = await api(fake, 'GET', `/channels/${fake.defaults.channelId}/messages/${target.id}`);
    expect(one.status).toBe(403);
  });
});

describe('attachments on the CDN', () => {
  it('are signed like Discord\'s (ex, is, hm) and served only while the signature is valid', async () => {
    let now = Date.UTC(2025, 0, 1);
    rig = await startRig({ now: () => now, attachmentUrlLifetimeMs: 60 * 60_000 });
    const { fake } = rig;
    const sent = await general(rig).send({ files: [{ attachment: Buffer.from('hello'), name: 'answer.png' }] });
    const url = sent.attachments.first()!.url;
    expect(url).toMatch(new RegExp(`^${fake.cdnUrl}/attachments/${fake.defaults.channelId}/\\d+/answer\\.png\\?ex=[0-9a-f]{8}&is=[0-9a-f]{8}&hm=[0-9a-f]{64}&$`));
    expect(url.endsWith('.png')).toBe(false);
    expect(await (await fetch(url)).text()).toBe('hello');
    expect((await fetch(url.split('?')[0]!)).status).toBe(404);
    expect((await fetch(url.replace(/hm=[0-9a-f]{4}/, 'hm=0000'))).status).toBe(404);
    now += 2 * 60 * 60_000;
    expect((await fetch(url)).status).toBe(404);
    const fresh = (await general(rig).messages.fetch({ message: sent.id, force: true })).attachments.first()!.url;
    expect(fresh).not.toBe(url);
    expect(await (await fetch(fresh)).text()).toBe('hello');
  });

  it('refuses uploads without Attach Files with 403 50013 and stores nothing', async () => {
    rig = await startRig();
    const { fake } = rig;
    fake.setPermissions({ channelId: fake.defaults.channelId, deny: ['AttachFiles'] });
    const error = await rejection(general(rig).send({ content: 'file', files: [{ attachment: Buffer.from('x'), name: 'x.txt' }] }));
    expect([error.status, error.code]).toEqual([403, 50013]);
    expect(fake.botMessages()).toEqual([]);
  });
});

describe('rate limits, typing and edit timing', () => {
  it('answers a burst with 429, the documented body and X-RateLimit headers, and no error code', async () => {
    rig = await startRig({ rateLimit: { mode: 'enforce', limit: 2, windowMs: 5000 } });
    const { fake } = rig;
    const path = `/channels/${fake.defaults.otherChannelId}/messages`;
    const first = await api(fake, 'POST', path, { content: '1' });
    expect([first.status, first.headers.get('x-ratelimit-limit'), first.headers.get('x-ratelimit-remaining')]).toEqual([200, '2', '1']);
    await api(fake, 'POST', path, { content: '2' });
    const limited = await api(fake, 'POST', path, { content: '3' });
    const body = await limited.json() as Record<string, unknown>;
    expect(limited.status).toBe(429);
    expect(body).toEqual({ message: 'You are being rate limited.', retry_after: expect.any(Number), global: false });
    expect(body.retry_after as number).toBeGreaterThan(0);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('x-ratelimit-scope')).toBe('user');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    for (const h of ['x-ratelimit-reset', 'x-ratelimit-reset-after', 'x-ratelimit-bucket']) expect(limited.headers.get(h)).toBeTruthy();
    expect(fake.rateLimitHits).toMatchObject([{ channelId: fake.defaults.otherChannelId, enforced: true }]);
  });

  it('lets discord.js read the headers and queue ahead of the limit instead of hitting it', async () => {
    rig = await startRig({ rateLimit: { mode: 'enforce', limit: 2, windowMs: 300 } });
    const channel = rig.client.channels.cache.get(rig.fake.defaults.otherChannelId) as TextChannel;
    for (const n of [1, 2, 3, 4]) await channel.send(`burst ${n}`);
    expect(rig.fake.botMessages(channel.id)).toHaveLength(4);
    expect(rig.fake.rateLimitHits).toEqual([]);
  });

  it('answers past 50 requests in a second with the global 429 (X-RateLimit-Global, scope global), and counts invalid requests', async () => {
    rig = await startRig({ globalRateLimit: { mode: 'enforce' } });
    const { fake } = rig;
    fake.resetRestCalls();
    const statuses = await Promise.all(Array.from({ length: 55 }, () => api(fake, 'GET', '/users/@me')));
    const limited = statuses.filter((r) => r.status === 429);
    expect(statuses.filter((r) => r.status === 200).length).toBeLessThanOrEqual(50);
    expect(limited.length).toBeGreaterThanOrEqual(5);
    const body = await limited[0]!.json() as Record<string, unknown>;
    expect(body).toEqual({ message: 'You are being rate limited.', retry_after: expect.any(Number), global: true });
    expect(limited[0]!.headers.get('x-ratelimit-global')).toBe('true');
    expect(limited[0]!.headers.get('x-ratelimit-scope')).toBe('global');
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(fake.globalRateLimit.overLimit).toBe(limited.length);
    // Each 429 counts toward the 10,000-in-10-minutes invalid request limit; a wrong token too.
    await fetch(`${fake.apiUrl}/v10/users/@me`, { headers: { authorization: 'Bot wrong' } });
    expect(fake.globalRateLimit.invalidRequests).toBe(limited.length + 1);
  });

  it('does not bind interaction endpoints (callbacks, interaction webhooks) by the global limit, and counts them apart', async () => {
    rig = await startRig({ globalRateLimit: { mode: 'enforce', perSecond: 2 }, commands: [slash('ping')] });
    const { fake } = rig;
    let answered = 0;
    rig.handlers.set('ping', async (i) => {
      if (!i.isChatInputCommand()) return;
      await i.deferReply();
      await i.editReply('pong');
      answered++;
    });
    fake.resetRestCalls();
    for (let n = 0; n < 4; n++) fake.sendSlashCommand({ name: 'ping', channelId: fake.defaults.channelId });
    for (const deadline = Date.now() + 5_000; answered < 4 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 20));
    expect(answered).toBe(4);
    expect(rig.failures).toEqual([]);
    expect(fake.globalRateLimit.overLimit).toBe(0);
    expect(fake.restPeakPerSecond({ exempt: true })).toBe(8);
    expect(fake.restPeakPerSecond({ exempt: false })).toBe(0);
  });

  it('records typing indicators and each edit of a message with a timestamp', async () => {
    rig = await startRig();
    const { fake } = rig;
    await general(rig).sendTyping();
    await general(rig).sendTyping();
    const sent = await general(rig).send('v1');
    await sent.edit('v2');
    await sent.edit('v3');
    const typing = fake.typingIn(fake.defaults.channelId);
    const edits = fake.editTimestamps(sent.id);
    expect(typing).toHaveLength(2);
    expect(edits).toHaveLength(3);
    for (const list of [typing, edits]) expect([...list].sort((a, b) => a - b)).toEqual(list);
  });
});
