/**
 * Channel messages: create (JSON or multipart with files), fetch, list, edit, delete, react.
 * Sending checks the bot's permissions, thread state and the per-channel rate-limit model.
 */
import { errors } from '../api-error.js';
import type { FakeCore } from '../core.js';
import { json, noContent, type RouteDef } from '../http.js';
import { Permission } from '../permissions.js';
import type { FakeChannel } from '../records.js';

export function messageRoutes(core: FakeCore): RouteDef[] {
  const readable = (channel: FakeChannel) => core.requireBotPermissions(channel, Permission.ViewChannel | Permission.ReadMessageHistory);
  return [
    {
      method: 'POST', pattern: '/channels/:channelId/messages', auth: true,
      handle: ({ params, body, files }) => {
        const channel = core.channel(params.channelId!);
        if (channel.type === 4) throw errors.wrongChannelType();
        const send = channel.thread ? Permission.SendMessagesInThreads : Permission.SendMessages;
        core.requireBotPermissions(channel, send | (files.length > 0 ? Permission.AttachFiles : 0n));
        core.prepareThreadForSend(channel);
        core.checkRateLimit(channel.id);
        const message = core.buildMessage({ channel, authorId: core.botId, body, files, source: 'channel' });
        return json(core.messageOut(core.commit(message)));
      },
    },
    {
      method: 'GET', pattern: '/channels/:channelId/messages', auth: true,
      handle: ({ params, query }) => {
        const channel = core.channel(params.channelId!);
        readable(channel);
        const limit = Math.min(Math.max(Number(query.get('limit') ?? 50) || 50, 1), 100);
        const before = query.get('before');
        const after = query.get('after');
        let list = core.world.messagesIn(channel.id).filter((m) => !m.deleted && (m.flags & 64) === 0);
        if (before) list = list.filter((m) => BigInt(m.id) < BigInt(before));
        if (after) list = list.filter((m) => BigInt(m.id) > BigInt(after));
        const page = after ? list.slice(0, limit) : list.slice(-limit);
        return json(page.reverse().map((m) => core.messageOut(m)));
      },
    },
    {
      method: 'GET', pattern: '/channels/:channelId/messages/:messageId', auth: true,
      handle: ({ params }) => {
        const channel = core.channel(params.channelId!);
        readable(channel);
        return json(core.messageOut(core.message(channel.id, params.messageId!)));
      },
    },
    {
      method: 'PATCH', pattern: '/channels/:channelId/messages/:messageId', auth: true,
      handle: ({ params, body, files }) => {
        const channel = core.channel(params.channelId!);
        const message = core.message(channel.id, params.messageId!);
        if (message.authorId !== core.botId) throw errors.cannotEditOthers();
        if (channel.thread?.archived) throw errors.archivedThread();
        return json(core.messageOut(core.edit(message, body, files)));
      },
    },
    {
      method: 'DELETE', pattern: '/channels/:channelId/messages/:messageId', auth: true,
      handle: ({ params }) => {
        const channel = core.channel(params.channelId!);
        const message = core.message(channel.id, params.messageId!);
        if (message.authorId !== core.botId) core.requireBotPermissions(channel, Permission.ManageMessages);
        core.remove(message);
        return noContent();
      },
    },
    {
      method: 'PUT', pattern: '/channels/:channelId/messages/:messageId/reactions/:emoji/@me', auth: true,
      handle: ({ params }) => {
        const channel = core.channel(params.channelId!);
        const message = core.message(channel.id, params.messageId!);
        core.requireBotPermissions(channel, Permission.ReadMessageHistory | Permission.AddReactions);
        if (!message.reactions.includes(params.emoji!)) message.reactions.push(params.emoji!);
        return noContent();
      },
    },
    {
      method: 'DELETE', pattern: '/channels/:channelId/messages/:messageId/reactions/:emoji/@me', auth: true,
      handle: ({ params }) => {
        const message = core.message(core.channel(params.channelId!).id, params.messageId!);
        message.reactions = message.reactions.filter((e) => e !== params.emoji);
        return noContent();
      },
    },
  ];
}
