/**
 * What the moderation commands (`/tools`, `/settings`, `/kb`) share: the run-time moderator check, and
 * recording a change in the audit log (with the settings it changes, if any), then posting it to the
 * log channel. Discord server admins can make a command with a default member permission visible to
 * anyone, so the registration alone is not a guard.
 */
import { MessageFlags, PermissionFlagsBits, type CommandInteraction } from 'discord.js';
import type { RuleServices, Runtime } from '../src/discord/services.js';
import { displayNameOf, NO_MENTIONS } from '../src/discord/members.js';
import { describeError } from '../src/errors.js';
import { postToLogChannel, recordAudit } from '../src/discord/rules/audit-trail.js';
import type { ChangeRecord } from '../src/policy/index.js';
import { logChannelLine } from '../src/discord/text/audit-text.js';
import type { GuildSettings } from '../src/state/index.js';

/** A slash or context-menu command used in a server. */
type GuildCommand = CommandInteraction<'cached' | 'raw'>;

/** How a refusal names the command and what it suggests instead. */
export interface ModeratorCheckText {
  /** Shown for the command (default `` `/command` ``), e.g. `**Add to knowledge base**`. */
  label?: string;
  /** What to do instead (default: ask a moderator if a tool or setting should be different here). */
  hint?: string;
}

/**
 * True if the member may moderate the bot (Manage Server). Otherwise the member gets an ephemeral
 * refusal that says why and that nothing changed, and the caller must stop.
 */
export async function allowModerator(interaction: CommandInteraction, command: string, text: ModeratorCheckText = {}): Promise<boolean> {
  if (interaction.inGuild() && interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild)) return true;
  const label = text.label ?? `\`/${command}\``;
  const hint = text.hint ?? 'ask a moderator if a tool or setting should be different here';
  const content = interaction.inGuild()
    ? `Only members with the **Manage Server** permission can use ${label}. Nothing was changed; ${hint}.`
    : `${label} works inside a server.`;
  await interaction.reply({ content, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
  return false;
}

/** What saving a moderator's change needs. */
export type ModerationServices = { rules: Pick<RuleServices, 'store'>; runtime: Pick<Runtime, 'logger' | 'now'> };

/** What the audit trail needs of the moderation services. */
const auditDeps = (ctx: ModerationServices) => ({ guildSettings: ctx.rules.store, now: ctx.runtime.now });

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

/** The audit record of what the member who used the command did. */
function changeRecord(interaction: GuildCommand, action: string, detail: string): ChangeRecord {
  return { actorId: interaction.user.id, actorName: displayNameOf(interaction.member, interaction.user), action, detail };
}

/**
 * Save a change and its audit entry in one serialized update, then post it to the log channel. On a
 * storage failure the moderator is told nothing changed (via editReply: callers defer first) and the
 * result is undefined.
 */
export async function saveChange(ctx: ModerationServices, interaction: GuildCommand, change: SettingsChange): Promise<SavedChange | undefined> {
  const record = changeRecord(interaction, change.action, change.detail);
  let written;
  try {
    written = await recordAudit(auditDeps(ctx), interaction.guildId, record, change.apply);
  } catch (error) {
    ctx.runtime.logger.error({ err: error, interactionId: interaction.id, guildId: interaction.guildId, action: change.action }, 'could not save a moderator change');
    await interaction.editReply({ content: `❌ I could not save that (${describeError(error)}). Nothing was changed; try again in a moment.`, allowedMentions: NO_MENTIONS });
    return undefined;
  }
  const logNote = await postToLogChannel(ctx.runtime.logger, interaction.client, interaction.guildId, written.logChannelId, logChannelLine(record));
  return { settings: written.settings, logNote };
}

/**
 * Record an action that changed something outside the settings (the knowledge base) after it was done:
 * an audit entry, then the log channel post. Resolves with '' or a note for the moderator saying what
 * could not be recorded; the action itself stands either way.
 */
export async function auditAction(ctx: ModerationServices, interaction: GuildCommand, action: string, detail: string): Promise<string> {
  const record = changeRecord(interaction, action, detail);
  let written;
  try {
    written = await recordAudit(auditDeps(ctx), interaction.guildId, record);
  } catch (error) {
    ctx.runtime.logger.error({ err: error, interactionId: interaction.id, guildId: interaction.guildId, action }, 'could not record a moderator action in the audit log');
    return `\n-# ⚠️ Done, but I could not record it in the audit log (${describeError(error)}), so it is not in \`/tools audit\` or the log channel.`;
  }
  return postToLogChannel(ctx.runtime.logger, interaction.client, interaction.guildId, written.logChannelId, logChannelLine(record));
}
