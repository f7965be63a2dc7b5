/**
 * Helpers for the knowledge base end-to-end tests: `/kb` subcommands with their options (an attachment
 * is `{ filename, data, contentType? }`), the message menu, and reading what the bot stored.
 */
import type { OptionValue } from '../fake-discord/command-options.js';
import { MessageFlag, type FakeDiscord, type FakeMessage } from '../fake-discord/index.js';
import { replyTo, type ModerationWorld } from '../policy/discord-helpers.js';

/** Run `/kb <subcommand>` as `userId` and return its final reply. */
export async function kbCommand(fake: FakeDiscord, subcommand: string, options: Record<string, OptionValue>, userId: string): Promise<FakeMessage> {
  return replyTo(fake, fake.sendSlashCommand({ name: 'kb', subcommand, options, userId }));
}

/**
 * `/kb add file:` with a text file: its reply once it says how the file went. A file slow to read shows
 * its progress in that reply first ("⏳ Adding …"), which is not the outcome.
 */
export function addFile(w: ModerationWorld, filename: string, content: string | Buffer, userId = w.modId, contentType?: string): Promise<FakeMessage> {
  const interaction = w.fake.sendSlashCommand({ name: 'kb', subcommand: 'add', options: { file: { filename, data: Buffer.from(content), ...(contentType ? { contentType } : {}) } }, userId });
  return w.fake.waitForMessage((m) => m.interactionId === interaction.id && (m.flags & MessageFlag.Loading) === 0 && m.content !== '' && !m.content.startsWith('⏳'), 20_000);
}

/** Apps → Add to knowledge base on a message, as `userId`. */
export function addMessage(w: ModerationWorld, messageId: string, userId = w.modId): Promise<FakeMessage> {
  return replyTo(w.fake, w.fake.sendMessageCommand({ name: 'Add to knowledge base', messageId, userId }));
}

/** The documents the bot stored for the default guild. */
export function storedDocuments(w: ModerationWorld) {
  return w.h.app.knowledge!.services.base.list(w.guildId);
}

/** The audit log's actions, oldest first. */
export async function auditActions(w: ModerationWorld): Promise<string[]> {
  return (await w.h.storage.guildSettings.get(w.guildId)).auditLog.map((e) => e.action);
}

export const EPHEMERAL = 64;

export const FAQ = [
  '# FAQ',
  '',
  '## Tickets',
  '',
  'Open a ticket in #support and a volunteer answers within a day.',
  '',
  '## Raids',
  '',
  'Raid night is every Friday at 20:00 UTC. Sign up in #raids before Thursday.',
].join('\n');
