/**
 * Channel messages: create (JSON or multipart with files), fetch, list, edit, delete, react, with the
 * limitations of docs/resources/message.mdx: Send Messages (Send Messages in Threads) to post, Attach
 * Files to upload, Read Message History to reply or read one message; a history read without Read
 * Message History returns no messages rather than an error. Thread state follows docs/topics/threads.md.
 */
import { errors } from '../api-error.js';
import type { FakeCore } from '../core.js';
import { json, noContent, type RouteDef } from '../http.js';
import { Permission } from '../permissions.js';
import { ChannelKind, type FakeChannel } from '../records.js';
import { isThreadOnly } from '../world.js';

type Json = Record<string, unknown>;

const hasReply = (body: Json) => {
  const ref = body.message_reference as Json | undefined;
  return ref !== undefined && ref !== null && typeof ref === 'object' && ref.message_id !== undefined;
};

export function messageRoutes(core: FakeCore): RouteDef[] {
  const readable = (channel: FakeChannel) => core.requireBotPermissions(channel, Permission.ViewChannel | Permission.ReadMessageHistory);
  return [
    {
      method: 'POST', pattern: '/channels/:channelId/messages', auth: true,
      handle: ({ params, body, files }) => {
        const channel = core.channel(params.channelId!);
        if (channel.type === ChannelKind.GuildCategory) throw errors.wrongChannelType();
        // threads.mdx, Forums: "Messages cannot be sent directly in forum channels" (nor media channels).
        if (isThreadOnly(channel)) throw errors.nonTextChannel();
        const send = channel.thread ? Permission.SendMessagesInThreads : Permission.SendMessages;
        // message.mdx, Create Message limitations: replies need Read Message History; files need Attach Files.
        const needed = send | (files.length > 0 ? Permission.AttachFiles : 0n) | (hasReply(body) ? Permission.ReadMessageHistory : 0n);
        core.requireBotPermissions(channel, needed);
        core.prepareThreadForSend(channel);
        const headers = core.rateLimiter.take(channel.id);
        const message = core.buildMessage({ channel, authorId: core.botId, body, files, source: 'channel' });
        return { ...json(core.messageOut(core.commit(message))), headers };
      },
    },
    {
      method: 'GET', pattern: '/channels/:channelId/messages', auth: true,
      handle: ({ params, query }) => {
        const channel = core.channel(params.channelId!);
        core.requireBotPermissions(channel, Permission.ViewChannel);
        // "If the current user is missing the READ_MESSAGE_HISTORY permission in the channel, then no
        // messages will be returned" (message.mdx, Get Channel Messages).
        if (!core.botHas(channel, Permission.ReadMessageHistory)) return json([]);
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
        core.requireActiveThread(channel, 'edit');
        if (files.length > 0) core.requireBotPermissions(channel, Permission.AttachFiles);
        return json(core.messageOut(core.edit(message, body, { files, via: 'message' })));
      },
    },
    {
      method: 'DELETE', pattern: '/channels/:channelId/messages/:messageId', auth: true,
      handle: ({ params }) => {
        const channel = core.channel(params.channelId!);
        const message = core.message(channel.id, params.messageId!);
        if (message.authorId !== core.botId) core.requireBotPermissions(channel, Permission.ManageMessages);
        // threads.md: deleting in a locked thread is only allowed while it is active.
        const t = channel.thread;
        if (t?.locked && t.archived && !core.botHas(channel, Permission.ManageThreads)) throw errors.archivedThread();
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
        core.requireActiveThread(channel, 'react');
        if (!message.reactions.includes(params.emoji!)) message.reactions.push(params.emoji!);
        return noContent();
      },
    },
    {
      method: 'DELETE', pattern: '/channels/:channelId/messages/:messageId/reactions/:emoji/@me', auth: true,
      handle: ({ params }) => {
        const channel = core.channel(params.channelId!);
        const message = core.message(channel.id, params.messageId!);
        core.requireActiveThread(channel, 'react');
        message.reactions = message.reactions.filter((e) => e !== params.emoji);
        return noContent();
      },
    },
  ];
}
