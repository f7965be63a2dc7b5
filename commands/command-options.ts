/**
 * Reading `/tools` and `/settings` options: the tool name (checked against the toolbox), the rule
 * target from the channel and role options (a category channel is a category target; a thread counts
 * as its parent), and the place and roles that `/tools list` should explain.
 */
import { ChannelType, type ChatInputCommandInteraction } from 'discord.js';
import type { ToolDefinition } from '../src/agent/tool.js';
import { roleIdsOf, ruleChannel } from '../src/discord/members.js';
import type { AccessScope, RuleTarget } from '../src/policy/index.js';
import { chooseTool, EVERYONE_ROLE_PROBLEM } from '../src/discord/text/choice-answers.js';

/** Channel kinds a rule or setting can name. Threads are left out: rules apply to their parent. */
export const RULE_CHANNEL_TYPES = [ChannelType.GuildText, ChannelType.GuildAnnouncement, ChannelType.GuildForum, ChannelType.GuildCategory] as const;

/** A problem with the options, to show the moderator; nothing is changed. */
export class OptionProblem extends Error {}

/** The named tool, or an OptionProblem listing the valid names (the wording is the console's too). */
export function toolOption(interaction: ChatInputCommandInteraction, tools: readonly ToolDefinition[], required: true): string;
export function toolOption(interaction: ChatInputCommandInteraction, tools: readonly ToolDefinition[], required: false): string | undefined;
export function toolOption(interaction: ChatInputCommandInteraction, tools: readonly ToolDefinition[], required: boolean): string | undefined {
  const typed = interaction.options.getString('tool', required)?.trim();
  if (!typed) return undefined;
  const chosen = chooseTool(tools.map((t) => t.name), typed);
  if (!chosen.ok) throw new OptionProblem(chosen.problem);
  return chosen.name;
}

/** A channel option as a place: its own id and its category (or, for a category, just the category). */
export async function placeOption(interaction: ChatInputCommandInteraction, name = 'channel'): Promise<{ channelId?: string; categoryId?: string } | undefined> {
  const option = interaction.options.getChannel(name);
  if (!option) return undefined;
  if (option.type === ChannelType.GuildCategory) return { categoryId: option.id };
  // The resolved option carries no parent for ordinary channels; the client's cache (Guilds intent) does.
  const channel = interaction.client.channels.cache.get(option.id) ?? (await interaction.client.channels.fetch(option.id).catch(() => null));
  if (channel?.isThread()) {
    const parent = ruleChannel(channel);
    return { channelId: parent.channelId, ...(parent.categoryId ? { categoryId: parent.categoryId } : {}) };
  }
  const parentId = channel && 'parentId' in channel ? channel.parentId : null;
  return { channelId: option.id, ...(parentId ? { categoryId: parentId } : {}) };
}

/** The target of an enable/disable/reset: server (nothing given), a channel or category, and/or a role. */
export async function targetOption(interaction: ChatInputCommandInteraction): Promise<RuleTarget> {
  const role = interaction.options.getRole('role');
  if (role && role.id === interaction.guildId) {
    throw new OptionProblem(EVERYONE_ROLE_PROBLEM);
  }
  const place = await placeOption(interaction);
  // A channel target is that channel alone; its category only matters when explaining, not as the target.
  const target: RuleTarget = place?.channelId ? { channelId: place.channelId } : place?.categoryId ? { categoryId: place.categoryId } : {};
  return role ? { ...target, roleId: role.id } : target;
}

/** What `/tools list` explains: the given place or here, for the given role or the invoking member. */
export async function listScopeOption(interaction: ChatInputCommandInteraction): Promise<{ scope: AccessScope; who: string; where: string }> {
  const place = await placeOption(interaction);
  const role = interaction.options.getRole('role');
  const here = ruleChannel(interaction.channel);
  const channelId = place ? (place.channelId ?? '') : here.channelId;
  const categoryId = place ? (place.categoryId ?? null) : here.categoryId;
  const scope: AccessScope = { channelId, categoryId, roleIds: role ? [role.id] : roleIdsOf(interaction.member) };
  return {
    scope,
    who: role ? `a member whose only role is <@&${role.id}>` : 'you',
    where: channelId ? `<#${channelId}>` : `category <#${categoryId}>`,
  };
}
