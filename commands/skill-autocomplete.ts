/**
 * Suggestions for `/skill`: skill names as the member types (for `run`, only those open to them), the
 * next tool name in a `tools` list (the ones this bot has), and the revisions a skill keeps.
 */
import type { AutocompleteInteraction } from 'discord.js';
import { PermissionFlagsBits } from 'discord.js';
import type { BotServices } from '../src/discord/services.js';
import { roleIdsOf } from '../src/discord/members.js';
import { mayRun } from '../src/policy/index.js';

const cut = (text: string, max = 100) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

export async function completeSkill(interaction: AutocompleteInteraction, services: Pick<BotServices, 'rules'>): Promise<void> {
  const focused = interaction.options.getFocused(true);
  const typed = String(focused.value).trim().toLowerCase();
  if (!interaction.guildId) return interaction.respond([]);
  const { catalog } = services.rules.skills;
  if (focused.name === 'tools') {
    const words = String(focused.value).split(/\s+/);
    const last = (words.pop() ?? '').toLowerCase();
    const before = words.filter(Boolean).join(' ');
    const names = services.rules.tools.map((t) => t.name).filter((n) => n.startsWith(last) && !words.includes(n));
    return interaction.respond(names.slice(0, 25).map((n) => { const value = cut(before ? `${before} ${n}` : n, 400); return { name: cut(value), value }; }));
  }
  const all = await catalog.list(interaction.guildId).catch(() => []);
  if (focused.name === 'revision') {
    const skill = all.find((s) => s.name === interaction.options.getString('name')?.trim().toLowerCase());
    const revisions = skill?.source.kind === 'server' ? [...skill.source.stored.revisions].reverse() : [];
    return interaction.respond(revisions.filter((r) => !typed || String(r.n).startsWith(typed)).slice(0, 25).map((r) => ({
      name: cut(`${r.n} · ${r.authorName} · ${new Date(r.at).toISOString().slice(0, 16).replace('T', ' ')} UTC · ${r.instructions.replace(/\s+/g, ' ')}`), value: r.n,
    })));
  }
  const moderator = interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild) ?? false;
  const runnable = interaction.options.getSubcommand(false) === 'run' ? all.filter((s) => mayRun(s.roles, { moderator, roleIds: roleIdsOf(interaction.member) })) : all;
  return interaction.respond(runnable.filter((s) => !typed || s.name.includes(typed)).slice(0, 25).map((s) => ({ name: cut(`${s.name} · ${s.description}`), value: s.name })));
}
