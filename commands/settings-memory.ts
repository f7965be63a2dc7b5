/**
 * `/settings memory` and `/settings memory-erase`: moderators turn member memory (the notes members ask
 * the bot to keep, and the `remember`/`forget` tools) and past-thread search (`search_threads`) on or off
 * per server, category or channel (both on by default; channel > category > server), and remove a
 * member's notes when the member asks them to. Both are audited and posted to the log channel; an
 * erase records how many notes went, never what they said.
 */
import type { ChatInputCommandInteraction, SlashCommandSubcommandBuilder } from 'discord.js';
import type { RuleServices, Runtime, TurnServices } from '../src/discord/services.js';
import { MEMORY_KINDS, memorySettings, type MemoryKind, type MemorySettings, type SettingSource } from '../src/policy/index.js';
import { OptionProblem, placeOption, RULE_CHANNEL_TYPES } from './command-options.js';
import { MEMORY_OFF_EFFECT, memoryProblem, settingAnswer } from '../src/discord/text/setting-answers.js';
import { auditAction, saveChange } from './moderation.js';
import { TEXT_CAPS } from '../src/agent/text-caps.js';

type GuildCommand = ChatInputCommandInteraction<'cached' | 'raw'>;
type MemorySettingServices = { rules: Pick<RuleServices, 'setMemory' | 'recordAction'>; runtime: Pick<Runtime, 'logger'> };

export function memorySubcommand(s: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return s.setName('memory').setDescription('Member memory and past-thread search, on or off here')
    .addStringOption((o) => o.setName('state').setDescription('on, off, or default (remove the setting)').setRequired(true).addChoices(
      { name: 'on', value: 'on' }, { name: 'off', value: 'off' }, { name: 'default (remove the setting)', value: 'default' },
    ))
    .addStringOption((o) => o.setName('what').setDescription('Which memory (default: both)').addChoices(
      { name: 'both', value: 'both' }, { name: 'member memory (notes, remember, forget)', value: 'members' }, { name: 'past-thread search', value: 'threads' },
    ))
    .addChannelOption((o) => o.setName('channel').setDescription('Only this channel or category (default: the whole server)').addChannelTypes(...RULE_CHANNEL_TYPES));
}

export function eraseSubcommand(s: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return s.setName('memory-erase').setDescription("Remove a member's notes in this server (when they ask you to)")
    .addUserOption((o) => o.setName('member').setDescription('Whose notes').setRequired(true))
    .addStringOption((o) => o.setName('entry').setDescription('Only this note id (default: all of them)').setMaxLength(20));
}

export async function setMemory(interaction: GuildCommand, ctx: MemorySettingServices): Promise<string> {
  const state = interaction.options.getString('state', true);
  const what = interaction.options.getString('what') ?? 'both';
  const problem = memoryProblem(state, what);
  if (problem) throw new OptionProblem(problem);
  const kinds: MemoryKind[] = what === 'both' ? [...MEMORY_KINDS] : [what as MemoryKind];
  // No channel given: the whole server.
  const place = (await placeOption(interaction)) ?? {};
  const on = state === 'default' ? null : state === 'on';
  const saved = await saveChange(ctx, interaction, (actor) => ctx.rules.setMemory(interaction.guildId, actor, { place, kinds, on }));
  return saved ? settingAnswer('memory', saved, state === 'off' ? MEMORY_OFF_EFFECT : '') : '';
}

export async function eraseMemory(interaction: GuildCommand, ctx: MemorySettingServices & { turns: Pick<TurnServices, 'memory'> }): Promise<string> {
  const member = interaction.options.getUser('member', true);
  const entry = interaction.options.getString('entry')?.trim().replace(/^#/, '');
  const store = ctx.turns.memory.store;
  let count: number;
  if (entry) {
    count = (await store.forget(interaction.guildId, member.id, entry)) ? 1 : 0;
    if (count === 0) return `<@${member.id}> has no note \`#${entry.slice(0, TEXT_CAPS.typedId)}\` in this server. Nothing was changed.`;
  } else {
    count = await store.clear(interaction.guildId, member.id);
    if (count === 0) return `<@${member.id}> has no notes in this server. Nothing was changed.`;
  }
  const detail = `removed ${entry ? `note #${entry}` : `all ${count} note${count === 1 ? '' : 's'}`} of <@${member.id}> from member memory`;
  const note = await auditAction(ctx, interaction, 'memory.erase', detail);
  return `✅ Done: ${detail}.${note}`;
}

const SOURCE_WORDS: Record<SettingSource, string> = { channel: 'set for this channel', category: 'set for its category', server: 'set for this server', default: 'the default' };

/** The `/settings show` line for memory. */
export function memoryLine(settings: Parameters<typeof memorySettings>[0], place: Parameters<typeof memorySettings>[1]): string {
  const m: MemorySettings = memorySettings(settings, place);
  return `• Memory: member notes ${m.members ? 'on' : 'off'} (${SOURCE_WORDS[m.membersSource]}), past-thread search ${m.threads ? 'on' : 'off'} (${SOURCE_WORDS[m.threadsSource]}).`;
}
