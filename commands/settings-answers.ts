/**
 * `/settings answers mode:<mention|always|off> [channel:]`: where the bot answers people who do not use
 * `/ask`, per server (no channel), category or channel (channel > category > server > the default,
 * `mention`). `always` needs the Message Content intent: without it the bot cannot read ordinary
 * messages, and the command says so instead of saving a setting that would do nothing. Audited.
 */
import type { ChatInputCommandInteraction, SlashCommandSubcommandBuilder } from 'discord.js';
import type { RuleServices, Runtime } from '../src/discord/services.js';
import { answerMode, type AnswerMode, type SettingSource } from '../src/policy/index.js';
import { answersProblem, settingAnswer } from '../src/discord/text/setting-answers.js';
import { ANSWER_WORDS } from '../src/discord/text/settings-text.js';
import { OptionProblem, placeOption, RULE_CHANNEL_TYPES } from './command-options.js';
import { saveChange } from './moderation.js';
import { TEXT_CAPS } from '../src/agent/text-caps.js';

type GuildCommand = ChatInputCommandInteraction<'cached' | 'raw'>;
type AnswerServices = { rules: Pick<RuleServices, 'setAnswers'>; runtime: Pick<Runtime, 'logger' | 'messageContent'> };

export function answersSubcommand(s: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return s.setName('answers').setDescription('Where I answer without /ask: mentions (default), every message, or off')
    .addStringOption((o) => o.setName('mode').setDescription('mention, always, off, or default (remove the setting)').setRequired(true).addChoices(
      { name: 'mention: mentions and replies to me (default)', value: 'mention' },
      { name: 'always: every new message or forum post', value: 'always' },
      { name: 'off: only slash commands', value: 'off' },
      { name: 'default (remove the setting)', value: 'default' },
    ))
    .addChannelOption((o) => o.setName('channel').setDescription('Only this channel or category (default: the whole server)').addChannelTypes(...RULE_CHANNEL_TYPES));
}

export async function setAnswers(interaction: GuildCommand, ctx: AnswerServices): Promise<string> {
  const mode = interaction.options.getString('mode', true);
  const problem = answersProblem(mode, ctx.runtime.messageContent);
  if (problem) throw new OptionProblem(problem);
  // No channel given: the whole server.
  const place = (await placeOption(interaction)) ?? {};
  const saved = await saveChange(ctx, interaction, (actor) => ctx.rules.setAnswers(interaction.guildId, actor, { place, mode: mode === 'default' ? null : (mode as AnswerMode) }));
  return saved ? settingAnswer('answers', saved) : '';
}

const SOURCE_WORDS: Record<SettingSource, string> = { channel: 'set for this channel', category: 'set for its category', server: 'set for this server', default: 'the default' };

/** The `/settings show` line for where the bot answers. */
export function answersLine(settings: Parameters<typeof answerMode>[0], place: Parameters<typeof answerMode>[1]): string {
  const { mode, source } = answerMode(settings, place);
  return `• Answers without /ask: ${ANSWER_WORDS[mode]} (\`${mode}\`, ${SOURCE_WORDS[source]}).`;
}
