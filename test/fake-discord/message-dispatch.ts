/**
 * How messages reach the bot: MESSAGE_CREATE / MESSAGE_UPDATE per gateway session (content hidden
 * without the Message Content intent unless the bot may read it), MESSAGE_DELETE and
 * MESSAGE_DELETE_BULK with ids only (gateway-events.mdx), and the REST view of a message.
 */
import type { FakeCore } from './core.js';
import { type GatewaySession, Intent } from './gateway.js';
import { type FakeMessage, MessageFlag } from './records.js';
import { messageJSON } from './serialize.js';

type Json = Record<string, unknown>;

/**
 * gateway.mdx, Message Content Intent: without it an app still gets "content in messages that an app
 * sends", "content in DMs with the app" and "content in which the app is mentioned". Mentioned means
 * in `mentions`: a `<@id>`/`<@!id>` that pings, or a reply that pings the bot. A reply with the ping
 * turned off, @everyone, or a role the bot has does not count (the docs name only the app itself).
 */
export function botCanRead(core: FakeCore, m: FakeMessage): boolean {
  return m.authorId === core.botId || m.pings.users.includes(core.botId) || m.guildId === null;
}

/** A message as the REST API returns it to this app: hidden only when the app has the intent disabled. */
export function restMessageJSON(core: FakeCore, m: FakeMessage): Json {
  const hides = (x: FakeMessage) => !core.settings.messageContentEnabled && !botCanRead(core, x);
  return messageJSON(core.world, m, {
    applicationId: core.settings.applicationId, interactions: core.interactions, hideContent: hides(m), hides, cdn: core.cdn,
  });
}

/**
 * MESSAGE_CREATE / MESSAGE_UPDATE to each session with the right intent: GUILD_MESSAGES in a server,
 * DIRECT_MESSAGES in a DM. The payload adds `member` and `channel_type` (gateway-events.mdx, Message
 * Create Extra Fields); a session without MESSAGE_CONTENT gets the content only where `botCanRead`.
 */
export function dispatchMessage(core: FakeCore, t: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE', m: FakeMessage): void {
  const channelType = core.world.channels.get(m.channelId)?.type;
  core.gateway?.dispatch(t, (s: GatewaySession) => {
    const hides = (x: FakeMessage) => (s.intents & Intent.MessageContent) === 0 && !botCanRead(core, x);
    return {
      ...messageJSON(core.world, m, {
        applicationId: core.settings.applicationId, interactions: core.interactions, withMember: true, cdn: core.cdn,
        hideContent: hides(m), hides,
      }),
      ...(channelType === undefined ? {} : { channel_type: channelType }),
    };
  }, { guildId: m.guildId ?? undefined, intent: m.guildId ? Intent.GuildMessages : Intent.DirectMessages });
}

/**
 * Marks messages deleted and tells the bot: one message is MESSAGE_DELETE, several of one channel
 * MESSAGE_DELETE_BULK; both carry only ids (gateway-events.mdx, Message Delete / Message Delete Bulk).
 * Ephemeral messages, which no one else saw, are not announced.
 */
export function removeMessages(core: FakeCore, messages: FakeMessage[]): void {
  for (const message of messages) {
    message.deleted = true;
    const channel = core.world.channels.get(message.channelId);
    const counted = (message.flags & MessageFlag.Ephemeral) === 0 && message.counted !== false;
    if (channel && counted && channel.messageCount > 0) channel.messageCount -= 1;
  }
  const shown = messages.filter((m) => (m.flags & MessageFlag.Ephemeral) === 0);
  const first = shown[0];
  if (first) {
    const where = { channel_id: first.channelId, ...(first.guildId ? { guild_id: first.guildId } : {}) };
    const scope = { guildId: first.guildId ?? undefined, intent: first.guildId ? Intent.GuildMessages : Intent.DirectMessages };
    if (shown.length === 1) core.gateway?.dispatch('MESSAGE_DELETE', { id: first.id, ...where }, scope);
    else core.gateway?.dispatch('MESSAGE_DELETE_BULK', { ids: shown.map((m) => m.id), ...where }, scope);
  }
  for (const message of messages) core.emit({ kind: 'message', action: 'delete', message });
}
