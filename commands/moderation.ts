/**
 * What `/tools` and `/settings` share: the run-time moderator check, and saving a change together with
 * its audit entry, then posting it to the log channel. Discord server admins can make a command with a
 * default member permission visible to anyone, so the registration alone is not a guard.
 */
import { MessageFlags, PermissionFlagsBits, type ChatInputCommandInteraction } from 'discord.js';
import type { BotServices } from '../src/discord/services.js';
import { displayNameOf } from '../src/discord/interaction-info.js';
import { NO_MENTIONS } from '../src/discord/turn-target.js';
import { describeError } from '../src/errors.js';
import { logChannelLine, withAuditEntry, type ChangeRecord } from '../src/policy/index.js';
import type { GuildSettings } from '../src/state/index.js';

/** What saving a moderator's change needs. */
export type ModerationServices = Pick<BotServices, 'guildSettings' | 'logger' | 'now'>;

/**
 * True if the member may moderate the bot (Manage Server). Otherwise the member gets an ephemeral
 * refusal that says why and that nothing changed, and the caller must stop.
 */
export async function allowModerator(interaction: ChatInputCommandInteraction, command: string): Promise<boolean> {
  if (interaction.inGuild() && interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild)) return true;
  const content = interaction.inGuild()
    ? `Only members with the **Manage Server** permission can use \`/${command}\`. Nothing was changed; ask a moderator if a tool or setting should be different here.`
    : `\`/${command}\` works inside a server.`;
  await interaction.reply({ content, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
  return false;
}

/** A change to save: what it does to the settings, and how the audit log describes it. */
export interface SettingsChange {
  action: string;
  detail: string;
  apply(settings: GuildSettings): GuildSettings;
}

/** The saved settings, plus a note for the moderator if the log channel could not be told. */
export interface SavedChange {
  settings: GuildSettings;
  logNote: string;
}

/**
 * Save a change and its audit entry in one serialized update, then post it to the log channel. On a
 * storage failure the moderator is told nothing changed (via editReply: callers defer first) and the
 * result is undefined.
 */
export async function saveChange(ctx: ModerationServices, interaction: ChatInputCommandInteraction<'cached' | 'raw'>, change: SettingsChange): Promise<SavedChange | undefined> {
  const record: ChangeRecord = {
    actorId: interaction.user.id,
    actorName: displayNameOf(interaction.member, interaction.user),
    action: change.action,
    detail: change.detail,
  };
  let settings: GuildSettings;
  let previousLogChannel: string | undefined;
  try {
    settings = await ctx.guildSettings.update(interaction.guildId, (current) => {
      previousLogChannel = current.logChannelId;
      return withAuditEntry(change.apply(current), record, ctx.now().getTime());
    });
  } catch (error) {
    ctx.logger.error({ err: error, interactionId: interaction.id, guildId: interaction.guildId, action: change.action }, 'could not save a moderator change');
    await interaction.editReply({ content: `❌ I could not save that (${describeError(error)}). Nothing was changed; try again in a moment.`, allowedMentions: NO_MENTIONS });
    return undefined;
  }
  // Clearing the log channel is still posted to the old one, so its readers know why it went quiet.
  const logNote = await postToLogChannel(ctx, interaction, settings.logChannelId ?? previousLogChannel, logChannelLine(record));
  return { settings, logNote };
}

/** Post to the log channel; '' on success or when none is set, else a note saying why it failed. */
export async function postToLogChannel(ctx: Pick<BotServices, 'logger'>, interaction: ChatInputCommandInteraction, channelId: string | undefined, content: string): Promise<string> {
  if (!channelId) return '';
  try {
    const channel = await interaction.client.channels.fetch(channelId);
    if (!channel?.isSendable()) throw new Error('it is not a channel I can post in');
    await channel.send({ content, allowedMentions: NO_MENTIONS });
    return '';
  } catch (error) {
    ctx.logger.warn({ err: error, guildId: interaction.guildId, logChannelId: channelId }, 'could not post to the log channel');
    return `\n-# ⚠️ The change is saved and in \`/tools audit\`, but I could not post it to <#${channelId}> (${describeError(error)}). Check my permissions there or set another log channel.`;
  }
}
