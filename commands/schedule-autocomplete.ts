/**
 * Suggestions for `/schedule`: `when` read as the member types (what it means and its next run, or
 * what is wrong with it), with examples; and the schedules the member may act on, by question or id.
 */
import type { AutocompleteInteraction } from 'discord.js';
import type { BotServices } from '../src/discord/services.js';
import { localTime, questionPreview } from '../src/discord/text/schedule-text.js';
import { PermissionFlagsBits } from 'discord.js';
import { parseWhen, recurrence } from '../src/schedules/index.js';
import { CHOICE_LIMIT } from '../src/discord/posting/split-message.js';

const EXAMPLES = ['every weekday at 09:00 Europe/Paris', 'every 2 hours', 'daily 18:00 UTC', 'mondays 8:30 America/New_York', 'every 30 minutes', '0 9 * * 1-5 Europe/Paris'];
const cut = (text: string, max = CHOICE_LIMIT) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

export async function completeWhen(interaction: AutocompleteInteraction, services: Pick<BotServices, 'schedules'>, typed: string): Promise<void> {
  const text = typed.trim();
  const choices: Array<{ name: string; value: string }> = [];
  if (text && interaction.guildId) {
    const mine = (await services.schedules.store.list(interaction.guildId).catch(() => [])).filter((s) => s.ownerId === interaction.user.id);
    const now = services.schedules.now();
    const read = parseWhen(text, { defaultZone: mine.at(-1)?.timeZone, minIntervalMinutes: services.schedules.caps.minIntervalMinutes, nowMs: now });
    if (read.ok) {
      const next = recurrence(read.when.cron, read.when.timeZone).next(now);
      choices.push({ name: cut(`✅ ${read.when.description} (${read.when.timeZone}) · next ${next ? localTime(next, read.when.timeZone) : 'never'}`), value: cut(text) });
    } else choices.push({ name: cut(`⚠️ ${read.problem}`), value: cut(text) });
  }
  const needle = text.toLowerCase();
  for (const example of EXAMPLES) if (!needle || example.includes(needle)) choices.push({ name: `e.g. ${example}`, value: example });
  await interaction.respond(choices.slice(0, 25));
}

export async function completeSchedule(interaction: AutocompleteInteraction, services: Pick<BotServices, 'schedules'>, typed: string): Promise<void> {
  if (!interaction.guildId) return interaction.respond([]);
  const moderator = interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild) ?? false;
  const needle = typed.trim().toLowerCase();
  const all = await services.schedules.store.list(interaction.guildId).catch(() => []);
  const choices = all
    .filter((s) => moderator || s.ownerId === interaction.user.id)
    .filter((s) => !needle || s.id.includes(needle) || s.question.toLowerCase().includes(needle))
    .slice(0, 25)
    .map((s) => ({ name: cut(`${s.id} · ${s.paused ? '⏸️ ' : ''}${questionPreview(s.question, 50)} · ${s.description}`), value: s.id }));
  await interaction.respond(choices);
}
