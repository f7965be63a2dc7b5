/**
 * The audit trail of what moderators and approvers did: an entry appended to the guild's settings
 * (with the change it records, in one serialized update), then a line in the log channel. The rules
 * object's named writes, its `recordAction` (the knowledge base, schedules, exports) and tool approvals
 * all go through it, so there is one way an action gets audited, and no change without its entry.
 */
import { Routes, type Client, type REST } from 'discord.js';
import { describeError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { withAuditEntry, type ChangeRecord } from '../../policy/index.js';
import type { GuildSettings, GuildSettingsStore } from '../../state/index.js';
import { NO_MENTIONS } from '../members.js';
import { logChannelLine } from '../text/audit-text.js';

/**
 * Who makes a change: the member's id and the name the audit log keeps (names change; the log should
 * still read). `via: 'console'` when the change is made in the web console rather than by a command.
 */
export interface Actor {
  id: string;
  name: string;
  via?: 'console';
}

/** How the audit log records an action: its kind (`tools.enable`, `kb.add`) and the sentence shown. */
export interface AuditLine {
  action: string;
  /** What was done and where, as a sentence fragment the log shows after the actor's name. */
  detail: string;
}

/** A saved change: the settings as saved, the sentence the audit log has for it, and a note for the actor if the log channel could not be told ('' if it was, or none is set). */
export interface Written {
  settings: GuildSettings;
  detail: string;
  logNote: string;
}

/** Posts `line` to a guild's log channel: '' on success or when none is set, else a note for the actor saying why it failed. */
export type LogChannelPost = (guildId: string, channelId: string | undefined, line: string) => Promise<string>;

interface AuditDeps {
  guildSettings: Pick<GuildSettingsStore, 'update'>;
  now: () => Date;
}

/**
 * Apply `apply` to the settings and append the audit entry, in one serialized update. Resolves with the
 * new settings and the log channel to post to (the old one when the change cleared it, so its readers
 * know why it went quiet).
 */
async function recordAudit(
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

/** What the named writes are made of: a change with its entry and its post, or an action's entry alone. */
export interface AuditTrail {
  /** Save `apply`'s change with its audit entry in one update, then post the line. Rejects, with nothing saved, if the store refuses. */
  change(guildId: string, actor: Actor, line: AuditLine, apply: (settings: GuildSettings) => GuildSettings): Promise<Written>;
  /** Record an action done outside the settings; `logChannel: false` keeps it to the audit log (an export). */
  record(guildId: string, actor: Actor, line: AuditLine, options?: { logChannel?: boolean }): Promise<{ logNote: string }>;
}

/** The trail over the settings store and the log channel. */
export function createAuditTrail(deps: AuditDeps & { logChannel: LogChannelPost }): AuditTrail {
  const save = async (guildId: string, actor: Actor, line: AuditLine, apply?: (settings: GuildSettings) => GuildSettings, post = true) => {
    const record: ChangeRecord = { actorId: actor.id, actorName: actor.name, ...line, ...(actor.via ? { via: actor.via } : {}) };
    const written = await recordAudit(deps, guildId, record, apply);
    const logNote = post ? await deps.logChannel(guildId, written.logChannelId, logChannelLine(record)) : '';
    return { settings: written.settings, detail: line.detail, logNote };
  };
  return {
    change: (guildId, actor, line, apply) => save(guildId, actor, line, apply),
    record: async (guildId, actor, line, options) => ({ logNote: (await save(guildId, actor, line, undefined, options?.logChannel ?? true)).logNote }),
  };
}

/** Post to the log channel; '' on success or when none is set, else a note saying why it failed. */
export async function postToLogChannel(logger: Pick<Logger, 'warn'>, client: Client, guildId: string | null, channelId: string | undefined, content: string): Promise<string> {
  return postWith(logger, guildId, channelId, async (id) => {
    const channel = await client.channels.fetch(id);
    if (!channel?.isSendable()) throw new Error('it is not a channel I can post in');
    await channel.send({ content, allowedMentions: NO_MENTIONS });
  });
}

/** The same post through Discord's REST alone (a web console running apart from the bot). */
export async function postToLogChannelRest(logger: Pick<Logger, 'warn'>, rest: REST, guildId: string | null, channelId: string | undefined, content: string): Promise<string> {
  return postWith(logger, guildId, channelId, async (id) => {
    await rest.post(Routes.channelMessages(id), { body: { content, allowed_mentions: { parse: [] } } });
  });
}

async function postWith(logger: Pick<Logger, 'warn'>, guildId: string | null, channelId: string | undefined, post: (channelId: string) => Promise<void>): Promise<string> {
  if (!channelId) return '';
  try {
    await post(channelId);
    return '';
  } catch (error) {
    logger.warn({ err: error, guildId, logChannelId: channelId }, 'could not post to the log channel');
    return `\n-# ⚠️ The change is saved and in \`/tools audit\`, but I could not post it to <#${channelId}> (${describeError(error)}). Check my permissions there or set another log channel.`;
  }
}
