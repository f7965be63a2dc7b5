/**
 * The audit trail of what moderators and approvers did: an entry appended to the guild's settings
 * (with the change it records, in one serialized update), then a line in the log channel. Used by the
 * moderation commands and by tool approvals alike, so there is one way an action gets audited.
 */
import type { Client } from 'discord.js';
import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { withAuditEntry, type ChangeRecord } from '../../policy/index.js';
import type { GuildSettings, GuildSettingsStore } from '../../state/index.js';
import { NO_MENTIONS } from '../members.js';

export interface AuditDeps {
  guildSettings: Pick<GuildSettingsStore, 'update'>;
  now: () => Date;
}

/**
 * Apply `apply` to the settings and append the audit entry, in one serialized update. Resolves with the
 * new settings and the log channel to post to (the old one when the change cleared it, so its readers
 * know why it went quiet).
 */
export async function recordAudit(
  deps: AuditDeps,
  guildId: string,
  record: ChangeRecord,
  apply: (settings: GuildSettings) => GuildSettings = (settings) => settings,
): Promise<{ settings: GuildSettings; logChannelId: string | undefined }> {
  let previousLogChannel: string | undefined;
  const settings = await deps.guildSettings.update(guildId, (current) => {
    previousLogChannel = current.logChannelId;
    return withAuditEntry(apply(current), record, deps.now().getTime());
  });
  return { settings, logChannelId: settings.logChannelId ?? previousLogChannel };
}

/** Post to the log channel; '' on success or when none is set, else a note saying why it failed. */
export async function postToLogChannel(logger: Pick<Logger, 'warn'>, client: Client, guildId: string | null, channelId: string | undefined, content: string): Promise<string> {
  if (!channelId) return '';
  try {
    const channel = await client.channels.fetch(channelId);
    if (!channel?.isSendable()) throw new Error('it is not a channel I can post in');
    await channel.send({ content, allowedMentions: NO_MENTIONS });
    return '';
  } catch (error) {
    logger.warn({ err: error, guildId, logChannelId: channelId }, 'could not post to the log channel');
    return `\n-# ⚠️ The change is saved and in \`/tools audit\`, but I could not post it to <#${channelId}> (${describeError(error)}). Check my permissions there or set another log channel.`;
  }
}
