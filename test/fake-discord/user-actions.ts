/**
 * What people do in Discord, turned into gateway events for the bot: slash commands, autocomplete,
 * button and select clicks (INTERACTION_CREATE) and plain messages (MESSAGE_CREATE).
 */
import { performance } from 'node:perf_hooks';
import type { FakeCore } from './core.js';
import type { FakeInteraction, FakeMessage } from './records.js';
import { channelJSON, memberJSON, messageJSON, roleJSON, userJSON } from './serialize.js';

type Json = Record<string, unknown>;

/** A command option as Discord sends it (type 3 string, 4 integer, 5 boolean, 6 user, 7 channel, 8 role, 10 number). */
export interface CommandOption {
  name: string;
  type: number;
  value?: string | number | boolean;
  options?: CommandOption[];
  focused?: boolean;
}

export interface InteractionBase {
  /** Defaults to the default text channel. */
  channelId?: string;
  /** Defaults to the default user (alice). */
  userId?: string;
  locale?: string;
}

export interface SlashCommandInput extends InteractionBase {
  name: string;
  /** Either `{ question: 'hi' }` (types inferred) or Discord's option array (for subcommands etc.). */
  options?: Record<string, string | number | boolean> | CommandOption[];
}

export interface AutocompleteInput extends SlashCommandInput {
  /** The option being typed in; its value is the partial input. */
  focused: string;
}

export interface ComponentInput extends InteractionBase {
  messageId: string;
  customId: string;
  /** 2 button (default), 3 string select, ... */
  componentType?: number;
  values?: string[];
}

export interface UserMessageInput {
  channelId?: string;
  userId?: string;
  content: string;
  /** Prefix the content with a mention of the bot. */
  mentionBot?: boolean;
  /** Reply to this message (pings its author, as the Discord client does by default). */
  replyTo?: string;
  files?: Array<{ filename: string; data: Buffer | string; contentType?: string }>;
}

export function normalizeOptions(options: SlashCommandInput['options'], focused?: string): CommandOption[] {
  const list: CommandOption[] = Array.isArray(options)
    ? options
    : Object.entries(options ?? {}).map(([name, value]) => ({
      name, value,
      type: typeof value === 'boolean' ? 5 : typeof value === 'number' ? (Number.isInteger(value) ? 4 : 10) : 3,
    }));
  return list.map((o) => (o.name === focused ? { ...o, focused: true } : o));
}

export function dispatchInteraction(
  core: FakeCore,
  kind: { type: 2 | 3 | 4; data: Json; commandName: string | null; customId: string | null; options: CommandOption[]; messageId: string | null },
  base: InteractionBase & { defaultChannelId: string; defaultUserId: string },
): FakeInteraction {
  const channel = core.channel(base.channelId ?? base.defaultChannelId);
  const userId = base.userId ?? base.defaultUserId;
  const member = core.world.member(channel.guildId, userId);
  if (!member) throw new Error(`fake-discord: user ${userId} is not a member of guild ${channel.guildId}`);
  const id = core.world.nextId();
  const record: FakeInteraction = {
    id, token: `fake-interaction-token.${id}`, type: kind.type, commandName: kind.commandName, customId: kind.customId,
    options: kind.options, channelId: channel.id, guildId: channel.guildId, userId, messageId: kind.messageId,
    dispatchedAt: 0, acknowledged: false, ackType: null, ackLatencyMs: null, expired: false, ephemeral: false,
    callbacks: [], originalMessageId: null, followupIds: [], autocompleteChoices: null, modal: undefined,
  };
  const userPerms = core.world.permissionsIn(channel.id, userId).toString();
  const payload: Json = {
    id, application_id: core.settings.applicationId, type: kind.type, token: record.token, version: 1,
    data: kind.data, guild_id: channel.guildId, guild: { id: channel.guildId, locale: 'en-US', features: [] },
    channel_id: channel.id, channel: { ...channelJSON(core.world, channel), permissions: userPerms },
    member: { ...memberJSON(core.world, member), permissions: userPerms },
    app_permissions: core.world.permissionsIn(channel.id, core.botId).toString(),
    locale: base.locale ?? 'en-US', guild_locale: 'en-US', entitlements: [],
    authorizing_integration_owners: { 0: channel.guildId }, context: 0, attachment_size_limit: core.settings.attachmentSizeLimit,
  };
  if (kind.messageId) {
    const m = core.message(channel.id, kind.messageId);
    payload.message = messageJSON(core.world, m, { applicationId: core.settings.applicationId, interactions: core.interactions });
  }
  core.interactions.set(id, record);
  record.dispatchedAt = performance.now();
  const sent = core.gateway?.dispatch('INTERACTION_CREATE', payload, { guildId: channel.guildId }) ?? 0;
  if (sent === 0) throw new Error('fake-discord: no gateway session to receive INTERACTION_CREATE — log the client in first');
  const timer = setTimeout(() => {
    core.timers.delete(timer);
    if (record.acknowledged) return;
    record.expired = true;
    core.emit({ kind: 'interaction', action: 'expire', interaction: record });
  }, core.settings.ackDeadlineMs);
  timer.unref();
  core.timers.add(timer);
  core.emit({ kind: 'interaction', action: 'dispatch', interaction: record });
  return record;
}

/** `resolved` data for user, channel and role options, as Discord includes it. */
export function resolvedFor(core: FakeCore, guildId: string, options: CommandOption[]): Json | undefined {
  const users: Json = {};
  const members: Json = {};
  const channels: Json = {};
  const roles: Json = {};
  const walk = (list: CommandOption[]) => list.forEach((o) => {
    const id = String(o.value);
    if (o.type === 6 || o.type === 9) {
      const u = core.world.users.get(id);
      const m = core.world.member(guildId, id);
      if (u) users[id] = userJSON(u);
      if (m) members[id] = { ...memberJSON(core.world, m, false), permissions: '0' };
    }
    if (o.type === 7 && core.world.channels.has(id)) channels[id] = { ...channelJSON(core.world, core.world.channels.get(id)!), permissions: '0' };
    if ((o.type === 8 || o.type === 9) && core.world.roles.has(id)) roles[id] = roleJSON(core.world.roles.get(id)!);
    if (o.options) walk(o.options);
  });
  walk(options);
  const out = Object.fromEntries(Object.entries({ users, members, channels, roles }).filter(([, v]) => Object.keys(v).length > 0));
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Builds, stores and dispatches a message typed by a user. */
export function userMessage(core: FakeCore, input: UserMessageInput & { channelId: string; userId: string }): FakeMessage {
  const channel = core.channel(input.channelId);
  if (channel.thread?.archived) {
    if (channel.thread.locked) throw new Error(`fake-discord: thread ${channel.id} is archived and locked; members cannot post`);
    channel.thread.archived = false;
    channel.thread.archiveTimestamp = new Date().toISOString();
    core.dispatchThread('THREAD_UPDATE', channel);
  }
  const content = input.mentionBot ? `<@${core.botId}> ${input.content}` : input.content;
  const files = (input.files ?? []).map((f, index) => {
    const data = typeof f.data === 'string' ? Buffer.from(f.data) : f.data;
    return { field: `files[${index}]`, index, filename: f.filename, size: data.length, contentType: f.contentType ?? null, data };
  });
  const message = core.buildMessage({
    channel, authorId: input.userId, files, source: 'user',
    body: { content, ...(input.replyTo ? { message_reference: { message_id: input.replyTo } } : {}) },
  });
  return core.commit(message);
}
