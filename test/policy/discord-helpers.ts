/**
 * Helpers for the moderation end-to-end tests: a harness whose bot uses the real tool policy, a
 * moderator (a member whose role has Manage Server, not the owner), slash commands with subcommands,
 * and waiting for a command's final reply or a finished /ask.
 */
import type { CommandOption, FakeDiscord, FakeInteraction, FakeMessage } from '../fake-discord/index.js';
import { MessageFlag } from '../fake-discord/index.js';
import { startHarness, type Harness, type HarnessOptions, isFinalAnswer } from '../discord/harness.js';
import type { FakeOpenAIServer } from '../fakes/openai-server.js';

/** Option types by name: what `/tools` and `/settings` declare. */
const OPTION_TYPES: Record<string, number> = { channel: 7, role: 8, count: 4, limit: 4, everywhere: 5 };

/** A subcommand with its options, as Discord sends it. `focused` marks the option being typed. */
export function sub(name: string, options: Record<string, string | number | boolean> = {}, focused?: string): CommandOption[] {
  return [{
    name,
    type: 1,
    options: Object.entries(options).map(([key, value]) => ({
      name: key, value, type: OPTION_TYPES[key] ?? 3, ...(key === focused ? { focused: true } : {}),
    })),
  }];
}

export interface ModerationWorld {
  h: Harness;
  fake: FakeDiscord;
  model: FakeOpenAIServer;
  guildId: string;
  /** A member whose role grants Manage Server. */
  modId: string;
}

/** A harness (with the real tool policy, as always) and a moderator. */
export async function startModeration(options: HarnessOptions = {}, reuse?: { fake: FakeDiscord; model: FakeOpenAIServer }): Promise<ModerationWorld> {
  const h = await startHarness(options, reuse);
  const fake = h.fake;
  const guildId = fake.defaults.guildId;
  let modId = [...fake.state.users.values()].find((u) => u.username === 'mod')?.id;
  if (!modId) {
    const role = fake.addRole({ name: 'Moderators', permissions: ['ManageGuild'] });
    modId = fake.addUser({ username: 'mod', globalName: 'Mod Erator' }).id;
    fake.addMember({ userId: modId, roleIds: [role.id] });
  }
  return { h, fake, model: h.model, guildId, modId };
}

/** The command's reply once it is final (not the deferred "thinking…" placeholder). */
export async function replyTo(fake: FakeDiscord, interaction: FakeInteraction, timeoutMs = 5000): Promise<FakeMessage> {
  return fake.waitForMessage(
    (m) => m.interactionId === interaction.id && (m.flags & MessageFlag.Loading) === 0 && m.content !== '',
    timeoutMs,
  );
}

/**
 * The private refusal of an `/ask` refused by a usage limit: the command acknowledged at once (publicly,
 * before touching storage), then replaced its reply by an ephemeral follow-up saying why.
 */
export async function privateRefusal(fake: FakeDiscord, interaction: FakeInteraction, timeoutMs = 5000): Promise<FakeMessage> {
  return fake.waitForMessage(
    (m) => m.interactionId === interaction.id && (m.flags & MessageFlag.Ephemeral) !== 0 && m.content !== '',
    timeoutMs,
  );
}

/** Run a slash command and return its final reply. */
export async function command(fake: FakeDiscord, name: string, options: CommandOption[], by: { userId: string; channelId?: string }): Promise<FakeMessage> {
  const interaction = fake.sendSlashCommand({ name, options, userId: by.userId, channelId: by.channelId });
  return replyTo(fake, interaction);
}

/** /ask in a channel, the model answering at once; resolves with the answer and what the model was offered. */
export async function askOnce(w: ModerationWorld, by: { userId?: string; channelId?: string } = {}): Promise<{ answer: FakeMessage; offered: string[] }> {
  const before = w.model.requests.length;
  w.model.script({ content: 'Done.' });
  const since = w.fake.mark();
  w.fake.sendSlashCommand({ name: 'ask', options: { question: 'Which tools do you have?' }, ...by });
  const answer = await w.fake.waitForMessage(isFinalAnswer, 10_000, { since });
  const request = w.model.requests[before]!;
  return { answer, offered: (request.body.tools ?? []).map((t) => t.function.name) };
}
