/**
 * What the moderation commands (`/tools`, `/settings`, `/kb`) share: the run-time moderator check, the
 * member as the audit log names them, and what a moderator hears when a change or its audit entry
 * cannot be saved. The change itself and its audit line are the rules object's (its named writes audit
 * themselves). Discord server admins can make a command with a default member permission visible to
 * anyone, so the registration alone is not a guard.
 */
import { MessageFlags, PermissionFlagsBits, type CommandInteraction } from 'discord.js';
import type { RuleServices, Runtime } from '../src/discord/services.js';
import { displayNameOf, NO_MENTIONS } from '../src/discord/members.js';
import type { Actor } from '../src/discord/rules/audit-trail.js';
import { auditNote } from '../src/discord/schedules/schedule-changes.js';
import { saveFailed } from '../src/discord/text/choice-answers.js';

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

/** What recording a moderator's action needs. */
export type ModerationServices = { rules: Pick<RuleServices, 'recordAction'>; runtime: Pick<Runtime, 'logger'> };

/** The member who used the command, as the audit log names them. */
export function actorOf(interaction: GuildCommand): Actor {
  return { id: interaction.user.id, name: displayNameOf(interaction.member, interaction.user) };
}

/**
 * Make a change through one of the rules object's named writes (it saves the change with its audit
 * entry and posts it to the log channel), as the member who used the command. On a storage failure
 * the moderator is told nothing changed (via editReply: callers defer first) and the result is undefined.
 */
export async function saveChange<T>(ctx: { runtime: Pick<Runtime, 'logger'> }, interaction: GuildCommand, write: (actor: Actor) => Promise<T>): Promise<T | undefined> {
  try {
    return await write(actorOf(interaction));
  } catch (error) {
    ctx.runtime.logger.error({ err: error, interactionId: interaction.id, guildId: interaction.guildId, command: interaction.commandName }, 'could not save a moderator change');
    await interaction.editReply({ content: saveFailed(error), allowedMentions: NO_MENTIONS });
    return undefined;
  }
}

/**
 * Record an action that changed something outside the settings (the knowledge base, schedules) after it
 * was done: an audit entry, then the log channel post. Resolves with '' or a note for the moderator
 * saying what could not be recorded; the action itself stands either way.
 */
export async function auditAction(ctx: ModerationServices, interaction: GuildCommand, action: string, detail: string): Promise<string> {
  return auditNote({ rules: ctx.rules, logger: ctx.runtime.logger }, interaction.guildId, actorOf(interaction), { action, detail });
}
