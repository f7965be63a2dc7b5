/** /help — how to use the bot here, and which tools it may use in this channel. */
import { InteractionContextType, MessageFlags, SlashCommandBuilder } from 'discord.js';
import type { Command } from '../src/discord/command.js';
import { scopeOf } from '../src/discord/members.js';

export const help: Command = {
  data: new SlashCommandBuilder()
    .setName('help')
    .setDescription('How to use threadwise, and what it can do here.')
    .setContexts(InteractionContextType.Guild),

  async execute(interaction, { rules, runtime: { messageContent } }) {
    const scope = scopeOf(interaction, interaction.member);
    const here = rules.at(scope);
    const [allowed, settings, answers] = await Promise.all([here.allowedTools(), here.settings(), here.answers()]);
    const tools = rules.tools.filter((t) => allowed.has(t.name)).map((t) => `\`${t.name}\``);
    const followUp = messageContent
      ? 'Anyone in the thread can keep talking to me: just write.'
      : 'To follow up in the thread, mention me in your message, or use `/ask` there.';
    await interaction.reply({
      flags: MessageFlags.Ephemeral,
      content: [
        '**threadwise** answers questions by reasoning step by step and using tools, in a thread you can follow.',
        '• `/ask question:` in a channel opens a thread for the question; inside a thread it continues the conversation. Attach a text file or an image with its `file` option.',
        answers === 'off'
          ? '• Here I answer only slash commands (moderators chose so with `/settings answers`).'
          : `• Or just mention me with your question (\`@me what is 17% of 2,340?\`): in a channel I open a thread on your message; in a thread or a forum post I answer there. Reply to a message while you mention me and I read it (and the ones it replied to) too.${answers === 'always' ? ' Here I answer every new message, mention or not.' : ''}`,
        '• On any message: **Apps → Ask about this message** asks me about it in a thread, with its text and files.',
        `• ${followUp} I remember the thread and know who said what.`,
        '• `/schedule add question: when:` asks a question for you on a schedule (\"every weekday at 09:00 Europe/Paris\"), each run in its own thread; `/schedule list` shows them.',
        '• This server\'s own commands, written by its moderators (skills): `/skill list` shows those you may run here; each runs as `/its-name` or `/skill run`, in a thread like `/ask`.',
        '• Press **Stop** under my steps to cancel a run. `/reset` in a thread makes me forget it; `/export` gives you its conversation as files.',
        '• Rate an answer with the 👍 or 👎 under it (👎 lets you say why): only you see your vote; moderators see the counts with `/feedback`.',
        '• Ask me to remember something about you ("remember that I deploy on Fly.io") and I use it in my later answers to you in this server; `/memory` shows and removes your notes.',
        `• Tools I may use here: ${tools.length ? tools.join(', ') : 'none (I answer from what I know)'}. Moderators choose them with \`/tools\`.`,
        `• Here I show ${settings.display === 'full' ? 'every step' : settings.display === 'actions' ? 'the tools I call' : 'only answers'}, with up to ${settings.maxSteps} steps per question.`,
      ].join('\n'),
    });
  },
};
