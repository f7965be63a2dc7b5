/**
 * What people do in Discord, turned into gateway events for the bot: interactions (INTERACTION_CREATE,
 * in a server or in a DM with the bot); messages typed by members are in member-messages.ts.
 */
import { performance } from 'node:perf_hooks';
import type { CommandOption, OptionValue } from './command-options.js';
import { OptionType } from './command-schema.js';
import type { FakeCore } from './core.js';
import { DM_PERMISSIONS } from './permissions.js';
import { ChannelKind, type FakeAttachment, type FakeChannel, type FakeInteraction } from './records.js';
import { attachmentJSON, channelJSON, memberJSON, messageJSON, roleJSON, userJSON } from './serialize.js';

type Json = Record<string, unknown>;

export interface InteractionBase {
  /** Defaults to the default text channel. Ignored with `dm`. */
  channelId?: string;
  /** Defaults to the default user (alice). */
  userId?: string;
  locale?: string;
  /** Invoke in the user's DM with the bot instead of a server channel. */
  dm?: boolean;
}

export interface SlashCommandInput extends InteractionBase {
  name: string;
  /** A subcommand group and/or subcommand to pick; `options` are then that subcommand's. */
  group?: string;
  subcommand?: string;
  /**
   * `{ question: 'hi' }` (types come from the registered schema; an attachment option takes
   * `{ filename, data, contentType? }`), or Discord's option array (subcommands nested as Discord sends them).
   */
  options?: Record<string, OptionValue> | CommandOption[];
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

/** Discord's option tree from either input form, with the focused option marked. */
export function givenOptions(input: SlashCommandInput, focused?: string): CommandOption[] {
  const mark = (list: CommandOption[]): CommandOption[] => list.map((o) => ({
    ...o, ...(o.options ? { options: mark(o.options) } : {}), ...(o.name === focused && !o.options ? { focused: true } : {}),
  }));
  let list: CommandOption[] = Array.isArray(input.options)
    ? input.options
    : Object.entries(input.options ?? {}).map(([name, value]) => ({ name, value }));
  if (input.subcommand) list = [{ name: input.subcommand, options: list }];
  if (input.group) list = [{ name: input.group, options: list }];
  return mark(list);
}

export interface InteractionKind {
  type: 2 | 3 | 4 | 5;
  commandType?: number | null;
  data: Json;
  commandName: string | null;
  customId: string | null;
  options: CommandOption[];
  messageId: string | null;
}

export function dispatchInteraction(core: FakeCore, kind: InteractionKind, where: { channel: FakeChannel; userId: string; locale?: string }): FakeInteraction {
  const { channel, userId } = where;
  const dm = channel.type === ChannelKind.DM;
  const user = core.world.users.get(userId);
  const member = channel.guildId ? core.world.member(channel.guildId, userId) : undefined;
  if (!user || (!dm && !member)) throw new Error(`fake-discord: user ${userId} is not a member of guild ${channel.guildId}`);
  const id = core.world.nextId();
  const record: FakeInteraction = {
    id, token: `fake-interaction-token.${id}`, type: kind.type, commandType: kind.commandType ?? null, context: dm ? 1 : 0,
    commandName: kind.commandName, customId: kind.customId, options: kind.options, channelId: channel.id,
    guildId: channel.guildId, userId, messageId: kind.messageId, dispatchedAt: 0, acknowledged: false, ackType: null,
    ackLatencyMs: null, ackedAt: null, expired: false, ephemeral: false, callbacks: [], originalMessageId: null,
    followupIds: [], autocompleteChoices: null, modal: undefined,
  };
  const appPerms = dm ? DM_PERMISSIONS : core.world.permissionsIn(channel.id, core.botId);
  const userPerms = core.world.permissionsIn(channel.id, userId).toString();
  // receiving-and-responding.mdx, Interaction Structure: `member` in a guild, `user` in a DM; no
  // guild fields in DMs; GUILD_INSTALL's owner is "0" for a DM with the bot.
  const payload: Json = {
    id, application_id: core.settings.applicationId, type: kind.type, token: record.token, version: 1, data: kind.data,
    channel_id: channel.id, channel: dm ? channelJSON(core.world, channel) : { ...channelJSON(core.world, channel), permissions: userPerms },
    app_permissions: appPerms.toString(), locale: where.locale ?? 'en-US', entitlements: [],
    authorizing_integration_owners: { 0: channel.guildId ?? '0' }, context: dm ? 1 : 0,
    attachment_size_limit: core.settings.attachmentSizeLimit,
    ...(dm
      ? { user: userJSON(user) }
      : {
        guild_id: channel.guildId, guild: { id: channel.guildId, locale: 'en-US', features: [] }, guild_locale: 'en-US',
        member: { ...memberJSON(core.world, member!), permissions: userPerms },
      }),
  };
  if (kind.messageId) {
    const m = core.message(channel.id, kind.messageId);
    payload.message = messageJSON(core.world, m, { applicationId: core.settings.applicationId, interactions: core.interactions, cdn: core.cdn });
  }
  core.interactions.set(id, record);
  record.dispatchedAt = performance.now();
  const sent = core.gateway?.dispatch('INTERACTION_CREATE', payload, { guildId: channel.guildId ?? undefined }) ?? 0;
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

/** `resolved` for the users, members, channels, roles and attachments an interaction's options name. */
export function resolvedFor(core: FakeCore, channel: FakeChannel, refs: Array<{ type: number; id: string }>, uploads: FakeAttachment[] = []): Json | undefined {
  const out: Record<string, Json> = { users: {}, members: {}, channels: {}, roles: {}, attachments: {} };
  const { world } = core;
  for (const { type, id } of refs) {
    if (type === OptionType.User || type === OptionType.Mentionable) {
      const u = world.users.get(id);
      const m = channel.guildId ? world.member(channel.guildId, id) : undefined;
      if (u) out.users![id] = userJSON(u);
      if (m) out.members![id] = { ...memberJSON(world, m, false), permissions: world.permissionsIn(channel.id, id).toString() };
    }
    const c = world.channels.get(id);
    if (type === OptionType.Channel && c) out.channels![id] = { ...channelJSON(world, c), permissions: world.permissionsIn(c.id, core.botId).toString() };
    const r = world.roles.get(id);
    if (type === OptionType.Role && r) out.roles![id] = roleJSON(r);
  }
  for (const a of uploads) out.attachments![a.id] = attachmentJSON(a, core.cdn);
  const filled = Object.entries(out).filter(([, v]) => Object.keys(v).length > 0);
  return filled.length > 0 ? Object.fromEntries(filled) : undefined;
}
